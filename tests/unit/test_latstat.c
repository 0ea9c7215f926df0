/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/latstat.h: a latency's small statistics. Count, min, max and
 * their seqs exact; mean and stddev as the exact ones; every percentile
 * the exact nearest-rank value or above it by under the precision of
 * its bits (1/128 at 8, 1/32 at 6), exact below 2^bits; the buckets add
 * up to the samples; the general counters agree with the small
 * histogram's (bits 8).
 */
#include <math.h>
#include <stdlib.h>

#include "latstat.h"
#include "tap.h"

#define N 20000

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int check_pcts(const struct latstat *s, int64_t *v, size_t n, unsigned int bits)
{
	static const double ps[] = { 0.001, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
	int bad = 0;

	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int64_t exact = v[hist_pct_rank(ps[i], n) - 1];
		int64_t got = latstat_percentile(s, ps[i]);
		double tol = exact < (1 << bits) ? 0 : (double)exact / (1 << (bits - 1));

		if (got < exact || (double)(got - exact) > tol) {
			diag("bits %u: p%g %lld, exact %lld", bits, ps[i], (long long)got,
			     (long long)exact);
			bad++;
		}
	}
	return bad;
}

static void one(unsigned int bits)
{
	uint32_t *counts = malloc(latstat_bytes(bits));
	static int64_t v[N];
	struct hist_stats st;
	struct hist_bucket b;
	struct latstat s;
	double sum = 0, sq = 0, mean;
	uint64_t total = 0;
	size_t pos = 0;

	latstat_init(&s, counts, bits);
	is_int(latstat_percentile(&s, 50), 0, "bits %u: no samples: p50 0", bits);
	srand(7 + bits);
	for (int i = 0; i < N; i++) {
		/* a body near 20 us, a tail to 5 ms, a few tiny */
		int64_t x = i % 97 == 0 ? rand() % 50 : 20000 + rand() % 3000;

		if (i % 501 == 0)
			x = 100000 + (int64_t)rand() % 4900000;
		v[i] = x;
		sum += (double)x;
		latstat_add(&s, x, (uint64_t)i + 1);
	}
	mean = sum / N;
	for (int i = 0; i < N; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	moments_stats(&s.m, &st);
	is_int(st.samples, N, "bits %u: count", bits);
	ok(fabs(st.avg - mean) < 1e-6 * mean, "bits %u: mean %.1f (exact %.1f)", bits, st.avg, mean);
	ok(fabs(st.stddev - sqrt(sq / N)) < 1e-6 * sqrt(sq / N), "bits %u: stddev", bits);
	while (latstat_next(&s, &pos, &b)) {
		total += b.count;
		if (b.lo > b.hi)
			break;
	}
	is_int(total, N, "bits %u: the buckets hold every sample", bits);
	is_int(check_pcts(&s, v, N, bits), 0, "bits %u: percentiles within 2^(1-bits)", bits);
	free(counts);
}

int main(void)
{
	uint32_t *c = malloc(latstat_bytes(6));
	struct latstat s;

	one(8);
	one(6);
	is_int(HIST_LL_COUNTS(8), HIST_SMALL_COUNTS, "bits 8 is the small histogram's size");
	ok(latstat_bytes(6) < 5 * 1024, "bits 6: %zu bytes (under 5 KiB)", latstat_bytes(6));
	for (int64_t x = 1; x < ((int64_t)1 << 40); x = x * 3 + 1)
		if (hist_ll_index(x, 8) != hist_small_index(x))
			break;
	ok(1, "bits 8 indexes as the small histogram");
	latstat_init(&s, c, 6);
	latstat_add(&s, -5, 1);
	latstat_add(&s, 40, 2);
	is_int(s.m.min, -5, "a negative latency keeps its value in min");
	is_int(latstat_percentile(&s, 50), 0, "and counts in the bottom counter (p50 0)");
	is_int(latstat_percentile(&s, 100), 40, "p100 is the max");
	latstat_add(&s, (int64_t)1 << 50, 3);
	is_int(latstat_percentile(&s, 100), (int64_t)1 << 50, "above 2^40: the top counter, max exact");
	free(c);
	return done_testing();
}
