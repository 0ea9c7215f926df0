// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: a --tcp byte stream, as a hostile peer may send it
 * (frame.h). The first input byte picks a maximum message length and a
 * chunk size; the rest is the stream. A receiver that reads it whole and
 * one that reads it a chunk at a time (as recv() may hand it over, a
 * half frame at a time) must find the same messages and stop at the same
 * rejection; frame_check() must never claim more bytes than it was given,
 * nor a length outside [WIRE_HDR_LEN, max].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MSGS 4096

struct found {
	size_t n;			/* whole messages */
	uint32_t len[MAX_MSGS];
	int end;			/* FRAME_NEED, or the rejection */
};

/* Consume whole frames from buf[0..have); what is left over in *used. */
static void scan(const uint8_t *buf, size_t have, uint32_t max, struct found *f,
		 size_t *used)
{
	size_t off = 0;

	for (;;) {
		uint32_t len = 0;
		enum frame_state st = frame_check(buf + off, have - off, max, &len);

		if (st == FRAME_WHOLE) {
			if (len < WIRE_HDR_LEN || len > max || FRAME_PREFIX + len > have - off)
				abort();	/* a frame longer than what was read */
			if (f->n < MAX_MSGS)
				f->len[f->n] = len;
			f->n++;
			off += FRAME_PREFIX + len;
			continue;
		}
		f->end = st;
		break;
	}
	*used = off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct found whole, chunked;
	uint32_t max;
	size_t chunk, used, have = 0, fed = 0;
	uint8_t *buf;

	if (size < 1)
		return 0;
	max = WIRE_HDR_LEN + (uint32_t)(data[0] & 0x0f) * 64;
	chunk = 1 + (data[0] >> 4);
	data++;
	size--;
	memset(&whole, 0, sizeof(whole));
	memset(&chunked, 0, sizeof(chunked));
	scan(data, size, max, &whole, &used);

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	/* a receiver's buffer: read a chunk, consume what is whole, keep the rest */
	while (fed < size) {
		size_t n = size - fed < chunk ? size - fed : chunk;

		memcpy(buf + have, data + fed, n);
		have += n;
		fed += n;
		scan(buf, have, max, &chunked, &used);
		if (chunked.end != FRAME_NEED)
			break;	/* the stream is rejected: the connection is dropped */
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	if (whole.n != chunked.n || whole.end != chunked.end)
		abort();
	for (size_t i = 0; i < whole.n && i < MAX_MSGS; i++)
		if (whole.len[i] != chunked.len[i])
			abort();
	return 0;
}
