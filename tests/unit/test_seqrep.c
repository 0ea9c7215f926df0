/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/admit/seqrep.h: a session's recent sequence numbers. A sender's
 * numbers (each once, in turn, some lost) are always answered, by a
 * stateless reflector and a stateful one alike; a number its replies
 * carried SEQREP_MAX times is not (a loop between stateless ones); a
 * number the reflector chose itself is not (its own reply come back);
 * the memory is SEQREP_N numbers, the oldest forgotten first.
 */
#include "seqrep.h"
#include "tap.h"

static void test_sender_stateless(void)
{
	struct seqrep q = { 0 };
	bool all = true;

	for (uint64_t seq = 1; seq <= 1000; seq += 1 + (seq % 7 == 0)) {
		all &= seqrep_ok(&q, seq);
		seqrep_note(&q, seq, seq);
	}
	ok(all, "stateless: a sender's numbers, some lost, all answered");
}

static void test_sender_stateful(void)
{
	struct seqrep q = { 0 };
	uint64_t own = 1;	/* the reflector's count, in a request's terms */
	bool all = true;

	/* requests run ahead of the count when some are lost on the way */
	for (uint64_t seq = 1; seq <= 1000; seq += 1 + (seq % 5 == 0)) {
		all &= seqrep_ok(&q, seq);
		seqrep_note(&q, seq, own++);
	}
	ok(all, "stateful: a sender's numbers answered, some lost on the way, the count behind");
}

static void test_repeats(void)
{
	struct seqrep q = { 0 };
	int answered = 0;

	for (int i = 0; i < 10; i++) {
		if (!seqrep_ok(&q, 42))
			continue;
		answered++;
		seqrep_note(&q, 42, 42);
	}
	is_int(answered, SEQREP_MAX, "one number from a loop: answered %d times", SEQREP_MAX);
	ok(seqrep_ok(&q, 43), "the next number is answered");
}

static void test_own(void)
{
	struct seqrep q = { 0 };

	seqrep_note(&q, 9, 1);	/* a stateful reply: its own number 1 */
	ok(!seqrep_ok(&q, 1), "a request of the number a stateful reply chose: not answered");
	ok(seqrep_ok(&q, 9), "its request's number: answered again (a repeat, not yet too many)");
}

static void test_forget(void)
{
	struct seqrep q = { 0 };

	for (int i = 0; i < SEQREP_MAX; i++)
		seqrep_note(&q, 5, 5);
	ok(!seqrep_ok(&q, 5), "number 5 answered %d times: no more", SEQREP_MAX);
	for (uint64_t seq = 100; seq < 100 + SEQREP_N - 1; seq++)
		seqrep_note(&q, seq, seq);
	ok(!seqrep_ok(&q, 5), "still remembered after %d newer numbers", SEQREP_N - 1);
	seqrep_note(&q, 200, 200);
	ok(seqrep_ok(&q, 5), "forgotten after %d: the memory is bounded", SEQREP_N);
}

int main(void)
{
	test_sender_stateless();
	test_sender_stateful();
	test_repeats();
	test_own();
	test_forget();
	return done_testing();
}
