// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Histogram and statistics of one metric (see hist.h for the rules).
 *
 * The log-linear index of a magnitude m >= 0: with shift = 0 for
 * m < 2048 and otherwise the number of bits of m above the top 11,
 * index = shift * 1024 + (m >> shift). m >> shift is in [1024, 2047] once
 * shift > 0, so every power-of-two range above 2048 gets 1024 indices of
 * its own. Magnitudes up to 2^63 - 1 (shift 52) need 54 * 1024 indices.
 * The counters of both signs are one array in ascending order of value:
 * v >= 0 at HALF + index(v), v < 0 at HALF - 1 - index(-v - 1).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "hist.h"
#include "mem.h"

#define SUB_BITS 11			/* exact below 1 << SUB_BITS */
#define SUB_HALF_BITS (SUB_BITS - 1)
#define MAX_SHIFT (63 - SUB_BITS)	/* shift of magnitude 2^63 - 1 */
#define HALF ((size_t)(MAX_SHIFT + 2) << SUB_HALF_BITS)	/* per sign */
#define NCOUNTS (2 * HALF)

struct hist {
	/* linear histogram, for printing */
	int64_t bucket_ns;	/* width of one bucket */
	int64_t overflow_ns;	/* first value counted as overflow */
	size_t nbuckets;
	uint64_t *buckets;
	uint64_t overflow;	/* samples >= overflow_ns */
	uint64_t underflow;	/* samples < 0 */
	/* log-linear histogram, for percentiles */
	uint64_t *counts;	/* NCOUNTS */
	bool huge;
	uint64_t n;
	int64_t min, max;
	uint64_t min_seq, max_seq;
	/*
	 * Sums of the deviations from the first sample: exact for the mean,
	 * and without the cancellation (or int128 overflow) that raw sums of
	 * squares suffer for values far from 0 (stamps across unsynced clocks).
	 */
	int64_t shift;
	__int128 sum;
	long double sumsq;
};

/* Log-linear index of magnitude m (see the top of this file). */
static inline size_t mag_index(uint64_t m)
{
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(m | ((1u << SUB_BITS) - 1));
	unsigned int shift = msb - SUB_HALF_BITS;

	return ((size_t)shift << SUB_HALF_BITS) + (size_t)(m >> shift);
}

/* Index into counts of value v, branch-free: sign-mirrored mag_index. */
static inline size_t val_index(int64_t v)
{
	int64_t s = -(int64_t)(v < 0);	/* 0, or -1 for v < 0 */
	uint64_t m = (uint64_t)(v ^ s);	/* v, or -v - 1 */

	return (size_t)((int64_t)HALF + ((int64_t)mag_index(m) ^ s));
}

/* Lowest and highest magnitude of log-linear index i < HALF. */
static void mag_bounds(size_t i, uint64_t *lo, uint64_t *hi)
{
	unsigned int shift = 0;

	if (i >= (size_t)1 << SUB_BITS)
		shift = (unsigned int)(i >> SUB_HALF_BITS) - 1;
	*lo = (uint64_t)(i - ((size_t)shift << SUB_HALF_BITS)) << shift;
	*hi = *lo + ((uint64_t)1 << shift) - 1;
}

/* Lowest and highest value of counts[i]. */
static void val_bounds(size_t i, int64_t *lo, int64_t *hi)
{
	uint64_t mlo, mhi;

	if (i >= HALF) {
		mag_bounds(i - HALF, &mlo, &mhi);
		*lo = (int64_t)mlo;
		*hi = (int64_t)mhi;
	} else {
		mag_bounds(HALF - 1 - i, &mlo, &mhi);
		*lo = (int64_t)~mhi;
		*hi = (int64_t)~mlo;
	}
}

struct hist *hist_create(int64_t bucket_ns, int64_t overflow_ns, bool hugepages)
{
	struct hist *h;

	if (bucket_ns < 1 || overflow_ns < bucket_ns || overflow_ns % bucket_ns) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->bucket_ns = bucket_ns;
	h->overflow_ns = overflow_ns;
	h->nbuckets = (size_t)(overflow_ns / bucket_ns);
	h->huge = hugepages;
	h->buckets = mem_alloc(h->nbuckets * sizeof(*h->buckets), hugepages);
	h->counts = mem_alloc(NCOUNTS * sizeof(*h->counts), hugepages);
	if (!h->buckets || !h->counts) {
		int err = errno;

		hist_destroy(h);
		errno = err;
		return NULL;
	}
	return h;
}

void hist_destroy(struct hist *h)
{
	if (!h)
		return;
	mem_free(h->buckets, h->nbuckets * sizeof(*h->buckets), h->huge);
	mem_free(h->counts, NCOUNTS * sizeof(*h->counts), h->huge);
	free(h);
}

void hist_add(struct hist *h, int64_t v, uint64_t seq)
{
	if (h->n == 0 || v < h->min) {
		h->min = v;
		h->min_seq = seq;
	}
	if (h->n == 0 || v > h->max) {
		h->max = v;
		h->max_seq = seq;
	}
	if (h->n == 0)
		h->shift = v;
	h->n++;
	{
		__int128 d = (__int128)v - h->shift;

		h->sum += d;
		h->sumsq += (long double)d * (long double)d;
	}
	h->counts[val_index(v)]++;

	if (v >= 0 && v < h->overflow_ns)
		h->buckets[v / h->bucket_ns]++;
	else if (v < 0)
		h->underflow++;
	else
		h->overflow++;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	__int128 d;

	if (dst->bucket_ns != src->bucket_ns || dst->overflow_ns != src->overflow_ns)
		return -EINVAL;
	if (!src->n)
		return 0;
	if (!dst->n || src->min < dst->min) {
		dst->min = src->min;
		dst->min_seq = src->min_seq;
	}
	if (!dst->n || src->max > dst->max) {
		dst->max = src->max;
		dst->max_seq = src->max_seq;
	}
	if (!dst->n)
		dst->shift = src->shift;
	/* src's deviations from its shift, moved to dst's:
	 * sum (x - a) = sum (x - b) + n d, sum (x - a)^2 = ... + 2 d sum (x - b) + n d^2 */
	d = (__int128)src->shift - dst->shift;
	dst->sumsq += src->sumsq + 2 * (long double)d * (long double)src->sum +
		      (long double)src->n * (long double)d * (long double)d;
	dst->sum += src->sum + (__int128)src->n * d;
	dst->n += src->n;
	for (size_t i = 0; i < NCOUNTS; i++)
		dst->counts[i] += src->counts[i];
	for (size_t i = 0; i < dst->nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	dst->overflow += src->overflow;
	dst->underflow += src->underflow;
	return 0;
}

void hist_get_stats(const struct hist *h, struct hist_stats *st)
{
	st->samples = h->n;
	st->min = h->min;
	st->max = h->max;
	st->min_seq = h->min_seq;
	st->max_seq = h->max_seq;
	st->avg = st->stddev = 0;
	if (h->n) {
		long double dm = (long double)h->sum / h->n;
		long double var = h->sumsq / h->n - dm * dm;

		st->avg = (double)(h->shift + dm);
		st->stddev = var > 0 ? (double)sqrtl(var) : 0;
	}
}

uint64_t hist_pct_rank(double p, uint64_t n)
{
	__int128 pm = (__int128)llround(p * 1e6);	/* p in 1e-6 units */
	__int128 num = pm * n, den = 100 * (__int128)1000000;
	uint64_t k = (uint64_t)((num + den - 1) / den);

	if (k < 1)
		k = 1;
	return k > n ? n : k;
}

int64_t hist_percentile(const struct hist *h, double p)
{
	size_t i, last;
	uint64_t k;
	int64_t lo, hi;

	if (h->n == 0)
		return 0;
	k = hist_pct_rank(p, h->n);
	last = val_index(h->max);
	for (i = val_index(h->min); i < last; i++) {
		if (k <= h->counts[i])
			break;
		k -= h->counts[i];
	}
	val_bounds(i, &lo, &hi);
	return hi < h->min ? h->min : hi > h->max ? h->max : hi;
}

bool hist_hdr_next(const struct hist *h, size_t *pos, struct hist_bucket *b)
{
	size_t i = *pos, last;

	if (h->n == 0)
		return false;
	if (i < val_index(h->min))
		i = val_index(h->min);
	last = val_index(h->max);
	while (i <= last && !h->counts[i])
		i++;
	if (i > last)
		return false;
	val_bounds(i, &b->lo, &b->hi);
	b->count = h->counts[i];
	*pos = i + 1;
	return true;
}

int64_t hist_bucket_ns(const struct hist *h)
{
	return h->bucket_ns;
}

int64_t hist_overflow_ns(const struct hist *h)
{
	return h->overflow_ns;
}

size_t hist_nbuckets(const struct hist *h)
{
	return h->nbuckets;
}

uint64_t hist_bucket_count(const struct hist *h, size_t i)
{
	return i < h->nbuckets ? h->buckets[i] : 0;
}

uint64_t hist_overflow_count(const struct hist *h)
{
	return h->overflow;
}

uint64_t hist_underflow_count(const struct hist *h)
{
	return h->underflow;
}

/*
 * The log-linear counters of any precision (hist.h): as above with bits
 * bits of magnitude kept (exact below 2^bits, 2^(bits-1) buckets per
 * power of two above), magnitudes clamped to [0, 2^40 - 1]. The small
 * histogram is bits 8.
 */
#define LL_TOP (((int64_t)1 << 40) - 1)
_Static_assert(HIST_SMALL_COUNTS == HIST_LL_COUNTS(HIST_SMALL_BITS), "the small histogram is bits 8");

size_t hist_ll_index(int64_t v, unsigned int bits)
{
	uint64_t m = (uint64_t)(v < 0 ? 0 : v > LL_TOP ? LL_TOP : v);
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(m | ((1u << bits) - 1));
	unsigned int shift = msb - (bits - 1);

	return ((size_t)shift << (bits - 1)) + (size_t)(m >> shift);
}

void hist_ll_bounds(size_t i, unsigned int bits, int64_t *lo, int64_t *hi)
{
	unsigned int shift = 0;

	if (i >= (size_t)1 << bits)
		shift = (unsigned int)(i >> (bits - 1)) - 1;
	*lo = (int64_t)((uint64_t)(i - ((size_t)shift << (bits - 1))) << shift);
	*hi = *lo + (int64_t)((uint64_t)1 << shift) - 1;
}

int64_t hist_ll_percentile(const uint32_t *counts, unsigned int bits, uint64_t n, double p,
			   int64_t min, int64_t max)
{
	size_t i, last = hist_ll_index(max, bits);
	uint64_t k;
	int64_t lo, hi;

	if (n == 0)
		return 0;
	k = hist_pct_rank(p, n);
	for (i = hist_ll_index(min, bits); i < last; i++) {
		if (k <= counts[i])
			break;
		k -= counts[i];
	}
	if (i == last)
		return max;	/* its bucket holds max (the top one: and more) */
	hist_ll_bounds(i, bits, &lo, &hi);
	return hi < min ? min : hi;
}

size_t hist_small_index(int64_t v)
{
	return hist_ll_index(v, HIST_SMALL_BITS);
}

void hist_small_bounds(size_t i, int64_t *lo, int64_t *hi)
{
	hist_ll_bounds(i, HIST_SMALL_BITS, lo, hi);
}

int64_t hist_small_percentile(const uint32_t *counts, uint64_t n, double p,
			      int64_t min, int64_t max)
{
	return hist_ll_percentile(counts, HIST_SMALL_BITS, n, p, min, max);
}
