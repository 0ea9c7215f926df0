// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Histogram and statistics of one metric (see hist.h for the rules).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "hist.h"
#include "mem.h"

struct hist {
	int64_t bucket_ns;	/* width of one bucket */
	int64_t overflow_ns;	/* first value kept as an outlier */
	size_t nbuckets;
	uint64_t *buckets;
	uint64_t overflow;	/* samples >= overflow_ns */
	uint64_t underflow;	/* samples < 0 */
	int64_t *out;		/* outliers, exact */
	size_t out_cap, out_len;
	uint64_t out_dropped;
	bool sorted;
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

struct hist *hist_create(int64_t bucket_ns, int64_t overflow_ns,
			 size_t outlier_cap, bool hugepages)
{
	struct hist *h;

	if (bucket_ns < 1 || overflow_ns < bucket_ns ||
	    overflow_ns % bucket_ns || outlier_cap < 1) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->bucket_ns = bucket_ns;
	h->overflow_ns = overflow_ns;
	h->nbuckets = (size_t)(overflow_ns / bucket_ns);
	h->out_cap = outlier_cap;
	h->huge = hugepages;
	h->buckets = mem_alloc(h->nbuckets * sizeof(*h->buckets), hugepages);
	h->out = mem_alloc(h->out_cap * sizeof(*h->out), hugepages);
	if (!h->buckets || !h->out) {
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
	mem_free(h->out, h->out_cap * sizeof(*h->out), h->huge);
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

	if (v >= 0 && v < h->overflow_ns) {
		h->buckets[v / h->bucket_ns]++;
		return;
	}
	if (v < 0)
		h->underflow++;
	else
		h->overflow++;
	if (h->out_len < h->out_cap) {
		h->out[h->out_len++] = v;
		h->sorted = false;
	} else {
		h->out_dropped++;
	}
}

void hist_get_stats(const struct hist *h, struct hist_stats *st)
{
	st->samples = h->n;
	st->min = h->min;
	st->max = h->max;
	st->min_seq = h->min_seq;
	st->max_seq = h->max_seq;
	st->outliers = h->underflow + h->overflow;
	st->outliers_dropped = h->out_dropped;
	st->avg = st->stddev = 0;
	if (h->n) {
		long double dm = (long double)h->sum / h->n;
		long double var = h->sumsq / h->n - dm * dm;

		st->avg = (double)(h->shift + dm);
		st->stddev = var > 0 ? (double)sqrtl(var) : 0;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Rank (1-based) of the p-th percentile of n, in integers. */
static uint64_t pct_rank(double p, uint64_t n)
{
	__int128 pm = (__int128)llround(p * 1e6);	/* p in 1e-6 units */
	__int128 num = pm * n, den = 100 * (__int128)1000000;
	uint64_t k = (uint64_t)((num + den - 1) / den);

	if (k < 1)
		k = 1;
	return k > n ? n : k;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t hist_percentile(struct hist *h, double p)
{
	size_t neg = 0, i;
	uint64_t k;

	if (h->n == 0)
		return 0;
	if (!h->sorted) {
		qsort(h->out, h->out_len, sizeof(*h->out), cmp_i64);
		h->sorted = true;
	}
	while (neg < h->out_len && h->out[neg] < 0)
		neg++;

	k = pct_rank(p, h->n);
	if (k <= h->underflow)	/* among the negative outliers */
		return neg ? h->out[(k <= neg ? k : neg) - 1] : h->min;
	k -= h->underflow;
	for (i = 0; i < h->nbuckets; i++) {
		if (k <= h->buckets[i])
			return clamp64((int64_t)(i + 1) * h->bucket_ns - 1,
				       h->min, h->max);
		k -= h->buckets[i];
	}
	/* among the outliers above the overflow bound */
	if (h->out_len > neg) {
		size_t above = h->out_len - neg;

		return h->out[neg + (k <= above ? k : above) - 1];
	}
	return h->max;
}

bool hist_exact(const struct hist *h)
{
	return h->out_dropped == 0;
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
