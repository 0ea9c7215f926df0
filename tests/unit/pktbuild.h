/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP frames and pcap files built by hand, for the capture reader's unit
 * tests (test_pktparse.c, test_flowtab.c, test_watch.c): one segment
 * (struct pb_seg) into a frame of any link type pktparse.h reads, with
 * VLAN tags, IPv6 extension headers and the options rant reads; frames
 * into a pcap file with microsecond or nanosecond stamps. Header only.
 */
#ifndef RANT_PKTBUILD_H
#define RANT_PKTBUILD_H

#include <arpa/inet.h>
#include <pcap/dlt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PB_FIN 0x01
#define PB_SYN 0x02
#define PB_RST 0x04
#define PB_PSH 0x08
#define PB_ACK 0x10

struct pb_seg {
	bool v6;
	const char *src, *dst;		/* numeric addresses */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;			/* PB_* */
	uint16_t win;
	uint32_t len;			/* payload bytes (zeros) */
	bool ts;			/* the timestamps option */
	uint32_t tsval, tsecr;
	int wscale;			/* the window scale option, or -1 (0: none
					 * given: written as -1) */
	bool has_wscale;
	uint16_t mss;			/* the MSS option, 0: none */
	int vlans;			/* Ethernet: 802.1Q tags (the first 802.1ad) */
	int ext;			/* IPv6: hop-by-hop and destination options
					 * headers before TCP (0, 1 or 2) */
	bool frag;			/* IPv4: a fragment (MF set) */
	uint8_t proto;			/* 0: TCP; else another protocol number */
};

static inline void pb_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pb_put32(uint8_t *p, uint32_t v)
{
	pb_put16(p, (uint16_t)(v >> 16));
	pb_put16(p + 2, (uint16_t)v);
}

/* The link header for dlt and an ethertype: its length. */
static inline size_t pb_link(uint8_t *p, int dlt, uint16_t type, int vlans)
{
	size_t n = 0;

	switch (dlt) {
	case DLT_EN10MB:
		memset(p, 0, 12);
		p[5] = 1;
		p[11] = 2;
		n = 12;
		for (int i = 0; i < vlans; i++) {
			pb_put16(p + n, i == 0 && vlans > 1 ? 0x88a8 : 0x8100);
			pb_put16(p + n + 2, (uint16_t)(100 + i));
			n += 4;
		}
		pb_put16(p + n, type);
		return n + 2;
	case DLT_LINUX_SLL:
		memset(p, 0, 16);
		pb_put16(p + 2, 1);	/* ARPHRD_ETHER */
		pb_put16(p + 4, 6);
		pb_put16(p + 14, type);
		return 16;
	case DLT_LINUX_SLL2:
		memset(p, 0, 20);
		pb_put16(p, type);
		pb_put32(p + 4, 2);	/* ifindex */
		pb_put16(p + 8, 1);
		p[11] = 6;
		return 20;
	default:			/* raw IP */
		return 0;
	}
}

/* The frame of s in link type dlt into p (at least 256 + s->len bytes):
 * its length. */
static inline size_t pb_frame(uint8_t *p, int dlt, const struct pb_seg *s)
{
	size_t l = pb_link(p, dlt, s->v6 ? 0x86dd : 0x0800, s->vlans), ip = l, t, opt = 0;
	size_t iph = s->v6 ? 40 + 8 * (size_t)s->ext : 20;
	uint8_t *o;

	t = ip + iph;
	o = p + t + 20;
	if (s->mss) {
		o[opt++] = 2;
		o[opt++] = 4;
		pb_put16(o + opt, s->mss);
		opt += 2;
	}
	if (s->has_wscale && s->wscale >= 0) {
		o[opt++] = 1;
		o[opt++] = 3;
		o[opt++] = 3;
		o[opt++] = (uint8_t)s->wscale;
	}
	if (s->ts) {
		o[opt++] = 1;
		o[opt++] = 1;
		o[opt++] = 8;
		o[opt++] = 10;
		pb_put32(o + opt, s->tsval);
		pb_put32(o + opt + 4, s->tsecr);
		opt += 8;
	}
	memset(p + ip, 0, iph + 20);
	if (s->v6) {
		uint8_t nh = s->proto ? s->proto : 6;

		p[ip] = 0x60;
		pb_put16(p + ip + 4, (uint16_t)(iph - 40 + 20 + opt + s->len));
		p[ip + 6] = s->ext ? 0 : nh;	/* hop-by-hop first */
		p[ip + 7] = 64;
		inet_pton(AF_INET6, s->src, p + ip + 8);
		inet_pton(AF_INET6, s->dst, p + ip + 24);
		for (int i = 0; i < s->ext; i++) {
			uint8_t *e = p + ip + 40 + 8 * i;

			memset(e, 0, 8);
			e[0] = i + 1 < s->ext ? 60 : nh;	/* then destination options */
			e[1] = 0;				/* 8 bytes */
			e[2] = 1;				/* PadN */
			e[3] = 4;
		}
	} else {
		p[ip] = 0x45;
		pb_put16(p + ip + 2, (uint16_t)(20 + 20 + opt + s->len));
		if (s->frag)
			pb_put16(p + ip + 6, 0x2000);
		p[ip + 8] = 64;
		p[ip + 9] = s->proto ? s->proto : 6;
		inet_pton(AF_INET, s->src, p + ip + 12);
		inet_pton(AF_INET, s->dst, p + ip + 16);
	}
	pb_put16(p + t, s->sport);
	pb_put16(p + t + 2, s->dport);
	pb_put32(p + t + 4, s->seq);
	pb_put32(p + t + 8, s->ack);
	p[t + 12] = (uint8_t)((20 + opt) / 4 << 4);
	p[t + 13] = s->flags;
	pb_put16(p + t + 14, s->win);
	pb_put32(p + t + 16, 0);
	memset(p + t + 20 + opt, 0, s->len);
	return t + 20 + opt + s->len;
}

static inline void pb_put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void pb_pcap_header(FILE *f, int linktype, bool nano, uint32_t snaplen)
{
	uint8_t h[24] = { 0 };

	pb_put32le(h, nano ? 0xa1b23c4du : 0xa1b2c3d4u);
	h[4] = 2;
	h[6] = 4;
	pb_put32le(h + 16, snaplen);
	pb_put32le(h + 20, (uint32_t)linktype);
	fwrite(h, 1, sizeof(h), f);
}

/* Frame p of len bytes at t_ns, cut at snaplen. */
static inline void pb_pcap_packet(FILE *f, int64_t t_ns, const uint8_t *p, uint32_t len,
				  uint32_t snaplen, bool nano)
{
	uint32_t cap = len < snaplen ? len : snaplen;
	uint8_t h[16];

	pb_put32le(h, (uint32_t)(t_ns / 1000000000));
	pb_put32le(h + 4, (uint32_t)(nano ? t_ns % 1000000000 : t_ns % 1000000000 / 1000));
	pb_put32le(h + 8, cap);
	pb_put32le(h + 12, len);
	fwrite(h, 1, sizeof(h), f);
	fwrite(p, 1, cap, f);
}

#endif
