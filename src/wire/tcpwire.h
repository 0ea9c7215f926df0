/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP header's flags and option kinds, a window in bytes by the
 * handshake's window scale, and the SYN --syn sends: built to go out on a
 * raw socket, its checksum over the pseudo-header; trace's UDP and ICMP
 * echo probes likewise. The reading of
 * segments (a raw socket's, a captured frame's) is pktparse.h. No
 * allocation, no state.
 */
#ifndef RANT_TCPWIRE_H
#define RANT_TCPWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The TCP header's flags. */
#define TCPWIRE_FIN 0x01
#define TCPWIRE_SYN 0x02
#define TCPWIRE_RST 0x04
#define TCPWIRE_PSH 0x08
#define TCPWIRE_ACK 0x10

/* The TCP options' kinds. */
#define TCPWIRE_OPT_EOL 0
#define TCPWIRE_OPT_NOP 1
#define TCPWIRE_OPT_MSS 2
#define TCPWIRE_OPT_WSCALE 3
#define TCPWIRE_OPT_SACK_PERM 4
#define TCPWIRE_OPT_TS 8

/* The largest window scale (RFC 7323 2.3: a larger one is taken as 14). */
#define TCPWIRE_WSCALE_MAX 14

/*
 * The window of a segment in bytes (RFC 7323 2.2, 2.3): win as sent,
 * shifted by its sender's window scale ws_from when both SYNs offered
 * the option (ws_from, ws_to: the sender's and the receiver's scale, -1:
 * not offered); a SYN's window is never scaled.
 */
static inline uint32_t tcpwire_window(uint32_t win, int ws_from, int ws_to, bool syn)
{
	uint64_t w;

	if (syn || ws_from < 0 || ws_to < 0)
		return win;
	w = (uint64_t)win << (ws_from > TCPWIRE_WSCALE_MAX ? TCPWIRE_WSCALE_MAX : ws_from);
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

/* A SYN's header with its options (MSS, SACK permitted, timestamps,
 * window scale), bytes. */
#define TCPWIRE_SYN_LEN 40

/*
 * A SYN from src:sport to dst:dport (family 4 or 6, addresses in network
 * order) with sequence number isn and timestamp value tsval, its
 * checksum over the pseudo-header: the TCP header alone, for a raw
 * socket whose kernel writes the IP header. Returns its length
 * (TCPWIRE_SYN_LEN); buf holds that many bytes.
 */
size_t tcpwire_syn(uint8_t *buf, int family, const uint8_t *src, const uint8_t *dst,
		   uint16_t sport, uint16_t dport, uint32_t isn, uint16_t mss, uint32_t tsval);

/* trace's UDP probe and ICMP echo request: a header and this many bytes
 * of payload, the last two chosen to give the checksum asked for. */
#define TCPWIRE_PROBE_PAYLOAD 12
#define TCPWIRE_UDP_LEN (8 + TCPWIRE_PROBE_PAYLOAD)
#define TCPWIRE_ECHO_LEN (8 + TCPWIRE_PROBE_PAYLOAD)

/*
 * A UDP datagram from src:sport to dst:dport (family 4 or 6) whose
 * checksum is csum (1 to 0xfffe): the checksum tells the probes of one
 * flow apart while the ports stay the flow's (Paris traceroute's rule:
 * ECMP hashes the ports, never the checksum). Returns TCPWIRE_UDP_LEN.
 */
size_t tcpwire_udp(uint8_t *buf, int family, const uint8_t *src, const uint8_t *dst,
		   uint16_t sport, uint16_t dport, uint16_t csum);

/*
 * An ICMPv4 echo request with identifier id and sequence number seq
 * whose checksum is csum (1 to 0xfffe), the same for every probe of a
 * flow (a router that balances ICMP hashes its first four bytes).
 * Returns TCPWIRE_ECHO_LEN. (ICMPv6's checksum the kernel writes.)
 */
size_t tcpwire_echo(uint8_t *buf, uint16_t id, uint16_t seq, uint16_t csum);

#endif
