/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/hist.h: bucket edges, outliers, statistics and nearest-rank
 * percentiles, checked against a direct computation on a sorted copy.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hist.h"
#include "tap.h"

#define B 1000		/* bucket_ns of most tests */
#define O 100000	/* overflow_ns of most tests */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;	/* xorshift64 */

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* What hist.h says the percentile of rank r is, for bucket b, overflow o. */
static int64_t expect_pct(const int64_t *sorted, size_t n, uint64_t rank,
			  int64_t b, int64_t o)
{
	int64_t v = sorted[rank - 1];

	if (v < 0 || v >= o)
		return v;
	return clamp((v / b + 1) * b - 1, sorted[0], sorted[n - 1]);
}

/* HugePages_Free from /proc/meminfo, or 0. */
static long hugepages_free(void)
{
	char line[128];
	long n = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static void test_params(void)
{
	struct hist *h = hist_create(B, O, 16, false);

	if (!ok(h != NULL, "hist_create(1000, 100000, 16)"))
		BAIL_OUT("hist_create failed");
	is_int(hist_bucket_ns(h), B, "hist_bucket_ns");
	is_int(hist_overflow_ns(h), O, "hist_overflow_ns");
	is_u64(hist_nbuckets(h), O / B, "hist_nbuckets is overflow/bucket");
	if (h)
		hist_destroy(h);

	h = hist_create(1, 1, 1, false);
	ok(h != NULL, "hist_create(1, 1, 1): one bucket of 1 ns");
	if (h) {
		is_u64(hist_nbuckets(h), 1, "one bucket");
		hist_add(h, 0, 1);
		hist_add(h, 1, 2);
		is_u64(hist_bucket_count(h, 0), 1, "0 in bucket 0");
		is_u64(hist_overflow_count(h), 1, "1 is overflow");
		hist_destroy(h);
	}

	errno = 0;
	h = hist_create(B, O, 1, true);
	if (hugepages_free() >= 2)
		ok(h != NULL, "hist_create with hugepages asked, small (800 bytes)");
	else
		ok(h == NULL && errno == ENOMEM,
		   "hist_create with hugepages asked, small, no pool: NULL, ENOMEM");
	if (h)
		hist_destroy(h);
	/*
	 * -b 0.001 -o 1000: a million buckets, 8 MB, from the hugepage pool:
	 * works when the pool has room, else fails with ENOMEM (no silent
	 * fallback: -G asked for hugepages).
	 */
	errno = 0;
	h = hist_create(1, 1000000, 1000, true);
	if (hugepages_free() >= 5)
		ok(h != NULL, "hist_create(1, 1000000, hugepages) with %ld free hugepages",
		   hugepages_free());
	else
		ok(h == NULL && errno == ENOMEM,
		   "hist_create(1, 1000000, hugepages) without a pool: NULL, ENOMEM (%d)", errno);
	if (h) {
		hist_add(h, 999999, 1);
		is_u64(hist_bucket_count(h, 999999), 1, "last of a million buckets");
	}
	if (h)
		hist_destroy(h);
}

/* hist_create() with a bad argument, in a child in case it crashes. */
static void expect_create_fails(int64_t b, int64_t o, size_t cap,
				const char *what)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct hist *h;

		errno = 0;
		h = hist_create(b, o, cap, false);
		_exit(h ? 1 : errno ? 0 : 2);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "hist_create rejects %s: NULL with errno set", what);
	if (!WIFEXITED(status))
		diag("  child died with signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) == 1)
		diag("  hist_create returned a histogram");
	else if (WEXITSTATUS(status) == 2)
		diag("  NULL but errno not set");
}

static void test_create_rejects(void)
{
	expect_create_fails(0, O, 16, "bucket_ns 0");
	expect_create_fails(-1000, O, 16, "bucket_ns < 0");
	expect_create_fails(B, O + 1, 16, "overflow_ns not a multiple of bucket_ns");
	expect_create_fails(B, O, 0, "outlier_cap 0");
}

static void test_edges(void)
{
	struct hist *h = hist_create(B, O, 64, false);
	if (!h)
		BAIL_OUT("hist_create failed");
	struct hist_stats st;
	uint64_t total = 0;

	hist_add(h, 0, 1);
	hist_add(h, B - 1, 2);
	hist_add(h, B, 3);
	hist_add(h, 2 * B - 1, 4);
	hist_add(h, O - 1, 5);
	hist_add(h, O, 6);
	hist_add(h, -1, 7);
	hist_add(h, 4000000000000000000ll, 8);
	hist_add(h, -4000000000000000000ll, 9);
	is_u64(hist_bucket_count(h, 0), 2, "v = 0 and v = bucket_ns-1 in bucket 0");
	is_u64(hist_bucket_count(h, 1), 2,
	       "v = bucket_ns and v = 2*bucket_ns-1 in bucket 1");
	is_u64(hist_bucket_count(h, O / B - 1), 1,
	       "v = overflow_ns-1 in the last bucket");
	is_u64(hist_overflow_count(h), 2,
	       "v = overflow_ns and 4e18 counted as overflow");
	is_u64(hist_underflow_count(h), 2, "v = -1 and -4e18 counted as underflow");
	for (size_t i = 0; i < hist_nbuckets(h); i++)
		total += hist_bucket_count(h, i);
	is_u64(total, 5, "five samples in buckets in all");
	hist_get_stats(h, &st);
	is_u64(st.samples, 9, "samples 9");
	is_u64(st.outliers, 4, "outliers 4 (two above, two below)");
	is_u64(st.outliers_dropped, 0, "none dropped");
	ok(hist_exact(h), "hist_exact with room for every outlier");
	is_i64(st.min, -4000000000000000000ll, "min -4e18");
	is_u64(st.min_seq, 9, "min_seq");
	is_i64(st.max, 4000000000000000000ll, "max 4e18");
	is_u64(st.max_seq, 8, "max_seq");
	is_i64(hist_percentile(h, 100), 4000000000000000000ll,
	       "p100 is 4e18 exactly");
	is_i64(hist_percentile(h, 1), -4000000000000000000ll,
	       "p1 is -4e18 exactly");
	if (h)
		hist_destroy(h);

	/* Odd sizes: bucket 3, overflow 9. */
	h = hist_create(3, 9, 4, false);
	if (!h)
		BAIL_OUT("hist_create failed");
	hist_add(h, 2, 1);
	hist_add(h, 3, 2);
	hist_add(h, 8, 3);
	hist_add(h, 9, 4);
	is_u64(hist_bucket_count(h, 0), 1, "b=3: 2 in bucket 0");
	is_u64(hist_bucket_count(h, 1), 1, "b=3: 3 in bucket 1");
	is_u64(hist_bucket_count(h, 2), 1, "b=3: 8 in bucket 2");
	is_u64(hist_overflow_count(h), 1, "b=3,o=9: 9 is overflow");
	if (h)
		hist_destroy(h);
}

static void test_negative(void)
{
	struct hist *h = hist_create(B, O, 8, false);
	if (!h)
		BAIL_OUT("hist_create failed");
	struct hist_stats st;

	hist_add(h, -5, 1);
	hist_add(h, -123456789, 2);
	hist_add(h, 500, 3);
	is_u64(hist_underflow_count(h), 2, "two negative samples underflow");
	is_u64(hist_bucket_count(h, 0), 1, "500 in bucket 0");
	is_i64(hist_percentile(h, 30), -123456789,
	       "p30 (rank 1) is the negative sample, exact");
	is_i64(hist_percentile(h, 50), -5, "p50 (rank 2) is -5, exact");
	is_i64(hist_percentile(h, 100), 500,
	       "p100 (rank 3) is 500 (bucket top 999 clamped to max)");
	hist_get_stats(h, &st);
	is_i64(st.min, -123456789, "min negative");
	is_u64(st.min_seq, 2, "min_seq");
	is_i64(st.max, 500, "max");
	is_u64(st.max_seq, 3, "max_seq");
	is_dbl(st.avg, (-5.0 - 123456789.0 + 500.0) / 3, 1e-6, "avg with negatives");
	if (h)
		hist_destroy(h);
}

static void test_empty_and_single(void)
{
	struct hist *h = hist_create(B, O, 8, false);
	if (!h)
		BAIL_OUT("hist_create failed");
	struct hist_stats st;
	const double ps[] = { 0.001, 1, 50, 99.999, 100 };

	hist_get_stats(h, &st);
	is_u64(st.samples, 0, "no samples: samples 0");
	is_u64(st.outliers, 0, "no samples: outliers 0");
	is_i64(hist_percentile(h, 50), 0, "no samples: p50 is 0");
	is_i64(hist_percentile(h, 100), 0, "no samples: p100 is 0");
	ok(hist_exact(h), "no samples: exact");
	ok(isfinite(st.avg) && isfinite(st.stddev),
	   "no samples: avg and stddev are numbers (not NaN)");
	if (h)
		hist_destroy(h);

	h = hist_create(B, O, 8, false);
	if (!h)
		BAIL_OUT("hist_create failed");
	hist_add(h, 1500, 42);
	hist_get_stats(h, &st);
	is_u64(st.samples, 1, "single sample: samples 1");
	ok(st.min == 1500 && st.max == 1500, "single sample: min = max = 1500");
	ok(st.min_seq == 42 && st.max_seq == 42, "single sample: both seqs 42");
	is_dbl(st.avg, 1500, 1e-9, "single sample: avg");
	is_dbl(st.stddev, 0, 1e-9, "single sample: stddev 0");
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		is_i64(hist_percentile(h, ps[i]), 1500,
		       "single sample: p%g is the sample (clamped)", ps[i]);
	if (h)
		hist_destroy(h);

	h = hist_create(B, O, 8, false);
	hist_add(h, 250000, 7);
	is_i64(hist_percentile(h, 50), 250000, "single overflow sample: p50 exact");
	if (h)
		hist_destroy(h);
}

static void test_small_ranks(void)
{
	struct hist *h = hist_create(B, O, 8, false);

	/* One sample in each of buckets 1..4. */
	hist_add(h, 4500, 4);
	hist_add(h, 1500, 1);
	hist_add(h, 3500, 3);
	hist_add(h, 2500, 2);
	is_i64(hist_percentile(h, 0.0001), 1999, "n=4: p0.0001 is rank 1 -> 1999");
	is_i64(hist_percentile(h, 25), 1999, "n=4: p25 is rank 1 -> 1999");
	is_i64(hist_percentile(h, 25.1), 2999, "n=4: p25.1 is rank 2 -> 2999");
	is_i64(hist_percentile(h, 50), 2999, "n=4: p50 is rank 2 -> 2999");
	is_i64(hist_percentile(h, 75), 3999, "n=4: p75 is rank 3 -> 3999");
	is_i64(hist_percentile(h, 76), 4500,
	       "n=4: p76 is rank 4 -> 4999 clamped to max 4500");
	is_i64(hist_percentile(h, 100), 4500, "n=4: p100 is max");
	if (h)
		hist_destroy(h);

	/* Many samples in one bucket: the bucket's top, clamped to max. */
	h = hist_create(B, O, 8, false);
	for (int i = 0; i < 10; i++)
		hist_add(h, 7100 + i, (uint64_t)i);
	is_i64(hist_percentile(h, 50), 7109, "all in bucket 7: p50 clamped to max");
	hist_add(h, 9000, 10);
	is_i64(hist_percentile(h, 50), 7999, "bucket 7's top once max is beyond");
	if (h)
		hist_destroy(h);
}

static void test_stats(void)
{
	const int64_t v[] = { 12000, 13500, 11800, 250000, -300, 12999, 14000 };
	const size_t n = sizeof(v) / sizeof(v[0]);
	struct hist *h = hist_create(B, O, 16, false);
	struct hist_stats st;
	double sum = 0, var = 0, mean;

	for (size_t i = 0; i < n; i++) {
		hist_add(h, v[i], 100 + i);
		sum += (double)v[i];
	}
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += ((double)v[i] - mean) * ((double)v[i] - mean);
	var /= (double)n;
	hist_get_stats(h, &st);
	is_u64(st.samples, n, "samples");
	is_i64(st.min, -300, "min");
	is_u64(st.min_seq, 104, "min_seq is the seq passed with the min");
	is_i64(st.max, 250000, "max");
	is_u64(st.max_seq, 103, "max_seq is the seq passed with the max");
	is_dbl(st.avg, mean, 1e-6, "avg against a direct computation");
	is_dbl(st.stddev, sqrt(var), 1e-6,
	       "stddev is the population's (divides by n, not n-1)");
	is_u64(st.outliers, 2, "outliers: one above, one below");
	if (h)
		hist_destroy(h);
}

/*
 * A component across two clocks that disagree (PHC at the epoch, system
 * clock now) is about -1.7e18 ns with microseconds of jitter: avg and
 * stddev must survive that (no overflow, no cancellation).
 */
static void test_large_offset(void)
{
	const int64_t off = -1700000000000000000ll;
	const size_t n = 1000;
	struct hist *h = hist_create(B, O, 4, false);
	struct hist_stats st;
	double mean = 0, var = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t x = (int64_t)(i % 10) * 1000000;	/* 0..9 ms */

		hist_add(h, off + x, i);
		mean += (double)x;
	}
	mean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = (double)(i % 10) * 1e6 - mean;

		var += d * d;
	}
	var /= (double)n;
	hist_get_stats(h, &st);
	is_dbl(st.avg, (double)off + mean, 1e-9 * 1.7e18,
	       "avg of %zu samples near -1.7e18 ns (unsynced clocks)", n);
	is_dbl(st.stddev, sqrt(var), 0.01 * sqrt(var),
	       "stddev of samples near -1.7e18 ns with 0..9 ms spread is ~2.87 ms");
	is_u64(st.outliers_dropped, n - 4, "outliers beyond the store dropped");
	ok(!hist_exact(h), "not exact once outliers are dropped");
	if (h)
		hist_destroy(h);
}

static void test_outlier_store_full(void)
{
	struct hist *h = hist_create(B, O, 1, false);
	struct hist_stats st;

	hist_add(h, 5000, 1);
	hist_add(h, 200000, 2);
	ok(hist_exact(h), "cap 1, one outlier: exact");
	hist_get_stats(h, &st);
	is_u64(st.outliers_dropped, 0, "cap 1, one outlier: none dropped");
	hist_add(h, 300000, 3);
	ok(!hist_exact(h), "cap 1, two outliers: not exact");
	hist_get_stats(h, &st);
	is_u64(st.outliers_dropped, 1, "cap 1, two outliers: outliers_dropped 1");
	is_u64(st.outliers, 2, "cap 1, two outliers: outliers counts both");
	is_u64(hist_overflow_count(h), 2, "overflow count still counts both");
	is_i64(st.max, 300000, "max is exact though the store was full");
	is_u64(st.max_seq, 3, "max_seq of the dropped outlier");
	is_u64(st.samples, 3, "samples 3");
	if (h)
		hist_destroy(h);
}

/* A percentile asked, then more outliers, then asked again. */
static void test_resort(void)
{
	struct hist *h = hist_create(B, O, 16, false);

	hist_add(h, 500000, 1);
	hist_add(h, 400000, 2);
	is_i64(hist_percentile(h, 100), 500000, "p100 before more adds");
	is_i64(hist_percentile(h, 50), 400000, "p50 before more adds");
	hist_add(h, 450000, 3);
	hist_add(h, 100, 4);
	/* sorted: 100 400000 450000 500000 */
	is_i64(hist_percentile(h, 75), 450000,
	       "p75 sees an outlier added after the last percentile");
	is_i64(hist_percentile(h, 25), 999,
	       "p25 is the top of bucket 0 (the sample 100 is the min, not clamped)");
	is_i64(hist_percentile(h, 50), 400000, "p50 after more adds");
	if (h)
		hist_destroy(h);
}

static void test_random(void)
{
	/*
	 * n = 4999 keeps p/100*n away from whole numbers for every p below
	 * 100, so the rank does not hinge on floating-point rounding.
	 */
	const size_t n = 4999;
	const double ps[] = { 50, 90, 95, 99, 99.9, 99.99, 99.999, 100 };
	const uint64_t ranks[] = { 2500, 4500, 4750, 4950, 4995, 4999, 4999, 4999 };
	int64_t *v = calloc(n, sizeof(*v));
	int64_t *sorted = calloc(n, sizeof(*sorted));
	struct hist *h = hist_create(B, O, n, false);
	struct hist_stats st;
	size_t nover = 0, nunder = 0;
	double sum = 0, var = 0, mean;
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng();

		if (r % 100 < 3)		/* 3% above overflow */
			v[i] = O + (int64_t)(rng() % 5000000);
		else if (r % 100 < 5)		/* 2% negative */
			v[i] = -1 - (int64_t)(rng() % 50000);
		else				/* around 12 us */
			v[i] = 8000 + (int64_t)(rng() % 30000);
		/* the seq is i + 1000 */
		hist_add(h, v[i], i + 1000);
		sum += (double)v[i];
		nover += v[i] >= O;
		nunder += v[i] < 0;
	}
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_i64);
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += ((double)v[i] - mean) * ((double)v[i] - mean);
	var /= (double)n;

	hist_get_stats(h, &st);
	is_u64(st.samples, n, "random: samples");
	is_u64(hist_overflow_count(h), nover, "random: overflow count (%zu)", nover);
	is_u64(hist_underflow_count(h), nunder, "random: underflow count (%zu)",
	       nunder);
	is_u64(st.outliers, nover + nunder, "random: outliers");
	for (size_t i = 0; i < hist_nbuckets(h); i++)
		total += hist_bucket_count(h, i);
	is_u64(total + nover + nunder, n, "random: buckets + outliers = samples");
	is_i64(st.min, sorted[0], "random: min");
	is_i64(st.max, sorted[n - 1], "random: max");
	ok(st.min_seq >= 1000 && st.min_seq < 1000 + n &&
	   v[st.min_seq - 1000] == st.min, "random: min_seq is a seq of the min");
	ok(st.max_seq >= 1000 && st.max_seq < 1000 + n &&
	   v[st.max_seq - 1000] == st.max, "random: max_seq is a seq of the max");
	is_dbl(st.avg, mean, 1e-6 * fabs(mean), "random: avg");
	is_dbl(st.stddev, sqrt(var), 1e-6 * sqrt(var), "random: stddev");
	ok(hist_exact(h), "random: exact");

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t rank = (uint64_t)ceil(ps[i] / 100 * (double)n);
		int64_t want, got;

		if (rank != ranks[i])
			diag("rank of p%g computed as %llu", ps[i],
			     (unsigned long long)rank);
		want = expect_pct(sorted, n, ranks[i], B, O);
		got = hist_percentile(h, ps[i]);
		is_i64(got, want, "random: p%g (rank %llu, sample %lld%s)", ps[i],
		       (unsigned long long)ranks[i],
		       (long long)sorted[ranks[i] - 1],
		       sorted[ranks[i] - 1] < 0 || sorted[ranks[i] - 1] >= O ?
		       ", exact" : ", bucket top");
	}
	/* Every rank, through p chosen at its middle (rank - 0.5) / n. */
	{
		size_t bad = 0, first_bad = 0;

		for (uint64_t k = 1; k <= n; k++) {
			double p = ((double)k - 0.5) * 100 / (double)n;

			if (hist_percentile(h, p) != expect_pct(sorted, n, k, B, O) &&
			    !bad++)
				first_bad = k;
		}
		ok(bad == 0, "random: every rank 1..%zu right (%zu wrong, first %zu)",
		   n, bad, first_bad);
	}
	if (h)
		hist_destroy(h);

	/* The same samples with 250 ns buckets and a 50 us bound. */
	h = hist_create(250, 50000, n, false);
	for (size_t i = 0; i < n; i++)
		hist_add(h, v[i], i);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		is_i64(hist_percentile(h, ps[i]),
		       expect_pct(sorted, n, ranks[i], 250, 50000),
		       "random, b=250 o=50000: p%g", ps[i]);
	if (h)
		hist_destroy(h);
	free(v);
	free(sorted);
}

int main(void)
{
	test_params();
	test_edges();
	test_negative();
	test_empty_and_single();
	test_small_ranks();
	test_stats();
	test_outlier_store_full();
	test_resort();
	test_random();
	test_create_rejects();
	test_large_offset();	/* last: may trip UBSan in a broken build */
	return done_testing();
}
