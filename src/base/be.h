/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Big-endian (network order) integers in byte buffers, at any alignment:
 * the one set of get/put helpers of the message formats (wire.c, ptp.c)
 * and the capture parser (capmatch.c).
 */
#ifndef RANT_BE_H
#define RANT_BE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline void be_put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void be_put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void be_put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t be_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint32_t be_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint64_t be_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

#endif
