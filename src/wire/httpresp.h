/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a response ends, in the bytes of a connection: HTTP/1.1 by
 * libhttp-parser (the parser wrk builds on: Content-Length, chunked, or
 * the body until the server closes; 1xx interim responses skipped and
 * counted), or
 * --request's fixed length. A response that cannot be one is bad, with
 * why: a garbage status line, a bad Content-Length, headers over 80 KiB,
 * a body over HTTPRESP_MAX_BODY (declared, or sent: a server that sends
 * forever), bytes where no response was asked for.
 *
 * No allocation; the state is one struct a connection.
 */
#ifndef RANT_HTTPRESP_H
#define RANT_HTTPRESP_H

#include <http_parser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A response's body at most, bytes (declared or sent). */
#define HTTPRESP_MAX_BODY (64ull << 20)

struct httpresp {
	http_parser p;
	uint64_t fixed;		/* --request: each response's length; 0: HTTP */
	uint64_t bytes;		/* of this response so far */
	uint64_t body;		/* of its body so far */
	unsigned int status;	/* its status code once its headers came, else 0 */
	unsigned int interim;	/* 1xx interim responses before it (100 Continue...) */
	bool done;		/* it ended */
	bool bad;		/* it cannot be a response: why says what */
	bool keep_alive;	/* done: the connection may carry another (HTTP/1.1
				 * without "Connection: close") */
	const char *why;	/* a static string */
};

/* A connection's parser: HTTP (fixed 0) or responses of fixed bytes. */
void httpresp_init(struct httpresp *h, uint64_t fixed);

/* The next response is awaited (its request was sent). */
void httpresp_start(struct httpresp *h);

/*
 * n bytes of the stream (n == 0: the server closed it). Returns how many
 * were taken: the response's. h->done once it ended with the last of
 * them (bytes left over were not asked for: the caller calls that bad);
 * h->bad (with h->why) when the bytes cannot be a response, or the
 * stream ended before it did.
 */
size_t httpresp_feed(struct httpresp *h, const uint8_t *buf, size_t n);

/* The request rant sends: "GET path HTTP/1.1" with Host (host: its
 * value), User-Agent and Accept, into buf of len bytes: its length, or
 * -E2BIG when it does not fit. rant probe http's and a fleet's http
 * targets'. */
int httpresp_get_request(char *buf, size_t len, const char *path, const char *host);

#endif
