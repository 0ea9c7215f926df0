/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/tcpwire.h: the SYN --syn sends (its checksum right by RFC
 * 1071's sum, computed here apart, over IPv4's and IPv6's
 * pseudo-headers; its options read back), and segments read from IP
 * packets and captured frames (Ethernet, VLAN tags, Linux cooked SLL and
 * SLL2, raw IP), bounded by what was captured.
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "tcpwire.h"

static const uint8_t a4[4] = { 10, 77, 0, 1 }, b4[4] = { 10, 77, 0, 2 };
static const uint8_t a6[16] = { 0xfd, 0x77, [15] = 1 }, b6[16] = { 0xfd, 0x77, [15] = 2 };

/* RFC 1071, written out apart from tcpwire.c's: the sum of the
 * pseudo-header and the segment, 0xffff when the checksum is right. */
static unsigned int rfc1071(const uint8_t *src, const uint8_t *dst, size_t alen,
			    const uint8_t *seg, size_t len)
{
	unsigned long sum = 6 + len;

	for (size_t i = 0; i < alen; i += 2) {
		sum += (unsigned long)(src[i] << 8 | src[i + 1]);
		sum += (unsigned long)(dst[i] << 8 | dst[i + 1]);
	}
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (unsigned long)(seg[i] << 8 | seg[i + 1]);
	if (len & 1)
		sum += (unsigned long)seg[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (unsigned int)sum;
}

static void test_syn(void)
{
	uint8_t p[TCPWIRE_SYN_LEN];
	struct tcpwire_seg s;

	is_int((int)tcpwire_syn(p, 4, a4, b4, 40000, 80, 0x01020304, 1460, 77), TCPWIRE_SYN_LEN,
	       "a SYN of 40 bytes");
	is_int((int)rfc1071(a4, b4, 4, p, sizeof(p)), 0xffff, "IPv4: its checksum is right");
	ok(!tcpwire_tcp(p, sizeof(p), sizeof(p), &s), "read back");
	ok(s.sport == 40000 && s.dport == 80 && s.seq == 0x01020304 && s.flags == TCPWIRE_SYN,
	   "ports, seq, flags");
	ok(s.mss == 1460 && s.wscale == 7 && s.ts && s.tsval == 77 && s.tsecr == 0 && !s.cut,
	   "its options: MSS 1460, window scale 7, timestamps");
	ok(s.len == 0, "no payload");
	tcpwire_syn(p, 6, a6, b6, 1, 65535, 0xffffffff, 1440, 0);
	is_int((int)rfc1071(a6, b6, 16, p, sizeof(p)), 0xffff, "IPv6: its checksum is right");
	p[20] ^= 1;
	ok(rfc1071(a6, b6, 16, p, sizeof(p)) != 0xffff, "(the check catches a flipped bit)");
}

/* An IPv4 packet of a TCP segment with NOP NOP TS options and payload
 * bytes of payload (not all of it captured). */
static size_t ipv4_packet(uint8_t *p, uint16_t payload, uint8_t flags)
{
	memset(p, 0, 52);
	p[0] = 0x45;
	p[2] = (uint8_t)((52 + payload) >> 8), p[3] = (uint8_t)(52 + payload);
	p[8] = 64, p[9] = 6;
	memcpy(p + 12, b4, 4);
	memcpy(p + 16, a4, 4);
	p[20] = 0x1f, p[21] = 0x90;		/* 8080 */
	p[22] = 0x9c, p[23] = 0x40;		/* 40000 */
	p[24] = 0, p[25] = 0, p[26] = 1, p[27] = 0;	/* seq 256 */
	p[31] = 9;				/* ack 9 */
	p[32] = 8 << 4, p[33] = flags;
	p[34] = 0x01, p[35] = 0xf6;		/* window 502 */
	p[40] = 1, p[41] = 1, p[42] = 8, p[43] = 10;
	p[44] = 0, p[45] = 0, p[46] = 0, p[47] = 5;	/* tsval 5 */
	p[51] = 6;					/* tsecr 6 */
	return 52;
}

static void test_ip(void)
{
	uint8_t p[128];
	struct tcpwire_seg s;
	size_t n = ipv4_packet(p, 600, TCPWIRE_ACK | TCPWIRE_PSH);

	ok(!tcpwire_ip(p, n, &s), "IPv4: read");
	ok(s.family == 4 && !memcmp(s.src, b4, 4) && !memcmp(s.dst, a4, 4), "addresses");
	ok(s.sport == 8080 && s.dport == 40000 && s.seq == 256 && s.ack == 9, "ports, seq, ack");
	ok(s.flags == (TCPWIRE_ACK | TCPWIRE_PSH) && s.win == 502, "flags, window");
	ok(s.ts && s.tsval == 5 && s.tsecr == 6 && s.wscale == -1 && !s.cut, "timestamps");
	is_int((int)s.len, 600, "the payload's length from the IP header, none captured");
	ok(!tcpwire_ip(p, 42, &s) && s.cut && !s.ts, "options cut: the header read, cut said");
	is_int(tcpwire_ip(p, 30, &s), -EINVAL, "cut before the flags: -EINVAL");
	is_int(tcpwire_ip(p, 10, &s), -EINVAL, "cut inside the IP header: -EINVAL");
	p[9] = 17;
	is_int(tcpwire_ip(p, n, &s), -ENOENT, "UDP: -ENOENT");
	p[9] = 6, p[7] = 8;
	is_int(tcpwire_ip(p, n, &s), -ENOENT, "a fragment after the first: -ENOENT");
	p[7] = 0, p[32] = 15 << 4;
	is_int(tcpwire_ip(p, n, &s), 0, "a header longer than captured: read, cut");
	ok(s.cut, "... cut");
	p[2] = 0, p[3] = 40;
	is_int(tcpwire_ip(p, n, &s), -EINVAL, "a header longer than the segment: -EINVAL");
	p[0] = 0x43;
	is_int(tcpwire_ip(p, n, &s), -EINVAL, "an IP header of 12 bytes: -EINVAL");
}

/* An IPv6 packet carrying the SYN. */
static void test_ipv6(void)
{
	uint8_t p[40 + TCPWIRE_SYN_LEN] = { 0x60 };
	struct tcpwire_seg s;

	p[5] = TCPWIRE_SYN_LEN, p[6] = 6, p[7] = 64;
	memcpy(p + 8, a6, 16);
	memcpy(p + 24, b6, 16);
	tcpwire_syn(p + 40, 6, a6, b6, 33000, 443, 7, 1440, 1);
	ok(!tcpwire_ip(p, sizeof(p), &s) && s.family == 6 && !memcmp(s.dst, b6, 16) &&
	   s.dport == 443 && s.mss == 1440, "IPv6: read, with its options");
	p[6] = 0;	/* a hop-by-hop header first */
	is_int(tcpwire_ip(p, sizeof(p), &s), -ENOENT, "IPv6 behind an extension header: -ENOENT");
}

static void test_frames(void)
{
	uint8_t f[256], ip[64];
	struct tcpwire_seg s;
	size_t n = ipv4_packet(ip, 0, TCPWIRE_SYN | TCPWIRE_ACK);

	memset(f, 0, sizeof(f));
	f[12] = 0x08, f[13] = 0x00;
	memcpy(f + 14, ip, n);
	ok(!tcpwire_frame(f, 14 + n, 1, &s) && s.sport == 8080, "Ethernet");
	f[12] = 0x81, f[13] = 0x00, f[16] = 0x88, f[17] = 0xa8, f[20] = 0x08, f[21] = 0x00;
	memcpy(f + 22, ip, n);
	ok(!tcpwire_frame(f, 22 + n, 1, &s) && s.sport == 8080, "Ethernet, two VLAN tags");
	f[21] = 0x06;
	is_int(tcpwire_frame(f, 22 + n, 1, &s), -ENOENT, "ARP: -ENOENT");
	memset(f, 0, 16);
	f[14] = 0x08, f[15] = 0x00;
	memcpy(f + 16, ip, n);
	ok(!tcpwire_frame(f, 16 + n, 113, &s) && s.dport == 40000, "Linux cooked (SLL)");
	memset(f, 0, 20);
	f[0] = 0x08, f[1] = 0x00;
	memcpy(f + 20, ip, n);
	ok(!tcpwire_frame(f, 20 + n, 276, &s) && s.dport == 40000, "Linux cooked v2 (SLL2)");
	ok(!tcpwire_frame(ip, n, 12, &s) && !tcpwire_frame(ip, n, 14, &s), "raw IP");
	is_int(tcpwire_frame(ip, n, 105, &s), -ENOENT, "802.11: not read");
	ok(tcpwire_link_ok(1) && tcpwire_link_ok(276) && !tcpwire_link_ok(105), "link types");
	is_int(tcpwire_frame(f, 5, 1, &s), -EINVAL, "a frame of 5 bytes: -EINVAL");
}

int main(void)
{
	test_syn();
	test_ip();
	test_ipv6();
	test_frames();
	return done_testing();
}
