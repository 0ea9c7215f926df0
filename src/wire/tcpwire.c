// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP/IP headers built and read (tcpwire.h).
 */
#include <errno.h>
#include <string.h>

#include "be.h"
#include "tcpwire.h"

/* pcap's link types (pcap/dlt.h), so that wire/ needs no libpcap. */
#define DLT_EN10MB_ 1
#define DLT_RAW_ 12		/* OpenBSD's value; Linux's pcap maps 14 here */
#define DLT_RAW_LINUX_ 14
#define DLT_LINUX_SLL_ 113
#define DLT_IPV4_ 228
#define DLT_IPV6_ 229
#define DLT_LINUX_SLL2_ 276

#define ETH_P_IP_ 0x0800
#define ETH_P_IPV6_ 0x86dd
#define ETH_P_8021Q_ 0x8100
#define ETH_P_8021AD_ 0x88a8
#define VLAN_MAX 4		/* tags read in one frame at most */

#define OPT_EOL 0
#define OPT_NOP 1
#define OPT_MSS 2
#define OPT_WSCALE 3
#define OPT_SACK_PERM 4
#define OPT_TS 8

/* Ones' complement sum of len bytes, folded in later. */
static uint32_t sum16(const uint8_t *p, size_t len, uint32_t acc)
{
	for (; len > 1; p += 2, len -= 2)
		acc += be_get16(p);
	if (len)
		acc += (uint32_t)p[0] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

size_t tcpwire_syn(uint8_t *buf, int family, const uint8_t *src, const uint8_t *dst,
		   uint16_t sport, uint16_t dport, uint32_t isn, uint16_t mss, uint32_t tsval)
{
	size_t alen = family == 6 ? 16 : 4;
	uint8_t *o = buf + 20;
	uint32_t acc;

	memset(buf, 0, TCPWIRE_SYN_LEN);
	be_put16(buf, sport);
	be_put16(buf + 2, dport);
	be_put32(buf + 4, isn);
	buf[12] = (TCPWIRE_SYN_LEN / 4) << 4;
	buf[13] = TCPWIRE_SYN;
	be_put16(buf + 14, 65535);
	/* as Linux orders them: MSS, SACK permitted, timestamps, NOP, wscale */
	o[0] = OPT_MSS, o[1] = 4;
	be_put16(o + 2, mss);
	o[4] = OPT_SACK_PERM, o[5] = 2;
	o[6] = OPT_TS, o[7] = 10;
	be_put32(o + 8, tsval);
	o[16] = OPT_NOP;
	o[17] = OPT_WSCALE, o[18] = 3, o[19] = 7;
	/* the pseudo-header: addresses, protocol, length */
	acc = sum16(src, alen, 0);
	acc = sum16(dst, alen, acc);
	acc += 6 + TCPWIRE_SYN_LEN;
	be_put16(buf + 16, fold(sum16(buf, TCPWIRE_SYN_LEN, acc)));
	return TCPWIRE_SYN_LEN;
}

/* The options of a header of hlen bytes, caplen of them captured. */
static void read_options(const uint8_t *p, size_t hlen, size_t caplen, struct tcpwire_seg *s)
{
	size_t end = hlen < caplen ? hlen : caplen, i = 20;

	s->cut = caplen < hlen;
	while (i < end) {
		uint8_t kind = p[i], len;

		if (kind == OPT_EOL)
			break;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= end)
			break;
		len = p[i + 1];
		if (len < 2 || i + len > end)
			break;
		if (kind == OPT_MSS && len == 4)
			s->mss = be_get16(p + i + 2);
		else if (kind == OPT_WSCALE && len == 3)
			s->wscale = (int8_t)(p[i + 2] > 14 ? 14 : p[i + 2]);
		else if (kind == OPT_TS && len == 10) {
			s->ts = true;
			s->tsval = be_get32(p + i + 2);
			s->tsecr = be_get32(p + i + 6);
		}
		i += len;
	}
}

int tcpwire_tcp(const uint8_t *p, size_t caplen, size_t seglen, struct tcpwire_seg *s)
{
	size_t hlen;

	if (caplen < 14)
		return -EINVAL;
	s->sport = be_get16(p);
	s->dport = be_get16(p + 2);
	s->seq = be_get32(p + 4);
	s->ack = be_get32(p + 8);
	s->flags = p[13] & 0x3f;
	s->wscale = -1;
	s->mss = 0;
	s->ts = false;
	s->cut = true;
	s->win = caplen >= 16 ? be_get16(p + 14) : 0;
	s->len = 0;
	hlen = (size_t)(p[12] >> 4) * 4;
	if (hlen < 20 || hlen > seglen)
		return -EINVAL;
	s->len = (uint32_t)(seglen - hlen);
	if (caplen >= 20)
		read_options(p, hlen, caplen, s);
	return 0;
}

static int ipv4(const uint8_t *p, size_t caplen, struct tcpwire_seg *s)
{
	size_t ihl, total;

	if (caplen < 20)
		return -EINVAL;
	ihl = (size_t)(p[0] & 0xf) * 4;
	total = be_get16(p + 2);
	if (ihl < 20 || total < ihl || caplen < ihl)
		return -EINVAL;
	if (p[9] != 6)
		return -ENOENT;
	if (be_get16(p + 6) & 0x1fff)
		return -ENOENT;	/* a fragment after the first: no TCP header */
	s->family = 4;
	memset(s->src, 0, sizeof(s->src));
	memset(s->dst, 0, sizeof(s->dst));
	memcpy(s->src, p + 12, 4);
	memcpy(s->dst, p + 16, 4);
	return tcpwire_tcp(p + ihl, caplen - ihl, total - ihl, s);
}

/* IPv6: the header's own next header only (a TCP segment behind
 * extension headers is not read: -ENOENT). */
static int ipv6(const uint8_t *p, size_t caplen, struct tcpwire_seg *s)
{
	if (caplen < 40)
		return -EINVAL;
	if (p[6] != 6)
		return -ENOENT;
	s->family = 6;
	memcpy(s->src, p + 8, 16);
	memcpy(s->dst, p + 24, 16);
	return tcpwire_tcp(p + 40, caplen - 40, be_get16(p + 4), s);
}

int tcpwire_ip(const uint8_t *p, size_t caplen, struct tcpwire_seg *s)
{
	if (caplen < 1)
		return -EINVAL;
	switch (p[0] >> 4) {
	case 4:
		return ipv4(p, caplen, s);
	case 6:
		return ipv6(p, caplen, s);
	}
	return -ENOENT;
}

bool tcpwire_link_ok(int dlt)
{
	return dlt == DLT_EN10MB_ || dlt == DLT_RAW_ || dlt == DLT_RAW_LINUX_ ||
	       dlt == DLT_IPV4_ || dlt == DLT_IPV6_ || dlt == DLT_LINUX_SLL_ ||
	       dlt == DLT_LINUX_SLL2_;
}

/* Ethernet: past its 802.1Q/802.1ad tags; the offset of the IP header,
 * or -ENOENT when it is not IP. */
static int ether(const uint8_t *p, size_t caplen, size_t *off)
{
	size_t o = 12;

	for (int tags = 0; tags <= VLAN_MAX; tags++) {
		uint16_t type;

		if (caplen < o + 2)
			return -EINVAL;
		type = be_get16(p + o);
		if (type == ETH_P_IP_ || type == ETH_P_IPV6_) {
			*off = o + 2;
			return 0;
		}
		if (type != ETH_P_8021Q_ && type != ETH_P_8021AD_)
			return -ENOENT;
		o += 4;
	}
	return -ENOENT;
}

int tcpwire_frame(const uint8_t *p, size_t caplen, int dlt, struct tcpwire_seg *s)
{
	size_t off = 0;
	int ret;

	switch (dlt) {
	case DLT_EN10MB_:
		ret = ether(p, caplen, &off);
		if (ret)
			return ret;
		break;
	case DLT_LINUX_SLL_:	/* 16 bytes, the protocol last */
	case DLT_LINUX_SLL2_:	/* 20 bytes, the protocol first */
		off = dlt == DLT_LINUX_SLL_ ? 16 : 20;
		if (caplen < off)
			return -EINVAL;
		ret = be_get16(p + (dlt == DLT_LINUX_SLL_ ? 14 : 0));
		if (ret != ETH_P_IP_ && ret != ETH_P_IPV6_)
			return -ENOENT;
		break;
	case DLT_RAW_:
	case DLT_RAW_LINUX_:
	case DLT_IPV4_:
	case DLT_IPV6_:
		break;
	default:
		return -ENOENT;
	}
	return tcpwire_ip(p + off, caplen - off, s);
}
