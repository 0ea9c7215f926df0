/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histogram and statistics for one metric.
 *
 * Linear buckets of bucket_ns from 0 up to overflow_ns; every sample
 * outside [0, overflow_ns) (above the overflow bound, or negative) is kept
 * exactly in a store sized at creation, so tail percentiles are exact.
 * hist_add() is O(1), allocates nothing and is safe in the packet loop.
 *
 * Percentiles use the nearest rank: the p-th percentile of n samples is
 * the sample of rank ceil(p/100 * n) (1-based) in sorted order, the rank
 * computed in integers with p taken to six decimals (so 99.9 of 1000 is
 * rank 999, not 1000 by a rounding error). A sample
 * of that rank in the outlier store is reported exactly; one in a bucket is
 * reported as the bucket's highest value ((i + 1) * bucket_ns - 1),
 * clamped to [min, max], so a percentile is never below the true value
 * and less than one bucket above it.
 */
#ifndef RANT_HIST_H
#define RANT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hist;

struct hist_stats {
	uint64_t samples;
	int64_t min, max;	/* ns */
	uint64_t min_seq, max_seq;
	double avg, stddev;	/* ns; stddev of the population */
	uint64_t outliers;	/* samples outside [0, overflow_ns) */
	uint64_t outliers_dropped; /* outliers the store had no room for */
};

/*
 * bucket_ns >= 1, overflow_ns a multiple of bucket_ns, outlier_cap >= 1.
 * Memory is allocated and touched here; with hugepages it comes from the
 * hugepage pool (see mem.h), and an empty pool is an error (ENOMEM), not
 * a silent fallback. Returns NULL with errno set.
 */
struct hist *hist_create(int64_t bucket_ns, int64_t overflow_ns,
			 size_t outlier_cap, bool hugepages);
void hist_destroy(struct hist *h);

void hist_add(struct hist *h, int64_t v_ns, uint64_t seq);

void hist_get_stats(const struct hist *h, struct hist_stats *st);
/*
 * The p-th percentile (0 < p <= 100), as above; 0 with no samples. Sorts
 * the outlier store on first use after an add, so it is not for the
 * packet loop. Exact (outlier) unless outliers were dropped.
 */
int64_t hist_percentile(struct hist *h, double p);
/* True when every outlier was stored, so tail percentiles are exact. */
bool hist_exact(const struct hist *h);

int64_t hist_bucket_ns(const struct hist *h);
int64_t hist_overflow_ns(const struct hist *h);
size_t hist_nbuckets(const struct hist *h);
/* Samples in bucket i, [i * bucket_ns, (i + 1) * bucket_ns). */
uint64_t hist_bucket_count(const struct hist *h, size_t i);
/* Samples at or above overflow_ns. */
uint64_t hist_overflow_count(const struct hist *h);
/* Samples below 0 (possible for components across unsynced clocks). */
uint64_t hist_underflow_count(const struct hist *h);

#endif
