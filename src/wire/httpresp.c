// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Responses framed (httpresp.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "httpresp.h"

static struct httpresp *of(http_parser *p)
{
	return p->data;
}

static int on_headers(http_parser *p)
{
	struct httpresp *h = of(p);

	h->status = p->status_code;
	if ((p->flags & F_CONTENTLENGTH) && p->content_length > HTTPRESP_MAX_BODY) {
		h->why = "a Content-Length over 64 MiB";
		return -1;
	}
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
	struct httpresp *h = of(p);

	(void)at;
	h->body += len;
	if (h->body > HTTPRESP_MAX_BODY) {
		h->why = "a body over 64 MiB (a server that sends forever?)";
		return -1;
	}
	return 0;
}

/* A 1xx is an interim response: the final one follows (101 excepted:
 * the connection is another protocol's from then on); counted. Its body
 * (none is allowed) counts towards the final one's bound. */
static int on_complete(http_parser *p)
{
	struct httpresp *h = of(p);

	if (h->status >= 100 && h->status < 200 && h->status != 101) {
		h->status = 0;
		h->interim++;
		return 0;
	}
	h->done = true;
	h->keep_alive = http_should_keep_alive(p);
	http_parser_pause(p, 1);	/* what follows is not this response's */
	return 0;
}

static const http_parser_settings settings = {
	.on_headers_complete = on_headers,
	.on_body = on_body,
	.on_message_complete = on_complete,
};

void httpresp_init(struct httpresp *h, uint64_t fixed)
{
	memset(h, 0, sizeof(*h));
	h->fixed = fixed;
}

void httpresp_start(struct httpresp *h)
{
	h->bytes = h->body = 0;
	h->status = h->interim = 0;
	h->done = h->bad = h->keep_alive = false;
	h->why = NULL;
	if (h->fixed)
		return;
	http_parser_init(&h->p, HTTP_RESPONSE);
	h->p.data = h;
}

/* --request: the response is its first h->fixed bytes. */
static size_t feed_fixed(struct httpresp *h, size_t n)
{
	uint64_t left = h->fixed - h->bytes;
	size_t take = n < left ? n : (size_t)left;

	if (!n) {
		h->bad = true;
		h->why = "the server closed the connection before the response's end";
		return 0;
	}
	h->bytes += take;
	h->done = h->bytes == h->fixed;
	h->keep_alive = true;
	return take;
}

/* The parser's verdict on a stream it stopped in. */
static void parser_error(struct httpresp *h)
{
	enum http_errno e = HTTP_PARSER_ERRNO(&h->p);

	h->bad = true;
	if (h->why)
		return;		/* a callback's */
	switch (e) {
	case HPE_OK:		/* closed before the response's first byte */
	case HPE_INVALID_EOF_STATE:
		h->why = "the server closed the connection before the response's end";
		break;
	case HPE_HEADER_OVERFLOW:
		h->why = "headers over 80 KiB";
		break;
	case HPE_INVALID_CONTENT_LENGTH:
	case HPE_UNEXPECTED_CONTENT_LENGTH:
		h->why = "a bad Content-Length";
		break;
	case HPE_INVALID_VERSION:
	case HPE_INVALID_CONSTANT:
	case HPE_INVALID_STATUS:
		h->why = "not an HTTP status line";
		break;
	case HPE_INVALID_CHUNK_SIZE:
		h->why = "a bad chunk size";
		break;
	default:
		h->why = http_errno_description(e);
		break;
	}
}

size_t httpresp_feed(struct httpresp *h, const uint8_t *buf, size_t n)
{
	size_t took;

	if (h->done || h->bad)
		return 0;
	if (h->fixed)
		return feed_fixed(h, n);
	took = http_parser_execute(&h->p, &settings, (const char *)buf, n);
	h->bytes += took;
	if (h->done)
		return took;
	if (HTTP_PARSER_ERRNO(&h->p) != HPE_OK)
		parser_error(h);
	else if (!n)
		parser_error(h);	/* closed before it began: no error is set */
	return took;
}

int httpresp_get_request(char *buf, size_t len, const char *path, const char *host)
{
	int n = snprintf(buf, len,
			 "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: rant/%s\r\nAccept: */*\r\n\r\n",
			 path, host, RANT_VERSION);

	return n < 0 || (size_t)n >= len ? -E2BIG : n;
}
