/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Straight lines through measurements: a running least-squares fit (the
 * drift of the clocks' offset, clock.c; the cost per byte of a size
 * sweep, sweep.c), and the binned fit of theta's drift, which keeps the
 * least-delayed transaction of each bin of time.
 */
#ifndef RANT_FIT_H
#define RANT_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "timeutil.h"

/*
 * A running least-squares line y(x), Welford's update, centred on the
 * first point (so that nanosecond stamps keep their precision in
 * doubles). x is counted in units of x_unit (0: 1): NS_PER_SEC for a
 * time in ns makes the slope per second (ppb for an offset in ns).
 * Zero-initialised (with x_unit set) is empty.
 */
struct fit {
	double x_unit;		/* x's unit; 0: 1 */
	uint64_t n;
	int64_t x0, y0;		/* the first point */
	double mx, my;		/* means, from the first point (x in x_unit) */
	double sxx, sxy;	/* sums of squares and products about the means */
	double x_last;		/* from the first point to the last, in x_unit */
};

void fit_add(struct fit *f, int64_t x, int64_t y);
/* The slope, y per x_unit; false with fewer than 2 points or no spread in x. */
bool fit_slope(const struct fit *f, double *slope);
/* The line's y at x (with a slope). */
double fit_at(const struct fit *f, int64_t x);

/*
 * theta's drift. Of every bin of T1 (FIT_BIN_NS at first) only the
 * transaction with the shortest network time is kept, as NTP's clock
 * filter keeps the sample of least delay: a pong held up one way moves
 * theta by half the delay. At most FIT_PICKS picks are held: when full,
 * neighbours are merged (the less delayed stays) and the bins widened, so
 * memory is bounded at any run length. At the end, picks whose network
 * time is far above the others' (a bin of stalled transactions only) are
 * left out, and a least-squares line goes through the rest.
 */
#define FIT_BIN_NS (10 * NS_PER_MS)
#define FIT_PICKS 4096
#define FIT_STALL_NS 1000	/* picks above the median network time by more
				 * than this (or 8 MADs) are left out */

struct fit_pick {
	int64_t t1_ns, net_ns, theta_ns;
};

struct fit_bins {
	struct fit_pick *picks;		/* FIT_PICKS, allocated by init */
	unsigned int n;			/* picks of closed bins */
	int64_t bin_ns;			/* bin width now */
	bool open;			/* the open bin has a pick */
	int64_t bin_start;		/* T1 of its first transaction */
	struct fit_pick best;		/* its least-delayed so far */
};

/* Allocate and touch the picks: 0 or -ENOMEM. */
int fit_bins_init(struct fit_bins *b);
void fit_bins_free(struct fit_bins *b);

/* One transaction: T1, network time ((T4 - T1) - (T3 - T2)), theta. No
 * allocation; a merge (when full) is one pass over the picks. */
void fit_bins_add(struct fit_bins *b, int64_t t1_ns, int64_t net_ns, int64_t theta_ns);

/*
 * The line through the picks (the open bin's too), the stalled ones left
 * out: *out (x in s, so its slope is in ppb), and in *kept how many went
 * in. Not for the packet loop (it sorts a copy). -ENOMEM when the copy
 * cannot be made.
 */
int fit_bins_result(const struct fit_bins *b, struct fit *out, unsigned int *kept);

#endif
