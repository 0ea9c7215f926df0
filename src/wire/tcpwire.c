// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --syn's SYN and trace's UDP and echo probes built (tcpwire.h).
 */
#include <string.h>

#include "be.h"
#include "tcpwire.h"

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
	o[0] = TCPWIRE_OPT_MSS, o[1] = 4;
	be_put16(o + 2, mss);
	o[4] = TCPWIRE_OPT_SACK_PERM, o[5] = 2;
	o[6] = TCPWIRE_OPT_TS, o[7] = 10;
	be_put32(o + 8, tsval);
	o[16] = TCPWIRE_OPT_NOP;
	o[17] = TCPWIRE_OPT_WSCALE, o[18] = 3, o[19] = 7;
	/* the pseudo-header: addresses, protocol, length */
	acc = sum16(src, alen, 0);
	acc = sum16(dst, alen, acc);
	acc += 6 + TCPWIRE_SYN_LEN;
	be_put16(buf + 16, fold(sum16(buf, TCPWIRE_SYN_LEN, acc)));
	return TCPWIRE_SYN_LEN;
}

/* The two bytes at p that make the checksum of a message whose sum is
 * acc without them (their place 0) come out as want. */
static void fix_csum(uint8_t *p, uint32_t acc, uint16_t want)
{
	uint16_t now = fold(acc);	/* the checksum with the two bytes 0 */
	uint32_t f = (uint32_t)(uint16_t)~want + now;	/* ones' complement: ~want - sum */

	be_put16(p, (uint16_t)~fold(f));
}

size_t tcpwire_udp(uint8_t *buf, int family, const uint8_t *src, const uint8_t *dst,
		   uint16_t sport, uint16_t dport, uint16_t csum)
{
	size_t alen = family == 6 ? 16 : 4;
	uint32_t acc;

	memset(buf, 0, TCPWIRE_UDP_LEN);
	be_put16(buf, sport);
	be_put16(buf + 2, dport);
	be_put16(buf + 4, TCPWIRE_UDP_LEN);
	memcpy(buf + 8, "rant trace", 10);
	acc = sum16(src, alen, 0);
	acc = sum16(dst, alen, acc);
	acc += 17 + TCPWIRE_UDP_LEN;
	acc = sum16(buf, TCPWIRE_UDP_LEN, acc);
	fix_csum(buf + TCPWIRE_UDP_LEN - 2, acc, csum);
	be_put16(buf + 6, csum);
	return TCPWIRE_UDP_LEN;
}

size_t tcpwire_echo(uint8_t *buf, uint16_t id, uint16_t seq, uint16_t csum)
{
	memset(buf, 0, TCPWIRE_ECHO_LEN);
	buf[0] = 8;
	be_put16(buf + 4, id);
	be_put16(buf + 6, seq);
	memcpy(buf + 8, "rant trace", 10);
	fix_csum(buf + TCPWIRE_ECHO_LEN - 2, sum16(buf, TCPWIRE_ECHO_LEN, 0), csum);
	be_put16(buf + 2, csum);
	return TCPWIRE_ECHO_LEN;
}
