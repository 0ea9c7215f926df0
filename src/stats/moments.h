/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exact count, min and max (with their sequence numbers), mean and
 * stddev of a stream of values, as hist.h computes them: the sums are of
 * the deviations from the first value, so values far from 0 (stamps, a
 * long round trip) lose no precision. For the small statistics that keep
 * no full histogram (a sweep's size, sweepstat.h; a capture's flow).
 *
 * moments_add() is O(1), allocates nothing, takes no lock: it is safe in
 * the packet loop.
 */
#ifndef RANT_MOMENTS_H
#define RANT_MOMENTS_H

#include <stdint.h>

#include "hist.h"

struct moments {
	uint64_t n;
	int64_t min, max;	/* ns */
	uint64_t min_seq, max_seq;
	int64_t shift;		/* the first value */
	double sum, sumsq;	/* of the deviations from it */
};

void moments_add(struct moments *m, int64_t v_ns, uint64_t seq);
/* Its count, min, max (and seqs), mean and stddev (of the population). */
void moments_stats(const struct moments *m, struct hist_stats *st);

#endif
