/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/sweepstat.h: one metric at one size of a sweep. Its count, min,
 * max and seqs are exact, mean and stddev match the exact ones, and
 * every percentile of values of both signs is the exact nearest-rank
 * value or above it by under 0.8% (exact below 256 ns of magnitude).
 */
#include <math.h>
#include <stdlib.h>

#include "sweepstat.h"
#include "tap.h"

#define N 20000

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Percentiles of v[n] against the exact ones; the count of misses. */
static int check_pcts(const struct sweepstat *s, int64_t *v, size_t n, const char *what)
{
	static const double ps[] = { 0.001, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
	int bad = 0;

	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int64_t exact = v[hist_pct_rank(ps[i], n) - 1];
		int64_t got = sweepstat_percentile(s, ps[i]);
		int64_t mag = exact < 0 ? -exact : exact;
		double tol = mag < 256 ? 0 : (double)mag / 128;

		if (got < exact || (double)(got - exact) > tol) {
			diag("%s: p%g %lld, exact %lld", what, ps[i], (long long)got,
			     (long long)exact);
			bad++;
		}
	}
	return bad;
}

static void test_signed(void)
{
	struct sweepstat *s = sweepstat_create(false);
	static int64_t v[N];
	struct hist_stats st;
	double sum = 0, sq = 0, avg;

	if (!s)
		BAIL_OUT("sweepstat_create");
	srand(7);
	for (size_t i = 0; i < N; i++) {
		/* one-way delays across clocks 3 us apart: both signs */
		v[i] = (int64_t)(rand() % 9000) - 3000 + (i % 97 == 0 ? 400000 : 0);
		sweepstat_add(s, v[i], 100 + i);
		sum += (double)v[i];
	}
	avg = sum / N;
	for (size_t i = 0; i < N; i++)
		sq += ((double)v[i] - avg) * ((double)v[i] - avg);
	sweepstat_stats(s, &st);
	is_u64(st.samples, N, "count");
	is_dbl(st.avg, avg, 1e-6, "mean");
	is_dbl(st.stddev, sqrt(sq / N), 1e-6, "stddev");
	is_int(check_pcts(s, v, N, "signed"), 0, "percentiles of both signs: never below, within 0.8%%");
	is_i64(sweepstat_percentile(s, 100), st.max, "p100 is the max");
	ok(st.min < 0 && st.min_seq >= 100 && v[0] == st.min, "min exact with its seq");
	sweepstat_destroy(s, false);
}

static void test_one_sign(void)
{
	struct sweepstat *s = sweepstat_create(false), *z = sweepstat_create(false);
	static int64_t v[N];

	if (!s || !z)
		BAIL_OUT("sweepstat_create");
	for (size_t i = 0; i < N; i++) {
		v[i] = 5000 + (int64_t)(i * 7919 % 100000);
		sweepstat_add(s, v[i], i);
	}
	is_int(check_pcts(s, v, N, "positive"), 0, "positive percentiles within 0.8%%");
	for (size_t i = 0; i < 100; i++) {
		v[i] = -(int64_t)(i * 37 + 1);
		sweepstat_add(z, v[i], i);
	}
	is_int(check_pcts(z, v, 100, "negative"), 0, "negative only: exact below 256 ns, else within 0.8%%");
	is_i64(sweepstat_percentile(z, 100), -1, "negative only: p100 is the max, -1");
	sweepstat_destroy(s, false);
	sweepstat_destroy(z, false);
}

static void test_empty(void)
{
	struct sweepstat *s = sweepstat_create(false);
	struct hist_stats st;

	if (!s)
		BAIL_OUT("sweepstat_create");
	sweepstat_stats(s, &st);
	ok(st.samples == 0 && st.avg == 0 && sweepstat_percentile(s, 50) == 0,
	   "empty: no samples, percentiles 0");
	sweepstat_add(s, 1234567, 9);
	sweepstat_stats(s, &st);
	ok(st.min == 1234567 && st.max == 1234567 && st.stddev == 0 &&
	   sweepstat_percentile(s, 50) == 1234567, "one sample: every figure is it");
	sweepstat_destroy(s, false);
}

int main(void)
{
	test_signed();
	test_one_sign();
	test_empty();
	return done_testing();
}
