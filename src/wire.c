// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant wire format: encoding and validation (layout in wire.h).
 */
#include <endian.h>
#include <string.h>

#include "wire.h"

enum {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_TYPE = 5,
	OFF_FLAGS = 6,
	OFF_SESSION = 8,
	OFF_LEN = 12,
	OFF_SEQ = 16,
	OFF_T1_SW = 24,
	OFF_T2_WIRE = 32,
	OFF_T2_SW = 40,
	OFF_T3_SW = 48,
	OFF_FU_SEQ = 56,
	OFF_FU_T3_WIRE = 64,
};

static void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

void wire_put_hdr(void *buf, const struct wire_hdr *h)
{
	uint8_t *p = buf;

	memcpy(p + OFF_MAGIC, WIRE_MAGIC, 4);
	p[OFF_VERSION] = WIRE_VERSION;
	p[OFF_TYPE] = h->type;
	put16(p + OFF_FLAGS, h->flags);
	put32(p + OFF_SESSION, h->session);
	put32(p + OFF_LEN, h->len);
	put64(p + OFF_SEQ, h->seq);
	put64(p + OFF_T1_SW, (uint64_t)h->t1_sw);
}

void wire_put_body(void *buf, const struct wire_body *b)
{
	uint8_t *p = buf;

	put64(p + OFF_T2_WIRE, (uint64_t)b->t2_wire);
	put64(p + OFF_T2_SW, (uint64_t)b->t2_sw);
	put64(p + OFF_T3_SW, (uint64_t)b->t3_sw);
	put64(p + OFF_FU_SEQ, b->fu_seq);
	put64(p + OFF_FU_T3_WIRE, (uint64_t)b->fu_t3_wire);
}

void wire_set_seq(void *buf, uint64_t seq, int64_t t1_sw)
{
	uint8_t *p = buf;

	put64(p + OFF_SEQ, seq);
	put64(p + OFF_T1_SW, (uint64_t)t1_sw);
}

uint64_t wire_get_seq(const void *buf, size_t len)
{
	return len < WIRE_HDR_LEN ? 0 : get64((const uint8_t *)buf + OFF_SEQ);
}

int wire_parse(const void *buf, size_t n, enum wire_type want,
	       struct wire_hdr *h)
{
	const uint8_t *p = buf;

	if (n < WIRE_HDR_LEN)
		return -WIRE_ESHORT;
	if (memcmp(p + OFF_MAGIC, WIRE_MAGIC, 4))
		return -WIRE_EMAGIC;
	if (p[OFF_VERSION] != WIRE_VERSION)
		return -WIRE_EVERSION;
	if (p[OFF_TYPE] != want)
		return -WIRE_ETYPE;
	if (get32(p + OFF_LEN) != n)
		return -WIRE_ELEN;

	h->type = p[OFF_TYPE];
	h->flags = get16(p + OFF_FLAGS);
	h->session = get32(p + OFF_SESSION);
	h->len = (uint32_t)n;
	h->seq = get64(p + OFF_SEQ);
	h->t1_sw = (int64_t)get64(p + OFF_T1_SW);
	return 0;
}

int wire_parse_body(const void *buf, size_t n, struct wire_body *b)
{
	const uint8_t *p = buf;

	if (n < WIRE_PONG_LEN)
		return -WIRE_ESHORT;
	b->t2_wire = (int64_t)get64(p + OFF_T2_WIRE);
	b->t2_sw = (int64_t)get64(p + OFF_T2_SW);
	b->t3_sw = (int64_t)get64(p + OFF_T3_SW);
	b->fu_seq = get64(p + OFF_FU_SEQ);
	b->fu_t3_wire = (int64_t)get64(p + OFF_FU_T3_WIRE);
	return 0;
}

const char *wire_strerror(int err)
{
	static const char *const names[WIRE_NERR] = {
		[WIRE_OK] = "ok",
		[WIRE_ESHORT] = "short",
		[WIRE_EMAGIC] = "magic",
		[WIRE_EVERSION] = "version",
		[WIRE_ETYPE] = "type",
		[WIRE_ELEN] = "length",
	};

	/* No negation before the range check: -INT_MIN overflows. */
	if (err <= -WIRE_NERR || err >= WIRE_NERR)
		return "unknown";
	return names[err < 0 ? -err : err];
}
