/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/hist.h: the linear histogram's edges, the log-linear scheme's
 * buckets (boundaries, exact below 2048 ns, negatives, the whole int64
 * range), nearest-rank percentiles within 0.1% checked against a sorted
 * copy, and the statistics.
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

/*
 * The scheme, written another way than hist.c: a magnitude m below 2048
 * is its own bucket; above, buckets are 2^(floor(log2 m) - 10) wide and
 * aligned to their width. v < 0 goes by m = -v - 1.
 */
static void ref_bucket(int64_t v, int64_t *lo, int64_t *hi)
{
	uint64_t m = v < 0 ? (uint64_t)(-(v + 1)) : (uint64_t)v;
	uint64_t w = 1, mlo, mhi;
	int bits = 0;

	while (bits < 64 && (m >> bits) > 1)
		bits++;			/* bits = floor(log2 m) */
	if (m >= 2048)
		w = (uint64_t)1 << (bits - 10);
	mlo = m / w * w;
	mhi = mlo + (w - 1);
	if (v < 0) {
		*lo = -(int64_t)mhi - 1;
		*hi = -(int64_t)mlo - 1;
	} else {
		*lo = (int64_t)mlo;
		*hi = (int64_t)mhi;
	}
}

/* What hist.h says the percentile of rank r of sorted[0..n) is. */
static int64_t expect_pct(const int64_t *sorted, size_t n, uint64_t rank)
{
	int64_t lo, hi;

	ref_bucket(sorted[rank - 1], &lo, &hi);
	return hi > sorted[n - 1] ? sorted[n - 1] : hi;
}

/* The 0.1% promise: never below, above by < 1/1024 of |v|, exact in [-2048, 2047]. */
static bool within_precision(int64_t got, int64_t exact)
{
	__int128 d = (__int128)got - exact;
	__int128 mag = exact < 0 ? -(__int128)exact : exact;

	if (exact >= -2048 && exact < 2048)
		return d == 0;
	return d >= 0 && d * 1000 <= mag;
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

static struct hist *must_create(int64_t b, int64_t o)
{
	struct hist *h = hist_create(b, o, false);

	if (!h)
		BAIL_OUT("hist_create failed");
	return h;
}

/* The one log-linear bucket of a histogram holding only v's. */
static bool only_bucket(int64_t v, int64_t *lo, int64_t *hi)
{
	struct hist *h = must_create(B, O);
	struct hist_bucket b;
	size_t pos = 0;
	bool one;

	hist_add(h, v, 1);
	hist_add(h, v, 2);
	one = hist_hdr_next(h, &pos, &b) && b.count == 2 &&
	      !hist_hdr_next(h, &pos, &b);
	*lo = b.lo;
	*hi = b.hi;
	hist_destroy(h);
	return one;
}

static void test_params(void)
{
	struct hist *h = hist_create(B, O, false);

	if (!ok(h != NULL, "hist_create(1000, 100000)"))
		BAIL_OUT("hist_create failed");
	is_int(hist_bucket_ns(h), B, "hist_bucket_ns");
	is_int(hist_overflow_ns(h), O, "hist_overflow_ns");
	is_u64(hist_nbuckets(h), O / B, "hist_nbuckets is overflow/bucket");
	hist_destroy(h);

	h = hist_create(1, 1, false);
	ok(h != NULL, "hist_create(1, 1): one bucket of 1 ns");
	if (h) {
		is_u64(hist_nbuckets(h), 1, "one bucket");
		hist_add(h, 0, 1);
		hist_add(h, 1, 2);
		is_u64(hist_bucket_count(h, 0), 1, "0 in bucket 0");
		is_u64(hist_overflow_count(h), 1, "1 is overflow");
		hist_destroy(h);
	}

	/* Linear buckets and the log-linear counters: one 2 MiB page each. */
	errno = 0;
	h = hist_create(B, O, true);
	if (hugepages_free() >= 2)
		ok(h != NULL, "hist_create with hugepages asked, small");
	else
		ok(h == NULL && errno == ENOMEM,
		   "hist_create with hugepages asked, no pool: NULL, ENOMEM");
	if (h)
		hist_destroy(h);
	/*
	 * -b 0.001 -o 1000: a million buckets, 8 MB, from the hugepage pool:
	 * works when the pool has room, else fails with ENOMEM (no silent
	 * fallback: -G asked for hugepages).
	 */
	errno = 0;
	h = hist_create(1, 1000000, true);
	if (hugepages_free() >= 5)
		ok(h != NULL, "hist_create(1, 1000000, hugepages) with %ld free hugepages",
		   hugepages_free());
	else
		ok(h == NULL && errno == ENOMEM,
		   "hist_create(1, 1000000, hugepages) without a pool: NULL, ENOMEM (%d)", errno);
	if (h) {
		hist_add(h, 999999, 1);
		is_u64(hist_bucket_count(h, 999999), 1, "last of a million buckets");
		hist_destroy(h);
	}
}

/* hist_create() with a bad argument, in a child in case it crashes. */
static void expect_create_fails(int64_t b, int64_t o, const char *what)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct hist *h;

		errno = 0;
		h = hist_create(b, o, false);
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
	expect_create_fails(0, O, "bucket_ns 0");
	expect_create_fails(-1000, O, "bucket_ns < 0");
	expect_create_fails(B, O + 1, "overflow_ns not a multiple of bucket_ns");
	expect_create_fails(B, B - 1, "overflow_ns below bucket_ns");
}

/* The linear histogram: edges, overflow, underflow. */
static void test_linear_edges(void)
{
	struct hist *h = must_create(B, O);
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
	is_u64(hist_bucket_count(h, O / B), 0, "no bucket past the last");
	hist_destroy(h);

	/* Odd sizes: bucket 3, overflow 9. */
	h = must_create(3, 9);
	hist_add(h, 2, 1);
	hist_add(h, 3, 2);
	hist_add(h, 8, 3);
	hist_add(h, 9, 4);
	is_u64(hist_bucket_count(h, 0), 1, "b=3: 2 in bucket 0");
	is_u64(hist_bucket_count(h, 1), 1, "b=3: 3 in bucket 1");
	is_u64(hist_bucket_count(h, 2), 1, "b=3: 8 in bucket 2");
	is_u64(hist_overflow_count(h), 1, "b=3,o=9: 9 is overflow");
	hist_destroy(h);
}

/* The log-linear buckets at the scheme's boundaries. */
static void test_hdr_boundaries(void)
{
	static const struct {
		int64_t v, lo, hi;
	} cases[] = {
		{ 0, 0, 0 },
		{ 1, 1, 1 },
		{ 1023, 1023, 1023 },
		{ 1024, 1024, 1024 },
		{ 2047, 2047, 2047 },		/* last exact value */
		{ 2048, 2048, 2049 },		/* first 2 ns bucket */
		{ 2049, 2048, 2049 },
		{ 4095, 4094, 4095 },
		{ 4096, 4096, 4099 },		/* first 4 ns bucket */
		{ 1000000, 999936, 1000447 },	/* 1 ms: 512 ns buckets */
		{ 1048575, 1048064, 1048575 },
		{ 1048576, 1048576, 1049599 },
		{ -1, -1, -1 },
		{ -2048, -2048, -2048 },	/* last exact negative */
		{ -2049, -2050, -2049 },
		{ -2050, -2050, -2049 },
		{ -4097, -4100, -4097 },
		{ INT64_MAX, (int64_t)2047 << 52, INT64_MAX },
		{ INT64_MIN, INT64_MIN, ~((int64_t)2047 << 52) },
		{ (int64_t)1 << 62, (int64_t)1 << 62, ((int64_t)1 << 62) + ((int64_t)1 << 52) - 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t lo = 0, hi = 0;
		bool one = only_bucket(cases[i].v, &lo, &hi);

		ok(one && lo == cases[i].lo && hi == cases[i].hi,
		   "bucket of %lld is [%lld, %lld]", (long long)cases[i].v,
		   (long long)cases[i].lo, (long long)cases[i].hi);
		if (!one || lo != cases[i].lo || hi != cases[i].hi)
			diag("  got [%lld, %lld]%s", (long long)lo, (long long)hi,
			     one ? "" : " (not one bucket)");
	}
}

/* Every power of two and its neighbours, both signs, against ref_bucket. */
static void test_hdr_powers(void)
{
	size_t bad = 0;
	long long first = 0;

	for (int k = 0; k < 63; k++) {
		int64_t p = (int64_t)1 << k;
		int64_t vs[] = { p - 1, p, p + 1, -p, -p - 1, -p + 1 };

		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
			int64_t lo, hi, rlo, rhi;

			ref_bucket(vs[i], &rlo, &rhi);
			if ((!only_bucket(vs[i], &lo, &hi) || lo != rlo || hi != rhi) &&
			    !bad++)
				first = (long long)vs[i];
		}
	}
	ok(bad == 0, "buckets of 2^k - 1, 2^k, 2^k + 1 and their negatives, k < 63, as the scheme says (%zu wrong, first %lld)",
	   bad, first);
}

/* A log-uniform magnitude in [0, 2^62), random sign. */
static int64_t random_value(void)
{
	int bits = (int)(rng() % 63);
	int64_t m = bits ? (int64_t)(rng() >> (64 - bits)) : 0;

	return rng() & 1 ? -m - 1 : m;
}

/*
 * Random values across magnitudes: the buckets tile, ascend, are no
 * wider than the scheme allows, and hold exactly the samples in their
 * range; every percentile is within 0.1% of the exact one (and exact
 * below 2048), and is what hist.h says.
 */
static void test_hdr_random(void)
{
	const size_t n = 200003;
	int64_t *v = calloc(n, sizeof(*v));
	struct hist *h = must_create(B, O);
	struct hist_bucket b;
	size_t pos = 0, j = 0, nb = 0, bad_count = 0, bad_width = 0, bad_order = 0;
	size_t bad_prec = 0, bad_rule = 0;
	int64_t prev_hi = 0;
	uint64_t total = 0;
	double worst = 0;

	if (!v)
		BAIL_OUT("calloc");
	for (size_t i = 0; i < n; i++) {
		v[i] = random_value();
		hist_add(h, v[i], i);
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	while (hist_hdr_next(h, &pos, &b)) {
		uint64_t c = 0;
		int64_t rlo, rhi;

		if (nb++ && b.lo <= prev_hi)
			bad_order++;
		prev_hi = b.hi;
		ref_bucket(b.lo, &rlo, &rhi);
		if (rlo != b.lo || rhi != b.hi)
			bad_width++;
		while (j < n && v[j] < b.lo)
			j++;
		while (j < n && v[j] <= b.hi) {
			c++;
			j++;
		}
		if (c != b.count || !c)
			bad_count++;
		total += b.count;
	}
	is_u64(total, n, "random: log-linear counts add up to the samples");
	ok(bad_order == 0, "random: %zu buckets ascend without overlap (%zu not)", nb,
	   bad_order);
	ok(bad_width == 0, "random: every bucket as the scheme draws it (%zu not)", bad_width);
	ok(bad_count == 0, "random: every bucket holds exactly the samples in [lo, hi] (%zu not)",
	   bad_count);

	for (uint64_t k = 1; k <= n; k += 1 + k / 50) {
		/* p at the middle of rank k: no rounding at the edge */
		double p = ((double)k - 0.5) * 100 / (double)n;
		int64_t got = hist_percentile(h, p), exact = v[k - 1];

		if (!within_precision(got, exact))
			bad_prec++;
		if (got != expect_pct(v, n, k))
			bad_rule++;
		if (exact > 2048 || exact < -2048) {
			double rel = fabs(((double)got - (double)exact) / (double)exact);

			if (rel > worst)
				worst = rel;
		}
	}
	ok(bad_prec == 0, "random: percentiles within 0.1%% of the exact nearest rank, exact below 2048 (%zu not)",
	   bad_prec);
	ok(bad_rule == 0, "random: percentiles are the bucket's top clamped to max (%zu not)",
	   bad_rule);
	ok(worst < 1.0 / 1024, "random: worst relative error %.6f%% < 1/1024", worst * 100);
	is_i64(hist_percentile(h, 100), v[n - 1], "random: p100 is max");
	hist_destroy(h);
	free(v);
}

/* Each magnitude decade on its own, as a run's RTTs would be. */
static void test_hdr_decades(void)
{
	const size_t n = 9999;
	const double ps[] = { 50, 90, 95, 99, 99.9, 99.99, 99.999 };
	int64_t *v = calloc(n, sizeof(*v));
	size_t bad = 0;

	if (!v)
		BAIL_OUT("calloc");
	for (int64_t base = 1; base > 0; base = base <= INT64_MAX / 10 ? base * 10 : 0) {
		struct hist *h = must_create(B, O);
		/* the last decade ends at INT64_MAX */
		uint64_t span = base <= INT64_MAX / 10 ? (uint64_t)(9 * base) :
			(uint64_t)(INT64_MAX - base);

		for (size_t i = 0; i < n; i++) {
			v[i] = base + (int64_t)(rng() % span);
			hist_add(h, v[i], i);
		}
		qsort(v, n, sizeof(*v), cmp_i64);
		for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			uint64_t k = (uint64_t)ceil(ps[i] / 100 * (double)n);
			int64_t got = hist_percentile(h, ps[i]);

			if (!within_precision(got, v[k - 1])) {
				if (!bad++)
					diag("  from %lld: p%g %lld, exact %lld",
					     (long long)base, ps[i],
					     (long long)got, (long long)v[k - 1]);
			}
		}
		hist_destroy(h);
	}
	ok(bad == 0, "every decade 1 ns .. INT64_MAX: the seven percentiles within 0.1%% (%zu not)",
	   bad);
	free(v);
}

/* Every rank of values in [-2048, 2047] is reported exactly. */
static void test_exact_below_2048(void)
{
	const size_t n = 4000;	/* p = k / 40 is rank k exactly */
	int64_t *v = calloc(n, sizeof(*v));
	struct hist *h = must_create(B, O);
	size_t bad = 0, first = 0;

	if (!v)
		BAIL_OUT("calloc");
	for (size_t i = 0; i < n; i++) {
		v[i] = -2048 + (int64_t)(rng() % 4096);
		hist_add(h, v[i], i);
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t k = 1; k <= n; k++)
		if (hist_percentile(h, (double)k / 40) != v[k - 1] && !bad++)
			first = k;
	ok(bad == 0, "values in [-2048, 2047]: every one of %zu ranks exact (%zu not, first %zu)",
	   n, bad, first);
	hist_destroy(h);
	free(v);
}

static void test_nearest_rank(void)
{
	struct hist *h = must_create(B, O);

	/* Inserted out of order: the rank is over sorted values. */
	hist_add(h, 1500, 4);
	hist_add(h, 4500, 1);
	hist_add(h, 500, 3);
	hist_add(h, 2500, 2);
	is_i64(hist_percentile(h, 0.0001), 500, "n=4: p0.0001 is rank 1: 500");
	is_i64(hist_percentile(h, 25), 500, "n=4: p25 is rank 1: 500");
	is_i64(hist_percentile(h, 25.1), 1500, "n=4: p25.1 is rank 2: 1500, exact");
	is_i64(hist_percentile(h, 50), 1500, "n=4: p50 is rank 2");
	is_i64(hist_percentile(h, 75), 2501, "n=4: p75 is rank 3: 2500's bucket [2500, 2501] top");
	is_i64(hist_percentile(h, 76), 4500,
	       "n=4: p76 is rank 4: bucket [4500, 4503] clamped to max 4500");
	is_i64(hist_percentile(h, 100), 4500, "n=4: p100 is max");
	hist_destroy(h);

	/* 99.9 of 1000 is rank 999, not 1000 (rank in integers) */
	h = must_create(B, O);
	for (int64_t i = 1; i <= 1000; i++)
		hist_add(h, i, (uint64_t)i);
	is_i64(hist_percentile(h, 99.9), 999, "1..1000: p99.9 is rank 999");
	is_i64(hist_percentile(h, 99.99), 1000, "1..1000: p99.99 is rank 1000");
	is_i64(hist_percentile(h, 50), 500, "1..1000: p50 is rank 500");
	is_i64(hist_percentile(h, 0.1), 1, "1..1000: p0.1 is rank 1");
	hist_destroy(h);

	/* the top of a bucket, clamped to max only when max is inside it */
	h = must_create(B, O);
	for (int i = 0; i < 10; i++)
		hist_add(h, 7100 + i, (uint64_t)i);	/* 4 ns buckets */
	is_i64(hist_percentile(h, 50), 7107, "7100..7109: p50 (7104) is bucket [7104, 7107]'s top");
	is_i64(hist_percentile(h, 100), 7109, "7100..7109: p100 is bucket [7108, 7111] clamped to 7109");
	hist_destroy(h);
}

static void test_negative(void)
{
	struct hist *h = must_create(B, O);
	struct hist_stats st;

	hist_add(h, -5, 1);
	hist_add(h, -123456789, 2);
	hist_add(h, 500, 3);
	is_u64(hist_underflow_count(h), 2, "two negative samples underflow");
	is_u64(hist_bucket_count(h, 0), 1, "500 in bucket 0");
	ok(within_precision(hist_percentile(h, 30), -123456789),
	   "p30 (rank 1) %lld within 0.1%% of -123456789", (long long)hist_percentile(h, 30));
	is_i64(hist_percentile(h, 50), -5, "p50 (rank 2) is -5, exact");
	is_i64(hist_percentile(h, 100), 500, "p100 (rank 3) is 500, exact");
	hist_get_stats(h, &st);
	is_i64(st.min, -123456789, "min negative, exact");
	is_u64(st.min_seq, 2, "min_seq");
	is_i64(st.max, 500, "max");
	is_u64(st.max_seq, 3, "max_seq");
	is_dbl(st.avg, (-5.0 - 123456789.0 + 500.0) / 3, 1e-6, "avg with negatives");
	hist_destroy(h);
}

/* The extremes of int64: counted, ordered, no overflow anywhere. */
static void test_huge(void)
{
	struct hist *h = must_create(B, O);
	struct hist_stats st;
	struct hist_bucket b;
	size_t pos = 0;

	hist_add(h, INT64_MIN, 1);
	hist_add(h, INT64_MAX, 2);
	hist_add(h, 0, 3);
	hist_add(h, 4000000000000000000ll, 4);
	hist_get_stats(h, &st);
	is_i64(st.min, INT64_MIN, "min INT64_MIN, exact");
	is_i64(st.max, INT64_MAX, "max INT64_MAX, exact");
	ok(within_precision(hist_percentile(h, 25), INT64_MIN),
	   "p25 within 0.1%% of INT64_MIN (%lld)", (long long)hist_percentile(h, 25));
	is_i64(hist_percentile(h, 50), 0, "p50 is 0");
	ok(within_precision(hist_percentile(h, 75), 4000000000000000000ll),
	   "p75 within 0.1%% of 4e18 (%lld)", (long long)hist_percentile(h, 75));
	is_i64(hist_percentile(h, 100), INT64_MAX, "p100 INT64_MAX (clamped to max)");
	ok(hist_hdr_next(h, &pos, &b) && b.lo == INT64_MIN && b.count == 1,
	   "first log-linear bucket starts at INT64_MIN");
	ok(hist_hdr_next(h, &pos, &b) && b.lo == 0 && b.hi == 0,
	   "then [0, 0]");
	ok(hist_hdr_next(h, &pos, &b) && b.lo <= 4000000000000000000ll &&
	   b.hi >= 4000000000000000000ll, "then 4e18's");
	ok(hist_hdr_next(h, &pos, &b) && b.hi == INT64_MAX && !hist_hdr_next(h, &pos, &b),
	   "last ends at INT64_MAX, then no more");
	hist_destroy(h);
}

static void test_empty_and_single(void)
{
	struct hist *h = must_create(B, O);
	struct hist_stats st;
	struct hist_bucket b;
	const double ps[] = { 0.001, 1, 50, 99.999, 100 };
	size_t pos = 0;

	hist_get_stats(h, &st);
	is_u64(st.samples, 0, "no samples: samples 0");
	is_i64(hist_percentile(h, 50), 0, "no samples: p50 is 0");
	is_i64(hist_percentile(h, 100), 0, "no samples: p100 is 0");
	ok(!hist_hdr_next(h, &pos, &b), "no samples: no log-linear bucket");
	ok(isfinite(st.avg) && isfinite(st.stddev),
	   "no samples: avg and stddev are numbers (not NaN)");
	hist_destroy(h);

	h = must_create(B, O);
	hist_add(h, 12345, 42);
	hist_get_stats(h, &st);
	is_u64(st.min_seq, 42, "single sample: min_seq");
	is_u64(st.max_seq, 42, "single sample: max_seq");
	is_dbl(st.stddev, 0, 0, "single sample: stddev 0");
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		is_i64(hist_percentile(h, ps[i]), 12345,
		       "single sample: p%g is the sample (clamped)", ps[i]);
	hist_destroy(h);
}

static void test_stats(void)
{
	const int64_t v[] = { 12000, 13500, 11800, 250000, -300, 12999, 14000 };
	const size_t n = sizeof(v) / sizeof(v[0]);
	struct hist *h = must_create(B, O);
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
	hist_destroy(h);
}

/*
 * A component across two clocks that disagree (PHC at the epoch, system
 * clock now) is about -1.7e18 ns with microseconds of jitter: avg and
 * stddev must survive that (no overflow, no cancellation), percentiles
 * stay within 0.1%.
 */
static void test_large_offset(void)
{
	const int64_t off = -1700000000000000000ll;
	const size_t n = 1000;
	struct hist *h = must_create(B, O);
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
	ok(within_precision(hist_percentile(h, 50), off + 4000000),
	   "p50 within 0.1%% of -1.7e18 + 4 ms");
	hist_destroy(h);
}

/* Percentiles do not depend on the linear buckets (-b, -o). */
static void test_independent_of_linear(void)
{
	const size_t n = 20011;
	const int64_t shapes[][2] = { { 1000, 100000 }, { 10, 1000 }, { 1, 1 }, { 250, 50000 } };
	const double ps[] = { 50, 90, 95, 99, 99.9, 99.99, 99.999, 100 };
	struct hist *h[4];
	size_t bad = 0;

	for (size_t s = 0; s < 4; s++)
		h[s] = must_create(shapes[s][0], shapes[s][1]);
	for (size_t i = 0; i < n; i++) {
		int64_t v = 5000 + (int64_t)(rng() % 3000);

		if (rng() % 100 == 0)
			v = 50000 + (int64_t)(rng() % 5000000);
		for (size_t s = 0; s < 4; s++)
			hist_add(h[s], v, i);
	}
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (size_t s = 1; s < 4; s++)
			bad += hist_percentile(h[s], ps[i]) != hist_percentile(h[0], ps[i]);
	ok(bad == 0, "the same percentiles with -b 1/-o 100, -b 0.01/-o 1, 1 ns/1 ns, 250 ns/50 us (%zu differ)",
	   bad);
	for (size_t s = 0; s < 4; s++)
		hist_destroy(h[s]);
}

/* Two halves merged equal one histogram fed every sample (--threads). */
static void test_merge(void)
{
	struct hist *all = hist_create(1000, 1000000, false);
	struct hist *a = hist_create(1000, 1000000, false);
	struct hist *b = hist_create(1000, 1000000, false);
	struct hist *other = hist_create(500, 1000000, false);
	struct hist_stats sa, sm;
	uint64_t x = 88172645463325252ull;
	size_t bad = 0;

	for (uint64_t i = 0; i < 20000; i++) {
		int64_t v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = (int64_t)(x % 3000000) - 1000;	/* under, in and over the buckets */
		hist_add(all, v, i);
		hist_add(i % 3 ? a : b, v, i);
	}
	ok(hist_merge(a, b) == 0, "merge of two of one shape");
	hist_get_stats(all, &sa);
	hist_get_stats(a, &sm);
	ok(sa.samples == sm.samples && sa.min == sm.min && sa.max == sm.max &&
	   sa.min_seq == sm.min_seq && sa.max_seq == sm.max_seq,
	   "merged: samples, min, max and their seqs as one histogram's");
	ok(fabs(sa.avg - sm.avg) < 1e-6 && fabs(sa.stddev - sm.stddev) < 1e-3,
	   "merged: mean %.6f and stddev %.6f as one's (%.6f, %.6f)", sm.avg, sm.stddev,
	   sa.avg, sa.stddev);
	for (double p = 0.1; p <= 100; p += 0.1)
		bad += hist_percentile(all, p) != hist_percentile(a, p);
	for (size_t i = 0; i < hist_nbuckets(all); i++)
		bad += hist_bucket_count(all, i) != hist_bucket_count(a, i);
	bad += hist_overflow_count(all) != hist_overflow_count(a);
	bad += hist_underflow_count(all) != hist_underflow_count(a);
	ok(bad == 0, "merged: every percentile and bucket as one's (%zu differ)", bad);
	ok(hist_merge(a, other) == -EINVAL, "merge of another bucket width refused");
	hist_destroy(all);
	hist_destroy(a);
	hist_destroy(b);
	hist_destroy(other);
}

int main(void)
{
	test_params();
	test_create_rejects();
	test_linear_edges();
	test_hdr_boundaries();
	test_hdr_powers();
	test_hdr_random();
	test_hdr_decades();
	test_exact_below_2048();
	test_nearest_rank();
	test_negative();
	test_huge();
	test_empty_and_single();
	test_stats();
	test_independent_of_linear();
	test_merge();
	test_large_offset();	/* last: may trip UBSan in a broken build */
	return done_testing();
}
