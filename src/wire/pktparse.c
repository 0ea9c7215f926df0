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
#define VLAN_MAX_TAGS 8
#define IP4_HLEN 20
#define IP6_HLEN 40
#define TCP_HLEN 20
#define IPPROTO_TCP_ 6
#define IPPROTO_ICMP_ 1
#define IPPROTO_ICMPV6_ 58
#define ICMP_HLEN 8		/* type, code, checksum, 4 bytes more */
#define QUOTE_L4 8		/* the quoted transport bytes read */

/* IPv6 next headers walked over, and where the walk stops. */
#define NH_HOPOPTS 0
#define NH_ROUTING 43
#define NH_FRAGMENT 44
#define NH_AH 51
#define NH_DSTOPTS 60
#define NH_WALK_MAX 8

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
		"tcp", "not_ip", "not_tcp", "fragment", "cut", "bad",
	};

	return v < PKT_VERDICTS ? names[v] : "?";
}

/* Ethertype type read just before p[off], and the VLAN tags from there
 * on: where IP starts. false when the frame ends first. */
static bool tags(const uint8_t *p, uint32_t caplen, uint16_t type, uint32_t off,
		 struct ip_at *at)
{
	for (int i = 0; i < VLAN_MAX_TAGS && (type == ETHERTYPE_VLAN ||
	     type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD); i++) {
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

/* IPv4 at p[off]: its transport header, however many fragments. */
static enum pkt_verdict ipv4(const uint8_t *p, uint32_t caplen, uint32_t wirelen, uint32_t off,
			     struct pkt_l4 *l4)
{
	const uint8_t *h = p + off;
	uint32_t ihl, tot;
	uint16_t frag;

	if (off + IP4_HLEN > caplen)
		return PKT_CUT;
	if (h[0] >> 4 != 4)
		return PKT_BAD;
	ihl = (uint32_t)(h[0] & 0xf) * 4;
	tot = be_get16(h + 2);
	if (ihl < IP4_HLEN)
		return PKT_BAD;
	if (!tot && wirelen > off)	/* a TSO segment captured on its way out */
		tot = wirelen - off;
	if (tot < ihl)
		return PKT_BAD;
	frag = be_get16(h + 6);
	*l4 = (struct pkt_l4){
		.family = 4, .proto = h[9], .ip_off = off, .off = off + ihl, .end = off + tot,
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
 * (NH_WALK_MAX of them at most). */
static enum pkt_verdict ipv6(const uint8_t *p, uint32_t caplen, uint32_t wirelen, uint32_t off,
			     struct pkt_l4 *l4)
{
	const uint8_t *h = p + off;
	uint32_t plen, at = off + IP6_HLEN, len;
	uint8_t nh;

	if (off + IP6_HLEN > caplen)
		return PKT_CUT;
	if (h[0] >> 4 != 6)
		return PKT_BAD;
	plen = be_get16(h + 4);
	if (!plen && wirelen > at)	/* a jumbogram, or a GSO segment */
		plen = wirelen - at;
	nh = h[6];
	for (int i = 0; i < NH_WALK_MAX && ext_header(nh); i++) {
		if (nh == NH_FRAGMENT)
			return PKT_FRAGMENT;
		if (at + 2 > caplen)
			return PKT_CUT;
		len = nh == NH_AH ? ((uint32_t)p[at + 1] + 2) * 4 : ((uint32_t)p[at + 1] + 1) * 8;
		nh = p[at];
		at += len;
	}
	*l4 = (struct pkt_l4){ .family = 6, .proto = nh, .frag = PKT_WHOLE, .ip_off = off,
			       .off = at, .end = off + IP6_HLEN + plen };
	return nh == IPPROTO_TCP_ ? PKT_TCP : PKT_NOT_TCP;
}

enum pkt_verdict pktparse_l4(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
			     struct pkt_l4 *l4)
{
	struct ip_at at;

	if (wirelen < caplen)
		wirelen = caplen;
	if (!link_header(dlt, p, caplen, &at))
		return caplen ? PKT_CUT : PKT_BAD;
	if (at.type == ETHERTYPE_IPV4)
		return ipv4(p, caplen, wirelen, at.off, l4);
	if (at.type == ETHERTYPE_IPV6)
		return ipv6(p, caplen, wirelen, at.off, l4);
	return PKT_NOT_IP;
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
	struct pkt_l4 l4;
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
	struct pkt_l4 l4;

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
