/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/jitter.h: IPDV (RFC 5481) of consecutive packets only, each
 * pair once whatever order its delays come in (backward's T3 comes a
 * pong late), and RFC 3550's J computed as its A.8 code does, for the
 * round trip and each way.
 */
#include <math.h>

#include "jitter.h"
#include "metric.h"
#include "tap.h"

#define T0 1700000000000000000LL

/* A transaction: forward delay fwd, backward back, the reflector's 1 µs. */
static struct txrec rec_of(uint64_t seq, int64_t fwd, int64_t back)
{
	struct txrec r;
	int64_t t1 = T0 + (int64_t)seq * 1000000;

	txrec_clear(&r);
	r.seq = seq;
	r.t1_wire = t1;
	r.t2_wire = t1 + fwd;
	txrec_set_t3_wire(&r, t1 + fwd + 1000);
	txrec_set_t4_wire(&r, t1 + fwd + 1000 + back);
	return r;
}

/* A delay pattern with a lost seq (5) and a pair around it; each
 * record's two steps in turn, backward's a record late. */
static void test_pairs(void)
{
	static const int64_t fwd[] = { 0, 100, 130, 90, 90, 0, 300, 310, 200 };
	struct jitter *j = jitter_create(false);
	struct jitter_stats st;
	double want_j = 0;
	struct txrec r[9];

	if (!j)
		BAIL_OUT("jitter_create");
	for (uint64_t s = 1; s <= 8; s++)
		r[s] = rec_of(s, fwd[s], 50 * (int64_t)s);
	for (uint64_t s = 1; s <= 8; s++) {
		if (s != 5)	/* lost */
			jitter_sample(j, &r[s], METRIC_NO_T3);
		if (s > 1 && s - 1 != 5)
			jitter_sample(j, &r[s - 1], METRIC_T3);	/* the follow-up */
	}
	jitter_sample(j, &r[8], METRIC_T3);
	jitter_get(j, JITTER_FWD, &st);
	/* pairs (1,2) (2,3) (3,4) (6,7) (7,8): 30, -40, 0, 10, -110 */
	for (int i = 0; i < 5; i++) {
		static const double d[] = { 30, 40, 0, 10, 110 };

		want_j += (d[i] - want_j) / 16;
	}
	ok(st.pairs == 5 && st.min == -110 && st.max == 30 && st.abs_max == 110 &&
	   st.abs_p50 == 30, "fwd: 5 pairs of consecutive seqs (5 lost: none across it), range -110 to +30, |p50| 30");
	ok(fabs(st.rfc3550 - want_j) < 1e-9, "fwd: RFC 3550's J %.3f (want %.3f)", st.rfc3550, want_j);
	jitter_get(j, JITTER_BACK, &st);
	ok(st.pairs == 5 && st.min == 50 && st.max == 50, "back: a record late, the same 5 pairs, +50 each");
	jitter_get(j, JITTER_RTT, &st);
	ok(st.pairs == 5 && st.min == -60 && st.max == 80,
	   "rtt: the sum of both ways' (-60 to +80)");
	jitter_sample(j, &r[3], METRIC_NO_T3);
	jitter_get(j, JITTER_FWD, &st);
	is_u64(st.pairs, 5, "a seq sampled twice makes no pair again");
	jitter_destroy(j);
}

/* Delays that come in any order within the window pair up once each. */
static void test_order(void)
{
	struct jitter *j = jitter_create(false);
	struct jitter_stats st;
	struct txrec r;

	if (!j)
		BAIL_OUT("jitter_create");
	for (uint64_t k = 0; k < 100; k++) {
		uint64_t s = 1 + (k * 37) % 100;	/* a permutation of 1..100 */

		r = rec_of(s, (int64_t)s * 10, 0);
		jitter_sample(j, &r, METRIC_NO_T3);
	}
	jitter_get(j, JITTER_FWD, &st);
	ok(st.pairs == 99 && st.min == 10 && st.max == 10,
	   "a permutation of 100 seqs: 99 pairs, each +10");
	r = rec_of(100 + JITTER_WINDOW + 1, 0, 0);
	jitter_sample(j, &r, METRIC_NO_T3);
	r = rec_of(100 + JITTER_WINDOW + 2, 0, 0);
	jitter_sample(j, &r, METRIC_NO_T3);
	jitter_get(j, JITTER_FWD, &st);
	is_u64(st.pairs, 100, "far beyond the window: its own pair, no stale one");
	jitter_destroy(j);
}

int main(void)
{
	test_pairs();
	test_order();
	return done_testing();
}
