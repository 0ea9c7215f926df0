/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/probe/httpresp.h: where a response ends in a connection's bytes.
 * A response is whole at its last byte and not before, however the bytes
 * are split; Content-Length, chunked, a body until the close and 1xx
 * interim responses are framed by libhttp-parser; what cannot be a
 * response is bad, with why; --request's fixed length is counted.
 */
#include <string.h>

#include "httpresp.h"
#include "tap.h"

static const char ok200[] = "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 5\r\n\r\nhello";
static const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			      "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";

/* Feed text whole: what the parser took. */
static size_t feed(struct httpresp *h, const char *text)
{
	return httpresp_feed(h, (const uint8_t *)text, strlen(text));
}

/* Every split of text into two feeds: whole at its end, and not before. */
static bool whole_at_end(const char *text)
{
	size_t n = strlen(text);

	for (size_t cut = 1; cut < n; cut++) {
		struct httpresp h;
		size_t a;

		httpresp_init(&h, 0);
		httpresp_start(&h);
		a = httpresp_feed(&h, (const uint8_t *)text, cut);
		if (a != cut || h.done || h.bad)
			return false;
		if (httpresp_feed(&h, (const uint8_t *)text + cut, n - cut) != n - cut ||
		    !h.done || h.bad || h.bytes != n)
			return false;
	}
	return true;
}

static void test_framing(void)
{
	struct httpresp h;

	httpresp_init(&h, 0);
	httpresp_start(&h);
	is_int((int)feed(&h, ok200), (int)strlen(ok200), "Content-Length: all taken");
	ok(h.done && !h.bad && h.status == 200 && h.keep_alive, "done, 200, kept alive");
	ok(whole_at_end(ok200), "Content-Length: whole at its last byte, any split");
	ok(whole_at_end(chunked), "chunked: whole at its last byte, any split");
	ok(whole_at_end("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"),
	   "a 100 Continue then the response: whole at the final one's end");
	httpresp_start(&h);
	feed(&h, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
	ok(h.done && h.status == 404, "the final status counts, not the interim one");
	httpresp_start(&h);
	feed(&h, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
	ok(h.done && !h.keep_alive, "Connection: close: done, not kept alive");
	httpresp_start(&h);
	feed(&h, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
	ok(h.done && !h.keep_alive, "HTTP/1.0 without keep-alive: not kept alive");
	httpresp_start(&h);
	feed(&h, "HTTP/1.1 200 OK\r\n\r\nbody until the close");
	ok(!h.done && !h.bad, "no length: not whole while the connection is open");
	httpresp_feed(&h, NULL, 0);
	ok(h.done && !h.keep_alive, "... whole when the server closes it");
	httpresp_start(&h);
	is_int((int)feed(&h, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200"), 40,
	       "bytes after the response are not taken (the caller calls them bad)");
	ok(h.done, "... the response itself is whole");
}

/* One bad response: bad, why says what. */
static void is_bad(const char *text, bool close, const char *why, const char *what)
{
	struct httpresp h;

	httpresp_init(&h, 0);
	httpresp_start(&h);
	feed(&h, text);
	if (close)
		httpresp_feed(&h, NULL, 0);
	ok(h.bad && !h.done && h.why && strstr(h.why, why), "%s: bad (%s)", what,
	   h.why ? h.why : "no reason");
}

static void test_bad(void)
{
	static char big[100 * 1024];
	struct httpresp h;

	is_bad("SSH-2.0-OpenSSH_9.2\r\n", false, "status line", "a garbage status line");
	is_bad("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000\r\n\r\n", false,
	       "over 64 MiB", "a huge Content-Length");
	is_bad("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", false,
	       "Content-Length", "a Content-Length beyond 64 bits");
	is_bad("HTTP/1.1 200 OK\r\nContent-Length: 12x4\r\n\r\n", false, "Content-Length",
	       "a Content-Length that is not a number");
	is_bad("HTTP/1.1 200 OK\r\nContent-Length: 600\r\n\r\nhalf", true, "closed",
	       "closed midway");
	is_bad("", true, "closed", "closed before the response");
	is_bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, "chunk",
	       "a bad chunk size");
	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	is_bad(big, false, "80 KiB", "headers over 80 KiB");
	/* a server that sends forever: chunks past the limit */
	httpresp_init(&h, 0);
	httpresp_start(&h);
	feed(&h, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
	for (int i = 0; i < 70 && !h.bad; i++) {
		static char chunk[(1 << 20) + 16];
		int n = snprintf(chunk, 16, "100000\r\n");

		memset(chunk + n, 'y', 1 << 20);
		memcpy(chunk + n + (1 << 20), "\r\n", 2);
		httpresp_feed(&h, (const uint8_t *)chunk, (size_t)n + (1 << 20) + 2);
	}
	ok(h.bad && strstr(h.why, "forever"), "a body that never ends: bad past 64 MiB");
	ok(!httpresp_feed(&h, (const uint8_t *)"x", 1), "nothing more taken once bad");
}

static void test_fixed(void)
{
	struct httpresp h;

	httpresp_init(&h, 10);
	httpresp_start(&h);
	is_int((int)feed(&h, "01234"), 5, "fixed: half taken");
	ok(!h.done, "... not whole");
	is_int((int)feed(&h, "56789extra"), 5, "fixed: the rest, not what follows");
	ok(h.done && h.keep_alive && h.bytes == 10, "... whole at 10 bytes");
	httpresp_start(&h);
	feed(&h, "0123");
	httpresp_feed(&h, NULL, 0);
	ok(h.bad && !h.done, "fixed: closed before its end is bad");
}

int main(void)
{
	test_framing();
	test_bad();
	test_fixed();
	return done_testing();
}
