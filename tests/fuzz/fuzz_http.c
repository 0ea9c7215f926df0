// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the bytes an HTTP server (or a hostile one) sends
 * back to --http (httpresp.h). The first input byte picks a chunk size
 * (and, with its top bit, --request's fixed length instead of HTTP); the
 * rest is the connection's stream, responses one after another as the
 * probe reads them: a response whole, the next begun on the bytes left.
 * Read whole and a chunk at a time, the stream must give the same
 * responses (count, status, length) and end the same way; httpresp_feed()
 * must never take more than it was given, nor be both done and bad.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpresp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RESP 1024

struct seen {
	size_t n;			/* whole responses */
	unsigned int status[MAX_RESP];
	uint64_t bytes[MAX_RESP];
	int end;			/* 0: more wanted, 1: bad, 2: bytes after a
					 * response that closed the connection */
};

static void check(const struct httpresp *h, size_t took, size_t n)
{
	if (took > n || (h->done && h->bad) || (h->bad && !h->why))
		abort();
}

/* The stream fed a chunk at a time (chunk 0: whole), then closed. */
static void run(const uint8_t *d, size_t size, size_t chunk, uint64_t fixed, struct seen *s)
{
	struct httpresp h;
	size_t off = 0;

	memset(s, 0, sizeof(*s));
	httpresp_init(&h, fixed);
	httpresp_start(&h);
	while (off < size) {
		size_t n = chunk && size - off > chunk ? chunk : size - off;
		size_t took = httpresp_feed(&h, d + off, n);

		check(&h, took, n);
		off += took;
		if (h.bad) {
			s->end = 1;
			return;
		}
		if (!h.done)
			continue;
		if (s->n < MAX_RESP) {
			s->status[s->n] = h.status;
			s->bytes[s->n] = h.bytes;
		}
		s->n++;
		if (!h.keep_alive) {
			s->end = off < size ? 2 : 0;
			return;
		}
		httpresp_start(&h);
	}
	httpresp_feed(&h, NULL, 0);	/* the server closes */
	if (h.done && s->n < MAX_RESP) {
		s->status[s->n] = h.status;
		s->bytes[s->n] = h.bytes;
	}
	s->n += h.done;
	s->end = h.bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen whole, chunked;
	uint64_t fixed;
	size_t chunk;

	if (size < 1)
		return 0;
	chunk = 1 + (data[0] & 0x3f);
	fixed = data[0] & 0x80 ? 1 + (data[0] & 0x3f) : 0;
	run(data + 1, size - 1, 0, fixed, &whole);
	run(data + 1, size - 1, chunk, fixed, &chunked);
	if (whole.n != chunked.n || whole.end != chunked.end)
		abort();
	for (size_t i = 0; i < whole.n && i < MAX_RESP; i++)
		if (whole.status[i] != chunked.status[i] || whole.bytes[i] != chunked.bytes[i])
			abort();
	return 0;
}
