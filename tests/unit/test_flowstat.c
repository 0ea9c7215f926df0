/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/watch/flowstat.h: a flow's metric. Up to 16 values its percentiles
 * are exact; beyond, within 0.8% and never below; a spent pool leaves
 * the exact count, min, max, mean and says its percentiles are of the
 * first 16.
 */
#include <math.h>
#include <stdlib.h>

#include "flowstat.h"
#include "tap.h"

static const double pcts[] = { 50, 90, 99, 100 };

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t exact(int64_t *v, size_t n, double p)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[hist_pct_rank(p, n) - 1];
}

static void test_few(struct flowstat_pool *pool)
{
	int64_t v[FLOWSTAT_EXACT];
	struct flowstat s;
	struct flowstat_sum sum;
	int bad = 0;

	flowstat_init(&s);
	for (int i = 0; i < FLOWSTAT_EXACT; i++) {
		v[i] = 1000003 * ((i * 7) % 16 + 1);
		flowstat_add(&s, pool, v[i], (uint64_t)i + 1);
	}
	flowstat_sum(&s, pcts, 4, &sum);
	for (int i = 0; i < 4; i++)
		bad += sum.pct[i] != exact(v, FLOWSTAT_EXACT, pcts[i]);
	is_int(bad, 0, "16 values: exact percentiles");
	ok(!s.counts && !sum.partial, "... no counters taken");
	is_int(sum.st.min, 1000003, "min");
	is_u64(sum.st.max_seq, 10, "max's seq (the 10th value, 16 x)");
	is_dbl(sum.st.avg, 1000003 * 8.5, 1e-6, "mean");
	flowstat_release(&s, pool);
	flowstat_add(&s, pool, -5, 1);
	flowstat_sum(&s, pcts, 4, &sum);
	ok(sum.st.min == 0 && sum.pct[0] == 0, "a value below 0 counts as 0");
	flowstat_release(&s, pool);
}

static void test_many(struct flowstat_pool *pool)
{
	static int64_t v[5000];
	struct flowstat s;
	struct flowstat_sum sum;
	int bad = 0;

	flowstat_init(&s);
	srand(3);
	for (size_t i = 0; i < 5000; i++) {
		v[i] = 40000 + rand() % 100000 + (i % 50 == 0 ? 40000000 : 0);
		flowstat_add(&s, pool, v[i], i);
	}
	flowstat_sum(&s, pcts, 4, &sum);
	for (int i = 0; i < 4; i++) {
		int64_t e = exact(v, 5000, pcts[i]);

		if (sum.pct[i] < e || (double)(sum.pct[i] - e) > (double)e / 128) {
			diag("p%g %lld, exact %lld", pcts[i], (long long)sum.pct[i], (long long)e);
			bad++;
		}
	}
	is_int(bad, 0, "5000 values: percentiles within 0.8%%, never below");
	is_u64(flowstat_pool_used(pool), 1, "one counter array taken");
	flowstat_release(&s, pool);
	is_u64(flowstat_pool_used(pool), 0, "... and given back");
}

static void test_spent(void)
{
	struct flowstat_pool *pool = flowstat_pool_create(1);
	struct flowstat a, b;
	struct flowstat_sum sum;

	flowstat_init(&a);
	flowstat_init(&b);
	for (int i = 0; i < 40; i++) {
		flowstat_add(&a, pool, 10 + i, (uint64_t)i);
		flowstat_add(&b, pool, 10 + i, (uint64_t)i);
	}
	flowstat_sum(&b, pcts, 4, &sum);
	ok(a.counts && !b.counts && sum.partial, "a pool of one: the second flow is partial");
	ok(sum.st.samples == 40 && sum.st.max == 49 && sum.pct[3] == 25,
	   "... its count and max exact, its percentiles of the first 16 (max 25)");
	is_u64(flowstat_pool_peak(pool), 1, "peak 1");
	flowstat_release(&a, pool);
	flowstat_release(&b, pool);
	flowstat_pool_destroy(pool);
}

int main(void)
{
	struct flowstat_pool *pool = flowstat_pool_create(8);

	if (!pool)
		BAIL_OUT("flowstat_pool_create");
	test_few(pool);
	test_many(pool);
	test_spent();
	flowstat_pool_destroy(pool);
	return done_testing();
}
