// SPDX-License-Identifier: GPL-2.0-or-later
/* A captured frame, an IP packet or a TCP header into its TCP segment
 * (pktparse.h). */
#include <errno.h>
#include <pcap/dlt.h>
#include <string.h>

#include "be.h"
#include "pktparse.h"
#include "tcpwire.h"

#define ETH_HLEN 14
#define SLL_HLEN 16
#define SLL2_HLEN 20
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100
#define ETHERTYPE_TEB 0x6558		/* GRE: transparent Ethernet bridging */
#define IP4_HLEN 20
#define IP6_HLEN 40
#define TCP_HLEN 20
#define IPPROTO_TCP_ 6
#define IPPROTO_ICMP_ 1
#define IPPROTO_ICMPV6_ 58
#define ICMP_HLEN 8		/* type, code, checksum, 4 bytes more */
#define QUOTE_L4 8		/* the quoted transport bytes read */
#define IPPROTO_UDP_ 17
#define IPPROTO_IPIP_ 4			/* IPv4 in IP */
#define IPPROTO_IPV6_ 41		/* IPv6 in IP (6in4, 6in6) */
#define IPPROTO_GRE_ 47
#define UDP_HLEN 8
#define GRE_HLEN 4
#define GRE_C 0x8000			/* checksum present */
#define GRE_R 0x4000			/* routing present (RFC 1701) */
#define GRE_K 0x2000			/* key present */
#define GRE_S 0x1000			/* sequence number present */
#define GRE_VER 0x0007			/* 0; 1 is PPTP's enhanced GRE: not read */
#define VXLAN_PORT 4789			/* IANA's, as tshark decodes it */
#define VXLAN_HLEN 8
#define VXLAN_I 0x08			/* the VNI is valid */
#define TUNNEL_MAX 16			/* tunnels in tunnels, at most */

/* IPv6 next headers walked over, and where the walk stops. */
#define NH_HOPOPTS 0
#define NH_ROUTING 43
#define NH_FRAGMENT 44
#define NH_AH 51
#define NH_DSTOPTS 60

/* Where the IP header starts in a frame, and what it is. */
struct ip_at {
	uint32_t off;		/* bytes of link header */
	uint16_t type;		/* ETHERTYPE_IPV4 or _IPV6, or other */
};

bool pktparse_link_ok(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return true;
	default:
		return false;
	}
}

const char *pktparse_verdict_name(enum pkt_verdict v)
{
	static const char *const names[PKT_VERDICTS] = {
		"tcp", "not_ip", "not_tcp", "fragment", "cut", "bad", "tunnel",
	};

	return v < PKT_VERDICTS ? names[v] : "?";
}

/* Ethertype type read just before p[off], and the VLAN tags from there
 * on, as many as the frame holds: where IP starts. false when the frame
 * ends first. */
static bool tags(const uint8_t *p, uint32_t caplen, uint16_t type, uint32_t off,
		 struct ip_at *at)
{
	while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
		if (off + 4 > caplen)
			return false;
		type = be_get16(p + off + 2);	/* after the tag control information */
		off += 4;
	}
	at->off = off;
	at->type = type;
	return true;
}

/* The link header: false when the frame ends inside it. */
static bool link_header(int dlt, const uint8_t *p, uint32_t caplen, struct ip_at *at)
{
	switch (dlt) {
	case DLT_EN10MB:
		return caplen >= ETH_HLEN && tags(p, caplen, be_get16(p + 12), ETH_HLEN, at);
	case DLT_LINUX_SLL:
		return caplen >= SLL_HLEN && tags(p, caplen, be_get16(p + 14), SLL_HLEN, at);
	case DLT_LINUX_SLL2:	/* the protocol first, then 18 bytes more */
		return caplen >= SLL2_HLEN && tags(p, caplen, be_get16(p), SLL2_HLEN, at);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (!caplen)
			return false;
		at->off = 0;
		at->type = (p[0] >> 4) == 4 ? ETHERTYPE_IPV4 :
			   (p[0] >> 4) == 6 ? ETHERTYPE_IPV6 : 0;
		return true;
	default:
		return false;
	}
}

/* IPv4 at p[off]: its transport header, however many fragments. limit:
 * where the packet can end at the most (the frame on the wire, or the
 * tunnel's packet around it): a total length past it is cut to it. */
static enum pkt_verdict ipv4(const uint8_t *p, uint32_t caplen, uint32_t limit, uint32_t off,
			     struct pkt_l4 *l4)
{
	const uint8_t *h = p + off;
	uint32_t ihl, tot;
	uint16_t frag;

	if (off + IP4_HLEN > caplen)
		return PKT_CUT;
	if (h[0] >> 4 != 4 || limit < off + IP4_HLEN)
		return PKT_BAD;
	ihl = (uint32_t)(h[0] & 0xf) * 4;
	tot = be_get16(h + 2);
	if (ihl < IP4_HLEN)
		return PKT_BAD;
	if (!tot && limit > off)	/* a TSO segment captured on its way out */
		tot = limit - off;
	if (off + tot > limit) {	/* longer than the frame that carried it */
		tot = limit - off;
		l4->clamped = true;
	}
	if (tot < ihl)
		return PKT_BAD;
	frag = be_get16(h + 6);
	*l4 = (struct pkt_l4){
		.family = 4, .proto = h[9], .ip_off = off, .off = off + ihl, .end = off + tot,
		.tunnels = l4->tunnels, .clamped = l4->clamped,
		.frag = frag & 0x1fff ? PKT_FRAG_LATER :	/* an offset */
			frag & 0x2000 ? PKT_FRAG_FIRST : PKT_WHOLE,	/* more fragments */
	};
	return l4->proto == IPPROTO_TCP_ ? PKT_TCP : PKT_NOT_TCP;
}

/* An IPv6 next header walked over to the transport header. */
static bool ext_header(uint8_t nh)
{
	return nh == NH_HOPOPTS || nh == NH_ROUTING || nh == NH_DSTOPTS || nh == NH_AH ||
	       nh == NH_FRAGMENT;
}

/* IPv6 at p[off], its extension headers walked to the transport header
 * (as many as the frame holds: each is 8 bytes at least); limit as
 * ipv4()'s. */
static enum pkt_verdict ipv6(const uint8_t *p, uint32_t caplen, uint32_t limit, uint32_t off,
			     struct pkt_l4 *l4)
{
	const uint8_t *h = p + off;
	uint32_t plen, at = off + IP6_HLEN, len;
	uint8_t nh;

	if (off + IP6_HLEN > caplen)
		return PKT_CUT;
	if (h[0] >> 4 != 6)
		return PKT_BAD;
	if (limit < at)
		return PKT_BAD;
	plen = be_get16(h + 4);
	if (!plen)			/* a jumbogram, or a GSO segment */
		plen = limit - at;
	if (at + plen > limit) {	/* longer than the frame that carried it */
		plen = limit - at;
		l4->clamped = true;
	}
	nh = h[6];
	while (ext_header(nh)) {
		if (nh == NH_FRAGMENT)
			return PKT_FRAGMENT;
		if (at + 2 > caplen)
			return PKT_CUT;
		len = nh == NH_AH ? ((uint32_t)p[at + 1] + 2) * 4 : ((uint32_t)p[at + 1] + 1) * 8;
		nh = p[at];
		at += len;
	}
	*l4 = (struct pkt_l4){ .family = 6, .proto = nh, .frag = PKT_WHOLE, .ip_off = off,
			       .off = at, .end = off + IP6_HLEN + plen,
			       .tunnels = l4->tunnels, .clamped = l4->clamped };
	return nh == IPPROTO_TCP_ ? PKT_TCP : PKT_NOT_TCP;
}

/* An Ethernet frame inside a tunnel at p[off]: where its IP starts. */
static enum pkt_verdict inner_eth(const uint8_t *p, uint32_t caplen, uint32_t off,
				  struct ip_at *at)
{
	if (off + ETH_HLEN > caplen || !tags(p, caplen, be_get16(p + off + 12), off + ETH_HLEN, at))
		return PKT_CUT;
	return PKT_TCP;
}

/* RFC 1701's routing: SREs (family, offset, length, the route) until a
 * NULL one; false when the frame ends first. */
static bool gre_sres(const uint8_t *p, uint32_t caplen, uint32_t *off)
{
	for (;;) {
		if (*off + 4 > caplen)
			return false;
		if (!be_get16(p + *off) && !p[*off + 3]) {
			*off += 4;
			return true;
		}
		*off += 4 + p[*off + 3];
	}
}

/* GRE (RFC 1701, 2784, 2890) at p[off]: IPv4, IPv6 or Ethernet inside;
 * PKT_TUNNEL for what is not read (PPTP's version 1, other protocols). */
static enum pkt_verdict gre(const uint8_t *p, uint32_t caplen, uint32_t off, struct ip_at *at)
{
	uint16_t fl, type;
	uint32_t o = off + GRE_HLEN;

	if (off + GRE_HLEN > caplen)
		return PKT_CUT;
	fl = be_get16(p + off);
	type = be_get16(p + off + 2);
	if (fl & GRE_VER)
		return PKT_TUNNEL;
	o += (fl & (GRE_C | GRE_R) ? 4 : 0) + (fl & GRE_K ? 4 : 0) + (fl & GRE_S ? 4 : 0);
	if ((fl & GRE_R) && !gre_sres(p, caplen, &o))
		return PKT_CUT;
	if (type == ETHERTYPE_TEB)
		return inner_eth(p, caplen, o, at);
	if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6)
		return PKT_TUNNEL;
	at->off = o;
	at->type = type;
	return PKT_TCP;
}

/*
 * The packet inside l4's, if it carries one: IPv4 or IPv6 in IP (IPIP,
 * 6in4, 4in6, 6in6), GRE, VXLAN (UDP port 4789 with its I flag, as
 * tshark decodes it). PKT_TCP with *at where it starts; PKT_NOT_TCP: no
 * tunnel; PKT_CUT, or PKT_TUNNEL for a tunnel not read.
 */
static enum pkt_verdict inner(const uint8_t *p, uint32_t caplen, const struct pkt_l4 *l4,
			      struct ip_at *at)
{
	uint32_t o = l4->off;

	switch (l4->proto) {
	case IPPROTO_IPIP_:
	case IPPROTO_IPV6_:
		at->off = o;
		at->type = l4->proto == IPPROTO_IPIP_ ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6;
		return PKT_TCP;
	case IPPROTO_GRE_:
		return gre(p, caplen, o, at);
	case IPPROTO_UDP_:
		if (o + UDP_HLEN + VXLAN_HLEN > caplen || be_get16(p + o + 2) != VXLAN_PORT ||
		    !(p[o + UDP_HLEN] & VXLAN_I))
			return PKT_NOT_TCP;
		return inner_eth(p, caplen, o + UDP_HLEN + VXLAN_HLEN, at);
	default:
		return PKT_NOT_TCP;
	}
}

enum pkt_verdict pktparse_l4(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
			     struct pkt_l4 *l4)
{
	enum pkt_verdict v, t;
	uint32_t limit;
	struct ip_at at;

	if (wirelen < caplen)
		wirelen = caplen;
	limit = wirelen;
	memset(l4, 0, sizeof(*l4));
	if (!link_header(dlt, p, caplen, &at))
		return caplen ? PKT_CUT : PKT_BAD;
	for (;;) {
		if (at.type == ETHERTYPE_IPV4)
			v = ipv4(p, caplen, limit, at.off, l4);
		else if (at.type == ETHERTYPE_IPV6)
			v = ipv6(p, caplen, limit, at.off, l4);
		else
			return PKT_NOT_IP;
		if (v != PKT_NOT_TCP || l4->frag != PKT_WHOLE || l4->off > l4->end)
			return v;
		t = inner(p, caplen, l4, &at);
		if (t != PKT_TCP)
			return t;
		if (l4->tunnels == TUNNEL_MAX)
			return PKT_TUNNEL;
		limit = l4->end;
		l4->tunnels++;
	}
}

/* The options that matter: MSS and window scale (SYN), timestamps. */
static void tcp_options(const uint8_t *o, uint32_t len, struct pkt_tcp *out)
{
	uint32_t i = 0;

	while (i < len) {
		uint8_t kind = o[i], olen;

		if (kind == TCPWIRE_OPT_EOL)
			return;
		if (kind == TCPWIRE_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return;
		olen = o[i + 1];
		if (olen < 2 || i + olen > len)
			return;		/* malformed: the rest is not read */
		if (kind == TCPWIRE_OPT_MSS && olen == 4)
			out->seg.mss = be_get16(o + i + 2);
		else if (kind == TCPWIRE_OPT_WSCALE && olen == 3)
			out->wscale = (int8_t)(o[i + 2] > TCPWIRE_WSCALE_MAX ?
					       TCPWIRE_WSCALE_MAX : o[i + 2]);
		else if (kind == TCPWIRE_OPT_TS && olen == 10) {
			out->seg.tsval = be_get32(o + i + 2);
			out->seg.tsecr = be_get32(o + i + 6);
			out->seg.flags |= TCPSEG_F_TS;
		}
		i += olen;
	}
}

/* The TCP header at p[off], ip_len bytes of IP payload from it. */
static enum pkt_verdict tcp(const uint8_t *p, uint32_t caplen, uint32_t off, uint32_t ip_len,
			    struct pkt_tcp *out)
{
	const uint8_t *t = p + off;
	uint32_t have = caplen > off ? caplen - off : 0, doff;
	uint8_t fl;

	if (have < 4)
		return PKT_CUT;
	out->sport = be_get16(t);
	out->dport = be_get16(t + 2);
	if (have < 14) {	/* the flags not captured */
		out->noflags = true;
		out->seg.flags = TCPSEG_F_CUT;
		out->seg.seq = have >= 8 ? be_get32(t + 4) : 0;
		return PKT_TCP;
	}
	doff = (uint32_t)(t[12] >> 4) * 4;
	if (doff < TCP_HLEN || doff > ip_len)
		return PKT_BAD;
	fl = t[13];
	out->seg.seq = be_get32(t + 4);
	out->seg.len = ip_len - doff;
	out->seg.flags = (fl & TCPWIRE_SYN ? TCPSEG_F_SYN : 0) |
			 (fl & TCPWIRE_FIN ? TCPSEG_F_FIN : 0) |
			 (fl & TCPWIRE_RST ? TCPSEG_F_RST : 0) |
			 (fl & TCPWIRE_PSH ? TCPSEG_F_PSH : 0);
	if (fl & TCPWIRE_ACK) {
		out->seg.flags |= TCPSEG_F_ACK;
		out->seg.ack = be_get32(t + 8);
	}
	if (have < doff) {	/* the window or the options cut: what is there */
		out->seg.flags |= TCPSEG_F_CUT;
		out->seg.win = have >= 16 ? be_get16(t + 14) : 0;
		if (have > TCP_HLEN)
			tcp_options(t + TCP_HLEN, have - TCP_HLEN, out);
		return PKT_TCP;
	}
	out->seg.win = be_get16(t + 14);
	tcp_options(t + TCP_HLEN, doff - TCP_HLEN, out);
	return PKT_TCP;
}

/* Nothing read yet. */
static void clear(struct pkt_tcp *out, int64_t t_ns)
{
	memset(out, 0, sizeof(*out));
	out->wscale = -1;
	out->seg.t_ns = t_ns;
}

enum pkt_verdict pktparse(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
			  int64_t t_ns, struct pkt_tcp *out)
{
	enum pkt_verdict v;
	struct pkt_l4 l4;
	const uint8_t *h;

	clear(out, t_ns);
	v = pktparse_l4(dlt, p, caplen, wirelen, &l4);
	out->tunnels = l4.tunnels;
	out->clamped = l4.clamped;
	if (v != PKT_TCP)
		return v;
	if (l4.frag != PKT_WHOLE)
		return PKT_FRAGMENT;
	if (l4.off > l4.end)	/* IPv6's extension headers past its payload */
		return PKT_BAD;
	h = p + l4.ip_off;
	out->family = l4.family;
	if (l4.family == 4) {
		memcpy(out->src, h + 12, 4);
		memcpy(out->dst, h + 16, 4);
	} else {
		memcpy(out->src, h + 8, 16);
		memcpy(out->dst, h + 24, 16);
	}
	return tcp(p, caplen, l4.off, l4.end - l4.off, out);
}

enum pkt_verdict pktparse_ip(const uint8_t *p, uint32_t len, int64_t t_ns, struct pkt_tcp *out)
{
	return pktparse(DLT_RAW, p, len, len, t_ns, out);
}

enum pkt_verdict pktparse_tcp(const uint8_t *p, uint32_t len, int64_t t_ns, struct pkt_tcp *out)
{
	clear(out, t_ns);
	return tcp(p, len, 0, len, out);
}

/* The probe an ICMP error quotes at p: an IP header and 8 bytes after. */
static int quote(const uint8_t *p, uint32_t len, struct pkt_quote *q)
{
	struct pkt_l4 l4 = { 0 };	/* ipv4() and ipv6() carry its tunnels and clamp */
	enum pkt_verdict v;
	const uint8_t *t;

	if (!len)
		return -EINVAL;
	v = (p[0] >> 4) == 4 ? ipv4(p, len, len, 0, &l4) :
	    (p[0] >> 4) == 6 ? ipv6(p, len, len, 0, &l4) : PKT_BAD;
	if (v != PKT_TCP && v != PKT_NOT_TCP)
		return -EINVAL;
	if (l4.frag == PKT_FRAG_LATER || l4.off + QUOTE_L4 > len)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->proto = l4.proto;
	if (l4.family == 4) {
		q->ttl = p[8];
		memcpy(q->src, p + 12, 4);
		memcpy(q->dst, p + 16, 4);
	} else {
		q->ttl = p[7];
		memcpy(q->src, p + 8, 16);
		memcpy(q->dst, p + 24, 16);
	}
	t = p + l4.off;
	if (q->proto == IPPROTO_ICMP_ || q->proto == IPPROTO_ICMPV6_) {
		q->csum = be_get16(t + 2);
		q->id = be_get16(t + 4);
		q->echo_seq = be_get16(t + 6);
		return 0;
	}
	q->sport = be_get16(t);
	q->dport = be_get16(t + 2);
	q->seq = be_get32(t + 4);
	q->csum = be_get16(t + 6);	/* UDP's (TCP's: the seq's low half) */
	return 0;
}

/* The ICMP kinds by family: echo reply, time exceeded, unreachable. */
static enum pkt_icmp_kind icmp_kind(int family, uint8_t type, uint8_t code)
{
	if (family == 4)
		return type == 0 ? PKT_ICMP_ECHO_REPLY :
		       type == 11 && code == 0 ? PKT_ICMP_TIME_EXCEEDED :
		       type == 3 ? PKT_ICMP_UNREACH : PKT_ICMP_OTHER;
	return type == 129 ? PKT_ICMP_ECHO_REPLY :
	       type == 3 && code == 0 ? PKT_ICMP_TIME_EXCEEDED :
	       type == 1 ? PKT_ICMP_UNREACH : PKT_ICMP_OTHER;
}

int pktparse_icmp(int family, const uint8_t *p, uint32_t len, struct pkt_icmp *out)
{
	const uint8_t *h = p;
	struct pkt_l4 l4 = { 0 };	/* ipv4() carries its tunnels and clamp */

	memset(out, 0, sizeof(*out));
	out->family = (uint8_t)family;
	if (family == 4) {
		if (ipv4(p, len, len, 0, &l4) != PKT_NOT_TCP)
			return len < IP4_HLEN ? -EINVAL : -ENOMSG;
		if (l4.proto != IPPROTO_ICMP_ || l4.frag == PKT_FRAG_LATER)
			return -ENOMSG;
		memcpy(out->src, p + 12, 4);
		if (l4.end < len)
			len = l4.end;	/* the IP header's length, not the padding */
		h = p + l4.off;
		len = len > l4.off ? len - l4.off : 0;
	}
	if (len < ICMP_HLEN)
		return -EINVAL;
	out->type = h[0];
	out->code = h[1];
	out->kind = icmp_kind(family, h[0], h[1]);
	if (out->kind == PKT_ICMP_ECHO_REPLY) {
		out->id = be_get16(h + 4);
		out->seq = be_get16(h + 6);
		return 0;
	}
	if (out->kind == PKT_ICMP_OTHER)
		return 0;
	return quote(h + ICMP_HLEN, len - ICMP_HLEN, &out->q);
}
