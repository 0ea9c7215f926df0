/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/analysis/hopdiag.h: on hand-made traces of 16 paths over three
 * hops, the hop where the time grows and stays grown named with exactly
 * the paths that have it and their responder there; a hop slow only in
 * its own answers named as such, not as a delay; a router's ICMP limit
 * (answers missing while the probes went on) labelled rate_limited and
 * never loss; a loss from a hop on named; a flat trace names nothing.
 */
#include <string.h>

#include "hopdiag.h"
#include "tap.h"

#define N 16
#define HOPS 3

static struct hopdiag_cell cells[N][HOPS];
static struct hopdiag_path paths[N];

/* Every path: hop 1 router 0 at 40 us, hop 2 router 1 or 2 (odd paths:
 * 2) at 60 us, hop 3 the destination (3) at 80 us; 3 probes each. */
static void flat(void)
{
	for (unsigned int i = 0; i < N; i++) {
		paths[i] = (struct hopdiag_path){ .hops = HOPS, .cell = cells[i] };
		for (unsigned int h = 0; h < HOPS; h++)
			cells[i][h] = (struct hopdiag_cell){
				.sent = 3, .received = 3, .p50_ns = 40000 + 20000 * h + i * 50,
				.min_ns = 38000 + 20000 * h,
				.responder = h == 1 ? 1 + (i & 1) : h == 0 ? 0 : 3 };
	}
}

static uint64_t odd(void)
{
	uint64_t m = 0;

	for (unsigned int i = 1; i < N; i += 2)
		m |= 1ULL << i;
	return m;
}

static void test_step(void)
{
	struct hopdiag d[HOPDIAG_MAX];
	unsigned int k;

	flat();
	is_int(hopdiag_find(paths, N, d), 0, "flat: nothing named");
	/* the odd paths' link to router 2 queues 2.1 ms: hops 2 and 3 */
	for (unsigned int i = 1; i < N; i += 2) {
		cells[i][1].p50_ns += 2100000;
		cells[i][2].p50_ns += 2100000;
	}
	k = hopdiag_find(paths, N, d);
	ok(k == 1 && d[0].kind == HOPDIAG_DELAY_STEP && d[0].ttl == 2,
	   "a 2.1 ms queue from hop 2 on: delay_step at hop 2");
	ok(d[0].paths == odd(), "exactly the paths over the loaded link");
	is_int(d[0].responder, 2, "named with their responder there (router 2's other address)");
	ok(d[0].others == (~odd() & 0xffff), "the other 8 counted flat");
	ok(d[0].step_ns >= 2000000 && d[0].step_ns < 2200000, "the step: 2.1 ms");
	is_str(hopdiag_kind_name(d[0].kind), "delay_step", "as delay_step");
	flat();
	cells[4][2].p50_ns += 150000;
	is_int(hopdiag_find(paths, N, d), 0, "a 150 us step: under HOPDIAG_MIN_STEP_NS, nothing");
	flat();
	for (unsigned int i = 0; i < N; i++)
		cells[i][1].min_ns = 0;	/* hop 2's answers spread over 0 to 60 us */
	cells[4][2].p50_ns += 190000;	/* a 210 us step */
	is_int(hopdiag_find(paths, N, d), 0, "a step within 4x the previous hop's spread: nothing");
}

static void test_slow_answer(void)
{
	struct hopdiag d[HOPDIAG_MAX];
	unsigned int k;

	flat();
	for (unsigned int i = 0; i < N; i += 2)
		cells[i][1].p50_ns += 5000000;	/* router 1 answers ICMP in 5 ms */
	k = hopdiag_find(paths, N, d);
	ok(k == 1 && d[0].kind == HOPDIAG_SLOW_ANSWER && d[0].ttl == 2 &&
	   d[0].paths == (~odd() & 0xffff), "a hop slow only in its own answers: slow_answer");
	is_int(d[0].responder, 1, "its responder named");
	is_str(hopdiag_kind_name(d[0].kind), "slow_answer", "as slow_answer");
}

static void test_rate_limit(void)
{
	struct hopdiag d[HOPDIAG_MAX];
	unsigned int k;

	flat();
	/* router 0 answers a burst: paths 0 and 1 in full, then 1 of 3, then none */
	for (unsigned int i = 2; i < N; i++)
		cells[i][0].received = i < 6 ? 1 : 0;
	hopdiag_rate_limits(paths, N);
	ok(!cells[0][0].rate_limited && !cells[1][0].rate_limited, "answered in full: not labelled");
	ok(cells[2][0].rate_limited && cells[9][0].rate_limited,
	   "short at hop 1, hop 2 answered: rate_limited, with some answers or none");
	k = hopdiag_find(paths, N, d);
	is_int(k, 0, "a rate limit is no loss: nothing named");
	/* a silent hop: no path answers there */
	flat();
	for (unsigned int i = 0; i < N; i++)
		cells[i][1] = (struct hopdiag_cell){ .sent = 3, .responder = HOPDIAG_NONE };
	hopdiag_rate_limits(paths, N);
	ok(!cells[0][1].rate_limited && !cells[7][1].rate_limited, "a silent hop (*) is not rate limited");
	is_int(hopdiag_find(paths, N, d), 0, "and is no finding");
}

static void test_loss(void)
{
	struct hopdiag d[HOPDIAG_MAX];
	unsigned int k;

	flat();
	/* path 5 loses from hop 2 on: 1 of 3 at hop 2 and at the destination */
	cells[5][1].received = 1;
	cells[5][2].received = 1;
	hopdiag_rate_limits(paths, N);
	ok(!cells[5][1].rate_limited, "a loss the hops after share is not a rate limit");
	k = hopdiag_find(paths, N, d);
	ok(k == 1 && d[0].kind == HOPDIAG_LOSS_FROM && d[0].ttl == 2 && d[0].paths == 1ULL << 5,
	   "loss_from hop 2 on path 6");
	ok(d[0].lost > 0.66 && d[0].lost < 0.67, "two thirds lost there");
}

int main(void)
{
	test_step();
	test_slow_answer();
	test_rate_limit();
	test_loss();
	return done_testing();
}
