/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/frame.h: rant's messages on a stream, each after a 4-byte
 * big-endian length. A receiver must find a message only once all of it
 * is there, however the bytes were split, keep what follows it, and
 * reject a stream that cannot be rant's as soon as its bytes show it.
 */
#include <string.h>

#include "frame.h"
#include "tap.h"
#include "wire.h"

#define MAX 1048576

/* A framed ping of len bytes (len >= WIRE_HDR_LEN) at buf; returns the
 * framed length. */
static size_t framed_ping(uint8_t *buf, uint32_t len, uint64_t seq)
{
	struct msg_hdr h = { .type = MSG_PING, .session = 7, .len = len, .seq = seq };

	frame_put_len(buf, len);
	memset(buf + FRAME_PREFIX, 0xee, len);
	wire_put_hdr(buf + FRAME_PREFIX, &h);
	return FRAME_PREFIX + len;
}

static void test_prefix(void)
{
	uint8_t p[4];

	frame_put_len(p, 0x01020304);
	ok(p[0] == 1 && p[1] == 2 && p[2] == 3 && p[3] == 4, "prefix is big-endian");
	frame_put_len(p, MAX);
	ok(p[0] == 0 && p[1] == 0x10 && p[2] == 0 && p[3] == 0, "1 MiB as 00 10 00 00");
}

/* Every way of splitting one message: not whole until the last byte. */
static void test_split(void)
{
	uint8_t buf[256];
	size_t n = framed_ping(buf, 72, 1);
	bool early = false, late = false;
	uint32_t len = 0;

	for (size_t have = 0; have < n; have++)
		if (frame_check(buf, have, MAX, &len) != FRAME_NEED)
			early = true;
	ok(!early, "72-byte message: FRAME_NEED for every prefix of it (0..75 bytes)");
	late = frame_check(buf, n, MAX, &len) == FRAME_WHOLE;
	ok(late && len == 72, "all 76 bytes: FRAME_WHOLE, len 72");
	len = 0;
	frame_check(buf, 4, MAX, &len);
	is_int(len, 72, "the length is known once the prefix is in");
}

/* Two messages back to back: the first is found, the second follows. */
static void test_two(void)
{
	uint8_t buf[512];
	size_t a = framed_ping(buf, 100, 1), b = framed_ping(buf + a, 32, 2);
	struct msg_hdr h;
	uint32_t len = 0;

	ok(frame_check(buf, a + b, MAX, &len) == FRAME_WHOLE && len == 100,
	   "two messages read at once: the first (100 bytes) is whole");
	ok(frame_check(buf + a, b, MAX, &len) == FRAME_WHOLE && len == 32,
	   "then the second (32 bytes, the smallest) is whole");
	ok(wire_parse(buf + a + FRAME_PREFIX, len, MSG_PING, &h) == 0 && h.seq == 2,
	   "and parses as seq 2");
	ok(frame_check(buf + a, 10, MAX, &len) == FRAME_NEED,
	   "a part of the second after the first: FRAME_NEED");
}

static void test_garbage(void)
{
	uint8_t buf[256];
	uint32_t len;

	framed_ping(buf, 72, 1);
	frame_put_len(buf, 31);
	is_int(frame_check(buf, 4, MAX, &len), FRAME_BADLEN, "length 31 (< header): bad length");
	frame_put_len(buf, 0);
	is_int(frame_check(buf, 4, MAX, &len), FRAME_BADLEN, "length 0: bad length");
	frame_put_len(buf, MAX + 1);
	is_int(frame_check(buf, 4, MAX, &len), FRAME_BADLEN, "length 1 MiB + 1: bad length");
	frame_put_len(buf, 65508);
	is_int(frame_check(buf, 4, 65507, &len), FRAME_BADLEN, "length above a smaller max: bad length");
	frame_put_len(buf, 72);
	buf[FRAME_PREFIX] = 'X';
	is_int(frame_check(buf, 5, MAX, &len), FRAME_BADMAGIC,
	       "first byte of the message is not 'R': bad magic at once");
	framed_ping(buf, 72, 1);
	buf[FRAME_PREFIX + 3] = 'x';
	is_int(frame_check(buf, 7, MAX, &len), FRAME_NEED,
	       "three good magic bytes: not yet known bad");
	is_int(frame_check(buf, 8, MAX, &len), FRAME_BADMAGIC, "fourth byte wrong: bad magic");
	memcpy(buf, "GET / HTTP/1.1\r\n", 16);
	ok(frame_check(buf, 16, MAX, &len) < 0, "an HTTP request is rejected");
	is_str(frame_strerror(FRAME_BADLEN), "bad length", "frame_strerror: bad length");
	is_str(frame_strerror(FRAME_BADMAGIC), "bad magic", "frame_strerror: bad magic");
}

int main(void)
{
	test_prefix();
	test_split();
	test_two();
	test_garbage();
	return done_testing();
}
