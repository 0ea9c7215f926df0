/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A captured frame into the TCP segment it carries (tcpseg.h's struct
 * tcpseg, as the analysis takes it) and its addresses and ports: every
 * frame rant reads (--read, --watch; the capture beside a probe and
 * beside rant's own --tcp pair, capture/segcap.h), and what --syn's raw
 * socket reads (an IP packet, or a TCP header alone). Its first steps,
 * the link layer and the IP header down to the transport header, serve
 * any protocol (pktparse_l4(): --pcap's check finds rant's UDP datagrams
 * by them, capture/capmatch.h). The link layer
 * (Ethernet with any number of 802.1Q / 802.1ad tags, Linux cooked SLL
 * and SLL2 as `tcpdump -i any` writes, raw IPv4 or IPv6), the IP header
 * (IPv6's extension headers walked, however many: hop-by-hop, routing,
 * destination options, AH; a fragment's TCP header is not read), the
 * tunnels tshark reads through (IPIP, 6in4, GRE, VXLAN), the TCP header
 * and its options (MSS, window scale, timestamps). An IP length past the
 * frame on the wire (or past the tunnel's packet) is cut to it and the
 * segment marked (clamped): the frame's bytes bound it, not the header.
 *
 * Every read is bounded by the captured length, never by what a header
 * claims: a frame cut by the capture's snaplen gives what was captured.
 * The payload's length is the IP header's (a cut capture still knows it);
 * when the TCP options were cut the segment is marked TCPSEG_F_CUT, and
 * when even the flags were, the segment is marked unreadable (noflags):
 * its flow is known, its segment is not.
 *
 * No allocation, no state: safe for the fuzzer and for any thread.
 */
#ifndef RANT_PKTPARSE_H
#define RANT_PKTPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "tcpseg.h"

/* What a frame was. */
enum pkt_verdict {
	PKT_TCP,		/* a TCP segment: out filled */
	PKT_NOT_IP,		/* ARP, LLDP, ...: neither IPv4 nor IPv6 */
	PKT_NOT_TCP,		/* IP, another protocol (UDP, ICMP, ...) */
	PKT_FRAGMENT,		/* an IP fragment: its TCP header is not read */
	PKT_CUT,		/* cut by the snaplen before the TCP ports */
	PKT_BAD,		/* a header that contradicts itself or the frame */
	PKT_TUNNEL,		/* inside a tunnel rant does not read (PPTP's
				 * GRE, GRE of another protocol than IP or
				 * Ethernet, tunnels more than 16 deep) */
	PKT_VERDICTS
};

struct pkt_tcp {
	uint8_t family;		/* 4 or 6 */
	uint8_t src[16], dst[16];	/* IPv4: the first 4 bytes, the rest 0 */
	uint16_t sport, dport;
	struct tcpseg seg;	/* dir not set; win as sent (not scaled) */
	int8_t wscale;		/* a SYN's window scale option, or -1 */
	bool noflags;		/* the capture cut the TCP header before its
				 * flags: seg holds only ports, maybe seq */
	uint8_t tunnels;	/* tunnels it was read inside (0: none) */
	bool clamped;		/* an IP length past the frame, cut to it */
};

/* The link types pktparse() reads (pcap's DLT_* values). */
bool pktparse_link_ok(int dlt);

/* Is an IPv4 packet one of fragments? */
enum pkt_frag {
	PKT_WHOLE,		/* no */
	PKT_FRAG_FIRST,		/* the first: the transport header is in it */
	PKT_FRAG_LATER,		/* a later one: no transport header */
};

/* Where a frame's IP header and its transport header lie. */
struct pkt_l4 {
	uint8_t family;		/* 4 or 6 */
	uint8_t proto;		/* the transport's protocol number (6 TCP, 17 UDP,
				 * ...; IPv6: the next header where the walk
				 * of extension headers stopped) */
	uint8_t frag;		/* enum pkt_frag (IPv6's fragments: PKT_FRAGMENT) */
	uint32_t ip_off;	/* the IP header's offset in the frame */
	uint32_t off;		/* the transport header's: may lie past caplen */
	uint32_t end;		/* where the IP payload ends, as its header says
				 * (not bounded by caplen, bounded by the frame's
				 * wire length; before off: a header that
				 * contradicts itself) */
	uint8_t tunnels;	/* tunnels decoded around this IP header */
	bool clamped;		/* an IP length (any of them) went past the frame
				 * or the tunnel's packet: cut to it */
};

/*
 * The link layer and the IP header of frame p (caplen bytes captured,
 * wirelen on the wire), link type dlt, down to the transport header:
 * PKT_TCP or PKT_NOT_TCP by its protocol, *l4 filled either way; else
 * PKT_NOT_IP, PKT_CUT (before the end of the IP header, or of an
 * extension header), PKT_BAD, PKT_FRAGMENT (IPv6's fragment header) or
 * PKT_TUNNEL. Tunnels are read through, as tshark reads them (IPv4 and
 * IPv6 in IP: IPIP, 6in4, 4in6, 6in6; GRE with IPv4, IPv6 or Ethernet
 * inside; VXLAN on UDP port 4789): *l4 is the innermost packet's.
 */
enum pkt_verdict pktparse_l4(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
			     struct pkt_l4 *l4);

/*
 * Frame p of caplen bytes captured (wirelen on the wire) at t_ns, of
 * link type dlt: PKT_TCP with *out filled, or why not.
 */
enum pkt_verdict pktparse(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
			  int64_t t_ns, struct pkt_tcp *out);

/* An IP packet (IPv4 or IPv6 by its version) of len bytes, as an IPv4
 * raw socket reads it: as pktparse() of a raw IP frame. */
enum pkt_verdict pktparse_ip(const uint8_t *p, uint32_t len, int64_t t_ns, struct pkt_tcp *out);

/* A TCP header and its payload, len bytes, as an IPv6 raw socket reads
 * it (the kernel keeps the IP header): family and addresses 0, the
 * verdict PKT_TCP, PKT_CUT or PKT_BAD. */
enum pkt_verdict pktparse_tcp(const uint8_t *p, uint32_t len, int64_t t_ns, struct pkt_tcp *out);

/*
 * An ICMP (or ICMPv6) message as trace's raw socket reads it, and for an
 * error (Time Exceeded, Destination Unreachable) the probe it quotes: the
 * quoted IP header (RFC 792: it and at least 8 bytes of what follows;
 * RFC 4443: as much as fits) and the first 8 bytes of its transport
 * header, which hold a TCP probe's ports and sequence number, a UDP
 * probe's ports and checksum, an echo request's identifier and sequence
 * number. Bounded by len, never by what a header claims.
 */
enum pkt_icmp_kind {
	PKT_ICMP_OTHER,			/* none of the below */
	PKT_ICMP_ECHO_REPLY,		/* id, seq */
	PKT_ICMP_TIME_EXCEEDED,		/* in transit (code 0): q */
	PKT_ICMP_UNREACH,		/* destination unreachable: q, code */
};

/* The first 8 bytes of a quoted (or an echo's) transport header. */
struct pkt_quote {
	uint8_t proto;			/* 6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6 */
	uint8_t src[16], dst[16];	/* the quoted IP header's */
	uint8_t ttl;			/* the quoted TTL (hop limit): what it
					 * had left at the responder */
	uint16_t sport, dport;		/* TCP, UDP */
	uint32_t seq;			/* TCP */
	uint16_t csum;			/* UDP's checksum, ICMP's */
	uint16_t id, echo_seq;		/* an echo request's */
};

struct pkt_icmp {
	uint8_t family;			/* 4 or 6 */
	uint8_t src[16];		/* who sent it: IPv4's header; 0 for an
					 * ICMPv6 header alone (the caller has
					 * the source from recvmsg) */
	enum pkt_icmp_kind kind;
	uint8_t type, code;
	uint16_t id, seq;		/* an echo reply's */
	struct pkt_quote q;		/* an error's */
};

/*
 * An ICMP message: p is an IPv4 packet (what an IPv4 raw socket reads)
 * when family is 4, an ICMPv6 message from its header when 6 (what an
 * IPv6 raw socket reads). 0 with *out; -ENOMSG when it is not ICMP (or
 * an IPv4 fragment after the first); -EINVAL when it is cut before what
 * its kind needs (an error's quote down to its 8 transport bytes) or
 * contradicts itself.
 */
int pktparse_icmp(int family, const uint8_t *p, uint32_t len, struct pkt_icmp *out);

/* "not_ip", "not_tcp", ...: the JSON's counts. */
const char *pktparse_verdict_name(enum pkt_verdict v);

#endif
