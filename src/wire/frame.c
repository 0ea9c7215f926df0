// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Message framing on a stream (see frame.h).
 */
#include <string.h>

#include "frame.h"
#include "wire.h"

void frame_put_len(uint8_t *pfx, uint32_t len)
{
	pfx[0] = (uint8_t)(len >> 24);
	pfx[1] = (uint8_t)(len >> 16);
	pfx[2] = (uint8_t)(len >> 8);
	pfx[3] = (uint8_t)len;
}

enum frame_state frame_check(const uint8_t *buf, size_t have, uint32_t max,
			     uint32_t *len)
{
	size_t magic = strlen(WIRE_MAGIC);
	uint32_t n;

	if (have < FRAME_PREFIX)
		return FRAME_NEED;
	n = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 |
	    (uint32_t)buf[2] << 8 | buf[3];
	if (n < WIRE_HDR_LEN || n > max)
		return FRAME_BADLEN;
	*len = n;
	if (memcmp(buf + FRAME_PREFIX, WIRE_MAGIC,
		   have - FRAME_PREFIX < magic ? have - FRAME_PREFIX : magic))
		return FRAME_BADMAGIC;
	return have - FRAME_PREFIX >= n ? FRAME_WHOLE : FRAME_NEED;
}

const char *frame_strerror(enum frame_state st)
{
	switch (st) {
	case FRAME_BADLEN:
		return "bad length";
	case FRAME_BADMAGIC:
		return "bad magic";
	default:
		return "ok";
	}
}
