/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/emit/emitcount.h: how the emitter tells the pong it waits for from invalid,
 * foreign, late and duplicate datagrams (emit_classify and its window).
 */
#include <stdint.h>
#include <string.h>

#include "emitcount.h"
#include "tap.h"
#include "wire.h"

#define SESSION 0x12345678u
#define SIZE 72

static uint8_t buf[SIZE + 8];
static struct msgfmt_ctx fmt = { .f = &msgfmt_rant };

/* A pong of seq in session, SIZE bytes long. */
static void make_pong(uint32_t session, uint64_t seq)
{
	struct msg_hdr h = {
		.type = MSG_PONG, .session = session, .len = SIZE, .seq = seq,
		.t1_sw = 1,
	};

	memset(buf, 0, sizeof(buf));
	wire_put_hdr(buf, &h);
}

/* What a pong of seq is while waiting for want (after sending it). */
static enum pong_class pong(struct pong_window *w, uint64_t seq, uint64_t want)
{
	struct msg_hdr h;

	make_pong(SESSION, seq);
	return emit_classify(w, &fmt, buf, SIZE, SIZE, SESSION, want, &h);
}

static void test_match_and_duplicate(void)
{
	struct pong_window w = { 0 };

	pong_window_forget(&w, 1);
	is_int(pong(&w, 1, 1), PONG_MATCH, "the pong awaited matches");
	is_int(pong(&w, 1, 1), PONG_DUPLICATE, "its second copy is a duplicate");
	pong_window_forget(&w, 2);
	is_int(pong(&w, 1, 2), PONG_DUPLICATE, "and stays one while the next is awaited");
}

static void test_late(void)
{
	struct pong_window w = { 0 };

	for (uint64_t s = 1; s <= 5; s++)
		pong_window_forget(&w, s);
	is_int(pong(&w, 3, 5), PONG_LATE, "an earlier ping's pong, first copy: late");
	is_int(pong(&w, 3, 5), PONG_DUPLICATE, "its second copy: duplicate");
	is_int(pong(&w, 5, 5 + EMIT_WINDOW), PONG_LATE,
	       "a pong older than the window is late, never a duplicate");
}

static void test_window_reuse(void)
{
	struct pong_window w = { 0 };
	uint64_t s = 7;

	pong_window_forget(&w, s);
	is_int(pong(&w, s, s), PONG_MATCH, "seq 7 matches");
	pong_window_forget(&w, s + EMIT_WINDOW);
	is_int(pong(&w, s + EMIT_WINDOW, s + EMIT_WINDOW), PONG_MATCH,
	       "the slot of seq 7 is free again for seq 7 + window");
}

static void test_invalid_and_foreign(void)
{
	struct pong_window w = { 0 };
	struct msg_hdr h;

	pong_window_forget(&w, 10);
	is_int(pong(&w, 11, 10), PONG_INVALID, "a seq never sent is invalid");
	make_pong(SESSION ^ 1, 10);
	is_int(emit_classify(&w, &fmt, buf, SIZE, SIZE, SESSION, 10, &h), PONG_FOREIGN,
	       "another session's pong is foreign");
	make_pong(SESSION, 10);
	is_int(emit_classify(&w, &fmt, buf, SIZE - 1, SIZE, SESSION, 10, &h), PONG_INVALID,
	       "a truncated pong is invalid");
	is_int(emit_classify(&w, &fmt, buf, -1, SIZE, SESSION, 10, &h), PONG_INVALID,
	       "a datagram larger than the buffer (len -1) is invalid");
	is_int(emit_classify(&w, &fmt, buf, SIZE, SIZE + 8, SESSION, 10, &h), PONG_INVALID,
	       "a pong of another length than the ping is invalid");
	buf[0] = 'X';
	is_int(emit_classify(&w, &fmt, buf, SIZE, SIZE, SESSION, 10, &h), PONG_INVALID,
	       "wrong magic is invalid");
	is_int(pong(&w, 10, 10), PONG_MATCH,
	       "none of those marked the awaited pong seen");
}

/* Late and duplicate pongs of unmeasured pings count apart. */
static void test_warmup_pongs(void)
{
	struct pong_window w = { 0 };

	ok(emit_pong_of_warmup(5, 0), "while warming up, every pong is warm-up traffic");
	ok(emit_pong_of_warmup(100, 101), "the last warm-up ping's pong is warm-up traffic");
	ok(!emit_pong_of_warmup(101, 101), "the first measured ping's is not");
	ok(!emit_pong_of_warmup(150, 101), "nor a later one's");
	/* As the emitter sees them: warm-up 1..100, measuring from 101. */
	for (uint64_t s = 1; s <= 102; s++)
		pong_window_forget(&w, s);
	is_int(pong(&w, 100, 102), PONG_LATE, "a warm-up pong after measuring began is late ...");
	ok(emit_pong_of_warmup(100, 101), "... and warm-up traffic (warmup_late)");
	is_int(pong(&w, 100, 102), PONG_DUPLICATE, "its copy is a duplicate ...");
	ok(emit_pong_of_warmup(100, 101), "... and warm-up traffic (warmup_duplicate)");
	is_int(pong(&w, 101, 102), PONG_LATE, "a measured ping's pong after it is late");
	ok(!emit_pong_of_warmup(101, 101), "... and counted late");
}

int main(void)
{
	test_match_and_duplicate();
	test_late();
	test_window_reuse();
	test_invalid_and_foreign();
	test_warmup_pongs();
	return done_testing();
}
