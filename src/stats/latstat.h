/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One latency's statistics, small enough to keep thousands (a fleet's
 * targets and each of their paths: fleettab.h): the exact count, min,
 * max and their seqs, mean and stddev (moments.h), and percentiles from log-linear counters of a
 * precision the caller picks (hist.h's hist_ll_*: bits 8, 0.8% and 17 KiB;
 * bits 6, 3.1% and 4.5 KiB) in memory the caller owns, so that a table
 * of them is one allocation. A latency is not negative: one below 0
 * counts in the bottom counter (the moments keep it as it is).
 *
 * latstat_add() is O(1), allocates nothing, takes no lock: it is safe in
 * the packet loop. Another thread may read one while the loop adds to
 * it (snap.h's SNAP_LIVE rules: words written by one thread, a
 * percentile of the counts as the scan found them).
 */
#ifndef RANT_LATSTAT_H
#define RANT_LATSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "moments.h"

struct latstat {
	struct moments m;	/* count, min, max, mean, stddev: exact (moments.h) */
	uint32_t *counts;	/* HIST_LL_COUNTS(bits), the caller's */
	unsigned int bits;
};

/* Bytes of the counters of one latstat of bits precision. */
static inline size_t latstat_bytes(unsigned int bits)
{
	return HIST_LL_COUNTS(bits) * sizeof(uint32_t);
}

/* Empty, counting into counts (latstat_bytes(bits), zeroed here). */
void latstat_init(struct latstat *s, uint32_t *counts, unsigned int bits);

void latstat_add(struct latstat *s, int64_t v_ns, uint64_t seq);

/* The p-th percentile (0 < p <= 100) by hist.h's rule (nearest rank,
 * the highest value of its bucket, clamped to [min, max]); 0 with no
 * samples. */
int64_t latstat_percentile(const struct latstat *s, double p);

/*
 * The non-empty buckets in ascending order, as hist_hdr_next(): start
 * with *pos = 0 and call until false. Their counts add up to the
 * samples (but live, where the loop may have added since).
 */
bool latstat_next(const struct latstat *s, size_t *pos, struct hist_bucket *b);

/* The precision of the percentiles of bits, as the JSON states it. */
const char *latstat_precision(unsigned int bits);

#endif
