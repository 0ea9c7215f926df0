/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which probe an answer belongs to, by what it quotes, never by when it
 * came. Each path keeps one flow identity from the first TTL to the last
 * (Paris traceroute's rule: what an ECMP router hashes stays the same),
 * and each probe carries its number where routers do not hash:
 *
 *   tcp   the source port is the path's, the number is in the SYN's
 *         sequence number (isn_base + n), which a Time Exceeded quotes
 *         (its first 8 bytes) and a SYN-ACK or RST acknowledges (+1)
 *   udp   the source port is the path's, the number is the checksum
 *         (n + 1), quoted too; the destination answers Port Unreachable
 *   icmp  the identifier is the path's (id_base + path), the number the
 *         sequence number; the checksum is kept the same on a path
 *
 * An error quotes our source and the destination; anything else (another
 * host's traceroute, a probe of a trace before) is not matched. No
 * allocation, no state: the loop and the unit tests call it alike.
 */
#ifndef RANT_HOPMATCH_H
#define RANT_HOPMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hopsock.h"
#include "pktparse.h"

/* What an answer says of its probe. */
enum hop_answer {
	HOP_NONE = 0,		/* no answer */
	HOP_TTL,		/* Time Exceeded from a router on the way */
	HOP_UNREACH,		/* Destination Unreachable from a router: the
				 * trace ends (code: why) */
	HOP_DEST,		/* the destination: SYN-ACK, RST, echo reply,
				 * Port Unreachable */
};

struct hopmatch {
	int family;			/* AF_INET or AF_INET6 */
	enum hopsock_proto proto;
	uint8_t src[16], dst[16];	/* ours, the destination's */
	uint16_t dport;			/* tcp, udp */
	uint32_t isn_base;		/* tcp */
	uint16_t id_base;		/* icmp */
	unsigned int paths;
	const uint16_t *sport;		/* [paths]: tcp, udp */
	uint32_t probes;		/* numbers 0 to probes - 1 */
};

/* One answer matched. */
struct hopmatch_hit {
	uint32_t probe;			/* its number */
	unsigned int path;
	enum hop_answer answer;
	uint8_t code;			/* an unreachable's */
	uint8_t from[16];		/* the responder */
};

/* The numbers a probe carries (n < 0xfffe for udp). */
uint32_t hopmatch_tcp_seq(const struct hopmatch *m, uint32_t n);
uint16_t hopmatch_udp_csum(uint32_t n);
uint16_t hopmatch_echo_id(const struct hopmatch *m, unsigned int path);
/* The checksum every echo request of a path carries. */
uint16_t hopmatch_echo_csum(unsigned int path);

/* An ICMP message (pktparse_icmp) from from[16] (ICMPv6: recvmsg's
 * source; IPv4: the IP header's, in ic): true with *hit when it answers
 * one of our probes. */
bool hopmatch_icmp(const struct hopmatch *m, const struct pkt_icmp *ic, const uint8_t from[16],
		   struct hopmatch_hit *hit);

/* A TCP segment off the raw socket (pktparse_ip, or pktparse_tcp for
 * IPv6 with the source from recvmsg): true with *hit when it is the
 * destination's SYN-ACK or RST to one of our SYNs. */
bool hopmatch_tcp(const struct hopmatch *m, const struct pkt_tcp *t, struct hopmatch_hit *hit);

#endif
