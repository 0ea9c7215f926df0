/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor -R: rant's wire format (src/wire/wire.h), the few fields and steps
 * bench/floor.c needs to face rant's other side: a ping rant's reflector
 * answers, a pong rant's emitter measures. Apart from rant's own
 * src/wire/wire.c on purpose: the floor is built from bench/ alone, with no
 * part of rant in it. tests/unit/test_floorwire.c checks that wire.c
 * parses what these write.
 */
#ifndef FLOORWIRE_H
#define FLOORWIRE_H

#include <arpa/inet.h>
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* The offsets (wire.h's table) and flags (msgfmt.h) used here */
#define RW_OFF_TYPE 5
#define RW_OFF_FLAGS 6
#define RW_OFF_SESSION 8
#define RW_OFF_LEN 12
#define RW_OFF_SEQ 16
#define RW_OFF_T1_SW 24
#define RW_OFF_T2_WIRE 32
#define RW_OFF_FU_SEQ 56
#define RW_OFF_FU_T3 64
#define RW_PONG_LEN 72		/* WIRE_PONG_LEN: the pong has a body */
#define RW_PING 1
#define RW_PONG 2
#define RW_F_WARMUP 0x0001	/* MSG_F_WARMUP */
#define RW_F_WANT_SW 0x0002	/* MSG_F_WANT_SW */
#define RW_F_PING_MASK 0x00ff	/* WIRE_F_PING_MASK */
#define RW_F_T2 0x0100		/* MSG_F_T2 */
#define RW_F_FU 0x0800		/* MSG_F_FU */

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* -R, server: the ping of n bytes in p turned into its pong in place,
 * its RX stamp as T2 and, fu_t3 not 0, the follow-up of the pong before
 * (seq fu_seq, raw). false: not a ping (no answer). */
static bool rant_pong(uint8_t *p, ssize_t n, int64_t t2, const uint8_t *fu_seq,
		      int64_t fu_t3)
{
	uint16_t flags;

	if (n < RW_OFF_T2_WIRE || p[RW_OFF_TYPE] != RW_PING)
		return false;
	memcpy(&flags, p + RW_OFF_FLAGS, sizeof(flags));
	flags = (uint16_t)((ntohs(flags) & RW_F_PING_MASK) | RW_F_T2 | (fu_t3 ? RW_F_FU : 0));
	p[RW_OFF_TYPE] = RW_PONG;
	flags = htons(flags);
	memcpy(p + RW_OFF_FLAGS, &flags, sizeof(flags));
	if (n < RW_PONG_LEN)
		return true;
	put_be64(p + RW_OFF_T2_WIRE, (uint64_t)t2);
	if (fu_t3) {
		memcpy(p + RW_OFF_FU_SEQ, fu_seq, 8);
		put_be64(p + RW_OFF_FU_T3, (uint64_t)fu_t3);
	}
	return true;
}

/* -R, client: the first 16 bytes of rant's ping (the rest is seq and
 * T1_SW), for a warm-up ping or a measured one. */
static void rant_ping_hdr(uint8_t *h, size_t size, uint32_t session, bool warm)
{
	uint16_t flags = htons((uint16_t)(RW_F_WANT_SW | (warm ? RW_F_WARMUP : 0)));
	uint32_t v;

	memcpy(h, "RANT", 4);
	h[4] = 1;		/* WIRE_VERSION */
	h[RW_OFF_TYPE] = RW_PING;
	memcpy(h + RW_OFF_FLAGS, &flags, sizeof(flags));
	v = htonl(session);
	memcpy(h + RW_OFF_SESSION, &v, sizeof(v));
	v = htonl((uint32_t)size);
	memcpy(h + RW_OFF_LEN, &v, sizeof(v));
}

#endif
