/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histogram and statistics for one metric.
 *
 * Two histograms are kept of every sample:
 *
 * - The linear one the user asked for (-b, -o): buckets of bucket_ns from
 *   0 up to overflow_ns, plus a count above and a count below 0. It is
 *   what rant prints as "the histogram" (-H, JSON "histogram"), nothing
 *   is computed from it.
 *
 * - A log-linear one (HdrHistogram's scheme, 3 significant digits) from
 *   which every percentile is computed. A magnitude m below 2048 has a
 *   bucket of its own (1 ns); above, the range [2^k, 2^(k+1)) for k >= 11
 *   is split into 1024 buckets of 2^(k-10) ns, so a bucket is never wider
 *   than 1/1024 (under 0.1%) of the values in it. Negative values
 *   (components across unsynced clocks) are mirrored: v < 0 goes by the
 *   magnitude -v - 1, so [-2048, 2047] is exact. The whole int64 range is
 *   covered: 2 x 55296 64-bit counters, 864 KiB, allocated and touched at
 *   creation.
 *
 * hist_add() is O(1), allocates nothing, takes no lock and is safe in the
 * packet loop. min, max, their sequence numbers, avg and stddev are exact.
 *
 * Percentiles use the nearest rank: the p-th percentile of n samples is
 * the sample of rank ceil(p/100 * n) (1-based) in sorted order, the rank
 * computed in integers with p taken to six decimals (so 99.9 of 1000 is
 * rank 999, not 1000 by a rounding error). It is reported as the highest
 * value of the log-linear bucket that holds the sample of that rank,
 * clamped to [min, max]. So a percentile is never below the exact value,
 * above it by less than 1/1024 of it (0.1%), and exact when the value is
 * in [-2048, 2047] ns.
 */
#ifndef RANT_HIST_H
#define RANT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The log-linear histogram's precision, as the JSON states it. */
#define HIST_SIGNIFICANT_DIGITS 3
#define HIST_EXACT_BELOW_NS 2048

struct hist;

struct hist_stats {
	uint64_t samples;
	int64_t min, max;	/* ns */
	uint64_t min_seq, max_seq;
	double avg, stddev;	/* ns; stddev of the population */
};

/* One bucket of the log-linear histogram: values lo..hi (inclusive). */
struct hist_bucket {
	int64_t lo, hi;
	uint64_t count;
};

/*
 * bucket_ns >= 1, overflow_ns a multiple of bucket_ns (the linear
 * histogram). Memory is allocated and touched here; with hugepages it
 * comes from the hugepage pool (see mem.h: two 2 MiB pages), and an empty
 * pool is an error (ENOMEM), not a silent fallback. Returns NULL with
 * errno set.
 */
struct hist *hist_create(int64_t bucket_ns, int64_t overflow_ns,
			 bool hugepages);
void hist_destroy(struct hist *h);

void hist_add(struct hist *h, int64_t v_ns, uint64_t seq);
/*
 * src's samples added into dst, as if each had been hist_add()ed there:
 * the buckets, min and max exactly, the mean's sums exactly. 0, or
 * -EINVAL when the two differ in bucket_ns or overflow_ns.
 */
int hist_merge(struct hist *dst, const struct hist *src);

void hist_get_stats(const struct hist *h, struct hist_stats *st);
/*
 * The p-th percentile (0 < p <= 100), as above; 0 with no samples.
 * Scans the log-linear histogram: not for the packet loop.
 */
int64_t hist_percentile(const struct hist *h, double p);
/* The rank (1-based) of the p-th percentile of n >= 1 samples, by the
 * rule above, computed in integers. */
uint64_t hist_pct_rank(double p, uint64_t n);
/*
 * The non-empty log-linear buckets in ascending order: start with
 * *pos = 0 and call until it returns false. Their counts add up to the
 * samples.
 */
bool hist_hdr_next(const struct hist *h, size_t *pos, struct hist_bucket *b);

/* The linear histogram. */
int64_t hist_bucket_ns(const struct hist *h);
int64_t hist_overflow_ns(const struct hist *h);
size_t hist_nbuckets(const struct hist *h);
/* Samples in bucket i, [i * bucket_ns, (i + 1) * bucket_ns). */
uint64_t hist_bucket_count(const struct hist *h, size_t i);
/* Samples at or above overflow_ns. */
uint64_t hist_overflow_count(const struct hist *h);
/* Samples below 0 (possible for components across unsynced clocks). */
uint64_t hist_underflow_count(const struct hist *h);

/*
 * A small log-linear histogram for short spans (one interval of the
 * interval reports, series.h): HIST_SMALL_COUNTS 32-bit counters in
 * memory the caller owns, so many fit in a preallocated ring. Values
 * 0..255 ns have a bucket each; above, each power of two is split into
 * 128 buckets (a bucket is under 1/128, 0.8%, of the values in it).
 * Negative values count as 0, values of 2^40 ns (18 min) and more in the
 * top bucket. The percentile rule is hist_percentile's (nearest rank,
 * the highest value of its bucket, clamped to [min, max]), so a
 * percentile is never below the exact value and above it by under 0.8%.
 */
#define HIST_SMALL_COUNTS (34 << 7)
#define HIST_SMALL_BITS 8

/* The counter of v: O(1), for the packet loop. */
size_t hist_small_index(int64_t v);
/* The lowest and highest value counted in counter i. */
void hist_small_bounds(size_t i, int64_t *lo, int64_t *hi);
/* The p-th percentile of n samples in counts whose exact min and max are
 * known; 0 with no samples. */
int64_t hist_small_percentile(const uint32_t *counts, uint64_t n, double p,
			      int64_t min, int64_t max);

/*
 * The same scheme at any precision: bits (2 to 12) bits of magnitude
 * kept, so values below 2^bits have a counter each and each power of two
 * above has 2^(bits - 1) (a bucket under 2^(1 - bits) of its values:
 * bits 8 is the small histogram, bits 6 one of 3.1%); HIST_LL_COUNTS(bits)
 * counters from 0 to 2^40 ns.
 */
#define HIST_LL_COUNTS(bits) ((size_t)(42 - (bits)) << ((bits) - 1))

size_t hist_ll_index(int64_t v, unsigned int bits);
void hist_ll_bounds(size_t i, unsigned int bits, int64_t *lo, int64_t *hi);
int64_t hist_ll_percentile(const uint32_t *counts, unsigned int bits, uint64_t n, double p,
			   int64_t min, int64_t max);

#endif
