/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One metric of one flow (its exchanges' latency, its RTT samples): small
 * enough that a table of many flows holds one each.
 *
 * The count, min, max and their seqs, mean and stddev are exact (as
 * hist.h computes them). The first FLOWSTAT_EXACT values are kept as
 * they are, so a flow of few samples has exact percentiles; beyond, the
 * values go into hist.h's small log-linear counters (HIST_SMALL_COUNTS,
 * 17 KiB: within 0.8%, never below the exact value, exact below 256 ns)
 * taken from a pool with a bound, so that a table of many long flows
 * stays bounded too. A flow that finds the pool empty keeps its exact
 * count, min, max, mean and stddev; its percentiles are then those of
 * its first FLOWSTAT_EXACT values, and it says so (flowstat_sum.partial).
 * Values below 0 count as 0 (the metrics are durations).
 *
 * No allocation in flowstat_add() but the pool's, which allocates each
 * counter array once and reuses it.
 */
#ifndef RANT_FLOWSTAT_H
#define RANT_FLOWSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "moments.h"

#define FLOWSTAT_EXACT 16
/* The percentiles' precision, as the JSON states it. */
#define FLOWSTAT_PRECISION "exact up to 16 samples; above, 0.8% (128 buckets per power of two), exact below 256 ns"
#define FLOWSTAT_PARTIAL "of the first 16 samples only (the table's counters were all in use: --max-flows)"

struct flowstat_pool;

struct flowstat {
	struct moments m;	/* count, min, max, mean, stddev: exact */
	uint32_t *counts;	/* HIST_SMALL_COUNTS from the pool, or NULL */
	bool partial;		/* past FLOWSTAT_EXACT without counters */
	int64_t v[FLOWSTAT_EXACT];
};

/* A flow's metric summed up for its report (nothing allocated). */
struct flowstat_sum {
	struct hist_stats st;
	bool partial;
	int64_t pct[8];		/* at the percentiles asked, ns */
};

/* A pool of at most max counter arrays; NULL with errno set. */
struct flowstat_pool *flowstat_pool_create(size_t max);
void flowstat_pool_destroy(struct flowstat_pool *p);
/* Counter arrays handed out now, and at most at once. */
size_t flowstat_pool_used(const struct flowstat_pool *p);
size_t flowstat_pool_peak(const struct flowstat_pool *p);

void flowstat_init(struct flowstat *s);
void flowstat_add(struct flowstat *s, struct flowstat_pool *p, int64_t v_ns, uint64_t seq);
/* Its statistics and the npct (<= 8) percentiles pcts, by hist.h's rule
 * (nearest rank; above FLOWSTAT_EXACT the highest value of its bucket,
 * clamped to [min, max]). */
void flowstat_sum(const struct flowstat *s, const double *pcts, size_t npct,
		  struct flowstat_sum *out);
/* Its counters back to the pool; s empty again. */
void flowstat_release(struct flowstat *s, struct flowstat_pool *p);

#endif
