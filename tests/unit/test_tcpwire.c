/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/tcpwire.h: the SYN --syn sends, its checksum right by RFC
 * 1071's sum (computed here apart) over IPv4's and IPv6's pseudo-headers,
 * its fields and options read back by the parser its answers go through
 * (pktparse.h: a TCP header alone, and an IPv6 packet); a window scaled
 * by the handshake's window scale, or left as sent. The parser's own
 * tests are test_pktparse.c's.
 */
#include <string.h>

#include "pktparse.h"
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
	struct pkt_tcp s;

	is_int((int)tcpwire_syn(p, 4, a4, b4, 40000, 80, 0x01020304, 1460, 77), TCPWIRE_SYN_LEN,
	       "a SYN of 40 bytes");
	is_int((int)rfc1071(a4, b4, 4, p, sizeof(p)), 0xffff, "IPv4: its checksum is right");
	is_int(pktparse_tcp(p, sizeof(p), 5, &s), PKT_TCP, "read back");
	ok(s.sport == 40000 && s.dport == 80 && s.seg.seq == 0x01020304 &&
	   s.seg.flags == (TCPSEG_F_SYN | TCPSEG_F_TS) && !s.noflags, "ports, seq, flags");
	ok(s.seg.mss == 1460 && s.wscale == 7 && s.seg.tsval == 77 && s.seg.tsecr == 0 &&
	   s.seg.win == 65535, "its options: MSS 1460, window scale 7, timestamps; window");
	ok(s.seg.len == 0 && s.seg.t_ns == 5, "no payload; the stamp given");
	tcpwire_syn(p, 6, a6, b6, 1, 65535, 0xffffffff, 1440, 0);
	is_int((int)rfc1071(a6, b6, 16, p, sizeof(p)), 0xffff, "IPv6: its checksum is right");
	p[20] ^= 1;
	ok(rfc1071(a6, b6, 16, p, sizeof(p)) != 0xffff, "(the check catches a flipped bit)");
}

/* An IPv6 packet carrying the SYN. */
static void test_ipv6(void)
{
	uint8_t p[40 + TCPWIRE_SYN_LEN] = { 0x60 };
	struct pkt_tcp s;

	p[5] = TCPWIRE_SYN_LEN, p[6] = 6, p[7] = 64;
	memcpy(p + 8, a6, 16);
	memcpy(p + 24, b6, 16);
	tcpwire_syn(p + 40, 6, a6, b6, 33000, 443, 7, 1440, 1);
	ok(pktparse_ip(p, sizeof(p), 0, &s) == PKT_TCP && s.family == 6 &&
	   !memcmp(s.dst, b6, 16) && s.dport == 443 && s.seg.mss == 1440,
	   "IPv6: read, with its options");
}

/* RFC 7323: scaled by the sender's shift when both SYNs offered one;
 * a SYN's window, and one of a handshake without both, as sent. */
static void test_window(void)
{
	is_u64(tcpwire_window(502, 7, 9, false), 502u << 7, "both offered: the sender's shift (7)");
	is_u64(tcpwire_window(502, 0, 9, false), 502, "a shift of 0");
	is_u64(tcpwire_window(502, 7, -1, false), 502, "the receiver offered none: as sent");
	is_u64(tcpwire_window(502, -1, 7, false), 502, "the sender offered none: as sent");
	is_u64(tcpwire_window(502, 7, 9, true), 502, "a SYN's window: never scaled");
	is_u64(tcpwire_window(65535, 14, 14, false), 65535u << 14, "the largest window: 1 GiB");
	is_u64(tcpwire_window(65535, 100, 0, false), 65535u << 14, "a shift over 14 taken as 14");
}

int main(void)
{
	test_syn();
	test_ipv6();
	test_window();
	return done_testing();
}
