/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/pktparse.h: frames of every link type rant reads into their
 * TCP segment; what is not TCP, a fragment, a header that lies, and
 * every cut of a frame (snaplen) told apart, never read past; what a raw
 * socket reads (an IP packet, a TCP header alone) likewise; the steps
 * down to any transport header (pktparse_l4(): UDP's for --pcap).
 */
#include <stdlib.h>

#include "pktbuild.h"
#include "pktparse.h"
#include "tap.h"

static uint8_t frame[4096];

static const struct pb_seg base4 = {
	.src = "10.0.0.1", .dst = "10.0.0.2", .sport = 40000, .dport = 80,
	.seq = 1000, .ack = 2000, .flags = PB_ACK | PB_PSH, .win = 502, .len = 100,
	.ts = true, .tsval = 77, .tsecr = 66,
};

static const struct pb_seg base6 = {
	.v6 = true, .src = "fd00::1", .dst = "fd00::2", .sport = 40000, .dport = 80,
	.seq = 1000, .ack = 2000, .flags = PB_ACK, .win = 502, .len = 10,
	.ts = true, .tsval = 77, .tsecr = 66,
};

/* s in dlt parses back to itself. */
static void roundtrip(int dlt, const struct pb_seg *s, const char *what)
{
	size_t n = pb_frame(frame, dlt, s);
	struct pkt_tcp pk;
	enum pkt_verdict v = pktparse(dlt, frame, (uint32_t)n, (uint32_t)n, 123, &pk);
	uint8_t a[16] = { 0 };

	if (!is_int(v, PKT_TCP, "%s: TCP", what))
		return;
	is_int(pk.family, s->v6 ? 6 : 4, "%s: family", what);
	inet_pton(s->v6 ? AF_INET6 : AF_INET, s->src, a);
	ok(!memcmp(pk.src, a, 16), "%s: source address", what);
	is_int(pk.sport, s->sport, "%s: source port", what);
	is_int(pk.dport, s->dport, "%s: destination port", what);
	is_u64(pk.seg.seq, s->seq, "%s: seq", what);
	is_u64(pk.seg.ack, s->ack, "%s: ack", what);
	is_u64(pk.seg.len, s->len, "%s: payload length", what);
	is_u64(pk.seg.win, s->win, "%s: window as sent", what);
	is_int(pk.seg.t_ns, 123, "%s: stamp", what);
	is_int(pk.seg.flags & ~TCPSEG_F_TS, TCPSEG_F_ACK | (s->flags & PB_PSH ? TCPSEG_F_PSH : 0),
	       "%s: flags", what);
	ok((pk.seg.flags & TCPSEG_F_TS) && pk.seg.tsval == 77 && pk.seg.tsecr == 66,
	   "%s: timestamps", what);
	ok(!pk.noflags, "%s: whole", what);
}

static void test_links(void)
{
	struct pb_seg s = base4;

	roundtrip(DLT_EN10MB, &s, "Ethernet IPv4");
	roundtrip(DLT_LINUX_SLL, &s, "SLL IPv4");
	roundtrip(DLT_LINUX_SLL2, &s, "SLL2 IPv4");
	roundtrip(DLT_RAW, &s, "raw IPv4");
	roundtrip(DLT_IPV4, &s, "DLT_IPV4");
	s.vlans = 1;
	roundtrip(DLT_EN10MB, &s, "Ethernet 802.1Q");
	s.vlans = 2;
	roundtrip(DLT_EN10MB, &s, "Ethernet 802.1ad + 802.1Q");
	s = base6;
	roundtrip(DLT_EN10MB, &s, "Ethernet IPv6");
	roundtrip(DLT_LINUX_SLL2, &s, "SLL2 IPv6");
	roundtrip(DLT_IPV6, &s, "DLT_IPV6");
	s.ext = 1;
	roundtrip(DLT_EN10MB, &s, "IPv6 hop-by-hop");
	s.ext = 2;
	roundtrip(DLT_EN10MB, &s, "IPv6 hop-by-hop, destination options");
	ok(pktparse_link_ok(DLT_EN10MB) && pktparse_link_ok(DLT_LINUX_SLL2) &&
	   !pktparse_link_ok(DLT_NULL) && !pktparse_link_ok(DLT_IEEE802_11),
	   "link types read: Ethernet, SLL2; not BSD loopback, 802.11");
}

static void test_options(void)
{
	struct pb_seg s = base4;
	struct pkt_tcp pk;
	size_t n;

	s.flags = PB_SYN;
	s.len = 0;
	s.has_wscale = true;
	s.wscale = 7;
	s.mss = 1460;
	n = pb_frame(frame, DLT_EN10MB, &s);
	pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk);
	ok(pk.seg.flags & TCPSEG_F_SYN && !(pk.seg.flags & TCPSEG_F_ACK), "SYN");
	is_int(pk.wscale, 7, "window scale option");
	is_int(pk.seg.mss, 1460, "MSS option");
	is_u64(pk.seg.ack, 0, "no ACK flag: ack 0");
	s.wscale = 200;
	n = pb_frame(frame, DLT_EN10MB, &s);
	pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk);
	is_int(pk.wscale, 14, "window scale above 14 taken as 14 (RFC 7323)");
	s = base4;
	s.ts = false;
	n = pb_frame(frame, DLT_EN10MB, &s);
	pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk);
	ok(!(pk.seg.flags & TCPSEG_F_TS) && pk.wscale == -1 && !pk.seg.mss,
	   "no options: no timestamps, no scale, no MSS");
	/* an option whose length runs past the header: the rest not read */
	n = pb_frame(frame, DLT_EN10MB, &base4);
	frame[14 + 20 + 20 + 3] = 40;
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_TCP,
	       "a timestamps option 40 bytes long: still the segment");
	ok(!(pk.seg.flags & TCPSEG_F_TS), "... without the timestamps");
}

static void test_others(void)
{
	struct pb_seg s = base4;
	struct pkt_tcp pk;
	size_t n;

	s.proto = 17;
	n = pb_frame(frame, DLT_EN10MB, &s);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_NOT_TCP, "UDP");
	s = base6;
	s.proto = 58;
	s.ext = 1;
	n = pb_frame(frame, DLT_EN10MB, &s);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_NOT_TCP,
	       "ICMPv6 after a hop-by-hop header");
	s = base4;
	s.frag = true;
	n = pb_frame(frame, DLT_EN10MB, &s);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_FRAGMENT,
	       "an IPv4 fragment");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	pb_put16(frame + 12, 0x0806);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_NOT_IP, "ARP");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	frame[14] = 0x43;	/* IHL 3 */
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_BAD,
	       "an IPv4 header of 12 bytes");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	frame[14 + 20 + 12] = 0x10;	/* data offset 4 bytes */
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_BAD,
	       "a TCP data offset under 20");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	pb_put16(frame + 16, 30);	/* total length shorter than the headers */
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_BAD,
	       "an IP total length shorter than the TCP header");
	/* a TSO segment captured on its way out: total length 0 */
	n = pb_frame(frame, DLT_EN10MB, &base4);
	pb_put16(frame + 16, 0);
	is_int(pktparse(DLT_EN10MB, frame, 128, 14 + 20 + 32 + 30000, 1, &pk), PKT_TCP,
	       "IPv4 total length 0 (TSO)");
	is_u64(pk.seg.len, 30000, "... its payload from the wire length");
}

/* The steps down to the transport header, any protocol: where the IP
 * header, the transport header and the IP payload's end lie. */
static void test_l4(void)
{
	struct pb_seg s = base4;
	struct pkt_l4 l4;
	size_t n;

	s.proto = 17;
	s.vlans = 2;
	n = pb_frame(frame, DLT_EN10MB, &s);
	is_int(pktparse_l4(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, &l4), PKT_NOT_TCP,
	       "UDP behind two VLAN tags: not TCP");
	ok(l4.family == 4 && l4.proto == 17 && l4.frag == PKT_WHOLE, "... IPv4, UDP, whole");
	ok(l4.ip_off == 22 && l4.off == 42 && l4.end == n, "... IP at 22, UDP at 42, to the end");
	s.frag = true;
	n = pb_frame(frame, DLT_EN10MB, &s);
	pktparse_l4(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, &l4);
	is_int(l4.frag, PKT_FRAG_FIRST, "more fragments, offset 0: the first");
	pb_put16(frame + 22 + 6, 8);
	pktparse_l4(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, &l4);
	is_int(l4.frag, PKT_FRAG_LATER, "an offset: a later fragment");
	s = base6;
	s.proto = 17;
	s.ext = 2;
	n = pb_frame(frame, DLT_LINUX_SLL2, &s);
	is_int(pktparse_l4(DLT_LINUX_SLL2, frame, (uint32_t)n, (uint32_t)n, &l4), PKT_NOT_TCP,
	       "SLL2 IPv6, two extension headers, UDP: not TCP");
	ok(l4.family == 6 && l4.proto == 17 && l4.ip_off == 20 && l4.off == 20 + 40 + 16 &&
	   l4.end == n, "... UDP after the extension headers, to the end");
	n = pb_frame(frame, DLT_RAW, &base6);
	is_int(pktparse_l4(DLT_RAW, frame, (uint32_t)n, (uint32_t)n, &l4), PKT_TCP, "raw IPv6 TCP");
	ok(l4.proto == 6 && l4.ip_off == 0 && l4.off == 40, "... TCP at 40");
	frame[6] = 44;
	is_int(pktparse_l4(DLT_RAW, frame, (uint32_t)n, (uint32_t)n, &l4), PKT_FRAGMENT,
	       "an IPv6 fragment header");
}

/* snaplen 64 on Ethernet: IPv4's options cut (flags read); IPv6's flags
 * cut (the flow only). */
static void test_snaplen(void)
{
	struct pkt_tcp pk;
	size_t n = pb_frame(frame, DLT_EN10MB, &base4);

	is_int(pktparse(DLT_EN10MB, frame, 64, (uint32_t)n, 1, &pk), PKT_TCP, "IPv4 at 64 bytes");
	ok(pk.seg.flags & TCPSEG_F_CUT, "... marked cut (its options)");
	ok(!pk.noflags && (pk.seg.flags & TCPSEG_F_ACK), "... its flags read");
	is_u64(pk.seg.len, 100, "... its payload length from the IP header");
	n = pb_frame(frame, DLT_EN10MB, &base6);
	is_int(pktparse(DLT_EN10MB, frame, 64, (uint32_t)n, 1, &pk), PKT_TCP, "IPv6 at 64 bytes");
	ok(pk.noflags && pk.sport == 40000 && pk.dport == 80, "... the ports only: unreadable");
	is_int(pktparse(DLT_EN10MB, frame, 40, (uint32_t)n, 1, &pk), PKT_CUT,
	       "IPv6 at 40 bytes: cut before the ports");
}

/* What --syn's raw socket reads: an IPv4 packet, an IPv6 socket's TCP
 * header alone. */
static void test_raw_socket(void)
{
	struct pb_seg s = base4;
	struct pkt_tcp pk;
	size_t n = pb_frame(frame, DLT_RAW, &s);

	is_int(pktparse_ip(frame, (uint32_t)n, 9, &pk), PKT_TCP, "an IPv4 packet");
	ok(pk.family == 4 && pk.sport == 40000 && pk.dport == 80 && pk.seg.seq == 1000 &&
	   pk.seg.ack == 2000 && pk.seg.len == 100 && pk.seg.t_ns == 9, "... its segment");
	is_int(pktparse_ip(frame, 30, 9, &pk), PKT_TCP, "an IPv4 packet cut before the flags");
	ok(pk.noflags, "... unreadable");
	is_int(pktparse_ip(frame, 10, 9, &pk), PKT_CUT, "cut inside the IP header");
	pb_put16(frame + 6, 8);		/* fragment offset 64 bytes */
	is_int(pktparse_ip(frame, (uint32_t)n, 9, &pk), PKT_FRAGMENT, "a fragment after the first");
	n = pb_frame(frame, DLT_RAW, &s) - 20;
	is_int(pktparse_tcp(frame + 20, (uint32_t)n, 9, &pk), PKT_TCP, "a TCP header alone");
	ok(pk.family == 0 && pk.sport == 40000 && pk.seg.len == 100 &&
	   (pk.seg.flags & TCPSEG_F_TS) && pk.seg.tsval == 77, "... its segment, no addresses");
	is_int(pktparse_tcp(frame + 20, 3, 9, &pk), PKT_CUT, "... cut before the ports");
	is_int(pktparse_tcp(frame + 20, 24, 9, &pk), PKT_BAD, "... longer than the segment");
}

/* Every prefix of every kind of frame: a verdict, no read past it (ASan). */
static void test_every_cut(void)
{
	static const int dlts[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW };
	struct pb_seg s[4] = { base4, base6, base4, base6 };
	int bad = 0, tried = 0;

	s[2].vlans = 2;
	s[3].ext = 2;
	for (size_t d = 0; d < sizeof(dlts) / sizeof(dlts[0]); d++) {
		for (size_t k = 0; k < 4; k++) {
			size_t n = pb_frame(frame, dlts[d], &s[k]);

			for (size_t cut = 0; cut <= n; cut++) {
				uint8_t *copy = malloc(cut ? cut : 1);
				struct pkt_tcp pk;
				enum pkt_verdict v;

				memcpy(copy, frame, cut);
				v = pktparse(dlts[d], copy, (uint32_t)cut, (uint32_t)n, 1, &pk);
				tried++;
				if (v != PKT_TCP && v != PKT_CUT && v != PKT_BAD)
					bad++;
				if (cut == n && v != PKT_TCP)
					bad++;
				free(copy);
			}
		}
	}
	is_int(bad, 0, "%d cuts: each TCP, cut or bad, the whole frame TCP", tried);
}

/* An Ethernet and IPv4 header of protocol proto around payload bytes at
 * p: its length (34). */
static size_t outer4(uint8_t *p, uint8_t proto, size_t payload)
{
	size_t n = pb_link(p, DLT_EN10MB, 0x0800, 0);

	memset(p + n, 0, 20);
	p[n] = 0x45;
	pb_put16(p + n + 2, (uint16_t)(20 + payload));
	p[n + 8] = 64;
	p[n + 9] = proto;
	inet_pton(AF_INET, "192.0.2.1", p + n + 12);
	inet_pton(AF_INET, "192.0.2.2", p + n + 16);
	return n + 20;
}

/* hdr (hl bytes) then s as a raw IP packet (or, eth, behind an Ethernet
 * header) inside an IPv4 packet of protocol proto: the frame's length. */
static size_t tunnel(uint8_t proto, const uint8_t *hdr, size_t hl, bool eth,
		     const struct pb_seg *s)
{
	static uint8_t in[2048];
	size_t n = pb_frame(in, eth ? DLT_EN10MB : DLT_RAW, s);
	size_t o = outer4(frame, proto, hl + n);

	if (hl)
		memcpy(frame + o, hdr, hl);
	memcpy(frame + o + hl, in, n);
	return o + hl + n;
}

/* The inner segment of a tunnel read as tshark reads it. */
static void inner_is(size_t n, const struct pb_seg *s, const char *what)
{
	struct pkt_tcp pk;
	uint8_t a[16] = { 0 };

	if (!is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_TCP,
		    "%s: TCP", what))
		return;
	inet_pton(s->v6 ? AF_INET6 : AF_INET, s->src, a);
	ok(pk.family == (s->v6 ? 6 : 4) && !memcmp(pk.src, a, 16), "%s: the inner addresses", what);
	ok(pk.sport == s->sport && pk.seg.seq == s->seq && pk.seg.len == s->len,
	   "%s: ports, seq, payload (%u)", what, pk.seg.len);
	ok(pk.tunnels == 1 && !pk.clamped, "%s: one tunnel, nothing clamped", what);
}

static void test_tunnels(void)
{
	static const uint8_t gre_ks[] = { 0x30, 0x00, 0x08, 0x00, 0, 0, 0, 7, 0, 0, 0, 1 };
	static const uint8_t gre_teb[] = { 0x00, 0x00, 0x65, 0x58 };
	static const uint8_t gre_route[] = { 0x40, 0x00, 0x08, 0x00, 0, 0, 0, 0,
					     0, 1, 0, 4, 10, 0, 0, 9, 0, 0, 0, 0 };
	static const uint8_t gre_pptp[] = { 0x30, 0x01, 0x88, 0x0b, 0, 0, 0, 7, 0, 0, 0, 1 };
	static const uint8_t gre_mpls[] = { 0x00, 0x00, 0x88, 0x47 };
	static const uint8_t vxlan[] = { 0x9c, 0x40, 0x12, 0xb5, 0, 0, 0, 0,
					 0x08, 0, 0, 0, 0, 0, 42, 0 };
	struct pkt_tcp pk;
	uint8_t deep[2048];
	size_t n;

	inner_is(tunnel(4, NULL, 0, false, &base4), &base4, "IPIP");
	inner_is(tunnel(41, NULL, 0, false, &base6), &base6, "6in4");
	inner_is(tunnel(47, gre_ks, sizeof(gre_ks), false, &base4), &base4, "GRE, key and seq");
	inner_is(tunnel(47, gre_teb, sizeof(gre_teb), true, &base6), &base6, "GRE, Ethernet");
	inner_is(tunnel(17, vxlan, sizeof(vxlan), true, &base4), &base4, "VXLAN");
	inner_is(tunnel(47, gre_route, sizeof(gre_route), false, &base4), &base4,
		 "GRE with routing (RFC 1701)");
	n = tunnel(47, gre_pptp, sizeof(gre_pptp), false, &base4);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_TUNNEL,
	       "PPTP's GRE (version 1): a tunnel not read");
	n = tunnel(47, gre_mpls, sizeof(gre_mpls), false, &base4);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk), PKT_TUNNEL,
	       "GRE of MPLS: a tunnel not read");
	n = tunnel(4, NULL, 0, false, &base4);
	pb_put16(frame + 14 + 20 + 2, 1500);	/* the inner length past the outer packet */
	ok(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk) == PKT_TCP &&
	   pk.clamped && pk.seg.len == base4.len, "IPIP: an inner length past the outer cut to it");
	/* 17 IPIP headers deep: past TUNNEL_MAX */
	n = pb_frame(deep, DLT_RAW, &base4);
	for (int i = 0; i < 17; i++) {
		memmove(deep + 20, deep, n);
		memcpy(deep, frame + 14, 20);
		pb_put16(deep + 2, (uint16_t)(20 + n));
		n += 20;
	}
	memcpy(frame + 14, deep, n);
	pb_put16(frame + 12, 0x0800);
	is_int(pktparse(DLT_EN10MB, frame, (uint32_t)n + 14, (uint32_t)n + 14, 1, &pk), PKT_TUNNEL,
	       "17 tunnels deep: not read, named");
}

/* What tshark reads and a short bound would not: 9 VLAN tags, 10 IPv6
 * extension headers; an IP length past the frame cut to it. */
static void test_long_chains(void)
{
	struct pb_seg s = base4;
	struct pkt_tcp pk;
	size_t n;

	s.vlans = 9;
	roundtrip(DLT_EN10MB, &s, "9 VLAN tags");
	s = base6;
	s.ext = 10;
	roundtrip(DLT_EN10MB, &s, "10 IPv6 extension headers");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	pb_put16(frame + 16, 65535);
	ok(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk) == PKT_TCP && pk.clamped &&
	   pk.seg.len == base4.len, "IPv4 total length 65535 in a short frame: cut to the frame (%u)",
	   pk.seg.len);
	pktparse(DLT_EN10MB, frame, 60, (uint32_t)n, 1, &pk);
	ok(pk.clamped && pk.seg.len == base4.len, "... captured cut at 60: the wire length bounds it");
	n = pb_frame(frame, DLT_EN10MB, &base6);
	pb_put16(frame + 18, 65535);
	ok(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, 1, &pk) == PKT_TCP && pk.clamped &&
	   pk.seg.len == base6.len, "IPv6 payload length 65535 in a short frame: cut to the frame");
	n = pb_frame(frame, DLT_EN10MB, &base4);
	ok(pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n + 4, 1, &pk) == PKT_TCP &&
	   !pk.clamped, "a frame longer than its IP packet (padding, FCS): nothing clamped");
}

int main(void)
{
	test_links();
	test_options();
	test_others();
	test_l4();
	test_snaplen();
	test_raw_socket();
	test_every_cut();
	test_tunnels();
	test_long_chains();
	is_str(pktparse_verdict_name(PKT_TUNNEL), "tunnel", "the tunnel verdict's name");
	is_str(pktparse_verdict_name(PKT_NOT_TCP), "not_tcp", "verdict names");
	return done_testing();
}
