/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every metric of a sweep at each size (-m LIST or RANGE), besides the
 * round trip (whose full histogram each size keeps, sweep_point.rtt):
 * one-way delays, components (-s), emit_ack (--tcp), ... A sweep has up
 * to RANT_MAX_SIZES sizes and a run up to M_COUNT metrics, so each keeps
 * a small one: the exact count, min, max and their seqs, mean and
 * stddev (as hist.h computes them), and percentiles from a small
 * log-linear histogram of each sign (hist.h's HIST_SMALL_COUNTS 32-bit
 * counters: within 0.8%, never below the exact value, exact below
 * 256 ns of magnitude), 35 KiB in all. Negative values (one-way delays
 * across clocks that disagree) count by their magnitude in the second.
 *
 * sweepstat_add() is O(1), allocates nothing, takes no lock: it is safe
 * in the packet loop. A snapshot may read a sweepstat while the loop
 * adds to it (snap.h's SNAP_LIVE rules: 64-bit words written by one
 * thread).
 */
#ifndef RANT_SWEEPSTAT_H
#define RANT_SWEEPSTAT_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "moments.h"

/* The percentiles' precision, as the JSON states it. */
#define SWEEPSTAT_PRECISION "0.8% (128 buckets per power of two), exact below 256 ns"

struct sweepstat {
	struct moments m;	/* count, min, max, mean, stddev: exact */
	uint32_t pos[HIST_SMALL_COUNTS];	/* v >= 0, at hist_small_index(v) */
	uint32_t neg[HIST_SMALL_COUNTS];	/* v < 0, at hist_small_index(-v - 1) */
};

/* Zeroed, touched memory for one (mem.h; huge: from the hugepage pool).
 * NULL with errno set. */
struct sweepstat *sweepstat_create(bool huge);
void sweepstat_destroy(struct sweepstat *s, bool huge);

void sweepstat_add(struct sweepstat *s, int64_t v_ns, uint64_t seq);

/* Its count, min, max, mean and stddev, as hist_get_stats(). */
void sweepstat_stats(const struct sweepstat *s, struct hist_stats *st);

/* The p-th percentile (0 < p <= 100) by hist.h's rule (nearest rank, the
 * highest value of its bucket, clamped to [min, max]); 0 with no samples. */
int64_t sweepstat_percentile(const struct sweepstat *s, double p);

#endif
