/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP/IP headers for probing a service (src/probe/): a SYN built to send
 * on a raw socket, and a segment's header read back, from a raw socket
 * (IPv4: the IP header and the segment; IPv6: the segment alone, the
 * kernel keeps the header) or from a captured frame (Ethernet with its
 * 802.1Q tags, Linux cooked SLL and SLL2, raw IP).
 *
 * Every read is bounded by the bytes given, never by what a header
 * claims; the payload's length is the IP header's, so a frame cut by a
 * capture's snaplen still says how long its segment was. No allocation,
 * no state.
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

/* A SYN's header with its options (MSS, SACK permitted, timestamps,
 * window scale), bytes. */
#define TCPWIRE_SYN_LEN 40

/* One segment's header. */
struct tcpwire_seg {
	uint8_t family;			/* 4 or 6 */
	uint8_t src[16], dst[16];	/* IPv4: the first 4 bytes */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;			/* TCPWIRE_* */
	uint16_t win;			/* as sent (not scaled) */
	int8_t wscale;			/* a SYN's window scale option, or -1 */
	uint16_t mss;			/* a SYN's MSS option, or 0 */
	bool ts;			/* the timestamps option: tsval, tsecr */
	uint32_t tsval, tsecr;
	uint32_t len;			/* payload bytes, as the IP header says */
	bool cut;			/* the options were cut: ts, wscale unknown */
};

/*
 * A SYN from src:sport to dst:dport (family 4 or 6, addresses in network
 * order) with sequence number isn and timestamp value tsval, its
 * checksum over the pseudo-header: the TCP header alone, for a raw
 * socket whose kernel writes the IP header. Returns its length
 * (TCPWIRE_SYN_LEN); buf holds that many bytes.
 */
size_t tcpwire_syn(uint8_t *buf, int family, const uint8_t *src, const uint8_t *dst,
		   uint16_t sport, uint16_t dport, uint32_t isn, uint16_t mss, uint32_t tsval);

/*
 * An IP packet (IPv4 or IPv6 by its version) carrying TCP: 0 with *s,
 * -ENOENT when it is not TCP (or a fragment after the first), -EINVAL
 * when it is cut before the ports or its headers contradict themselves.
 */
int tcpwire_ip(const uint8_t *p, size_t caplen, struct tcpwire_seg *s);

/*
 * A TCP header alone (an IPv6 raw socket's read), of a segment of
 * seglen bytes (header and payload), from family's src to dst: as above.
 */
int tcpwire_tcp(const uint8_t *p, size_t caplen, size_t seglen, struct tcpwire_seg *s);

/* The link types tcpwire_frame() reads (pcap's DLT_* values). */
bool tcpwire_link_ok(int dlt);

/* A captured frame of link type dlt: as tcpwire_ip(); -ENOENT for what
 * is not IP (ARP, ...) or a link type it does not read. */
int tcpwire_frame(const uint8_t *p, size_t caplen, int dlt, struct tcpwire_seg *s);

#endif
