/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP header's flags and option kinds, and the SYN --syn sends: built
 * to go out on a raw socket, its checksum over the pseudo-header. The
 * reading of segments (a raw socket's, a captured frame's) is pktparse.h.
 * No allocation, no state.
 */
#ifndef RANT_TCPWIRE_H
#define RANT_TCPWIRE_H

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

#endif
