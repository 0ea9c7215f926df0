/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Message-size sweeps (-m LIST or RANGE): the list of sizes a run
 * measures in turn, and the straight line fitted through the per-size
 * median round trips (a fixed latency plus a cost per byte, as a
 * kernel's latency-against-size report draws it).
 */
#ifndef RANT_SWEEP_H
#define RANT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parse "N", "A,B,C" or "LO:HI:xF" (LO, LO*F, ... up to HI) or
 * "LO:HI:+S" (LO, LO+S, ... up to HI) into at most max_n sizes, each in
 * [lo, hi]. 0, or -EINVAL with one line (problem and fix) in err.
 */
int sweep_parse(const char *text, uint32_t lo, uint32_t hi, uint32_t *sizes,
		unsigned int max_n, unsigned int *n, char *err, size_t errlen);

struct sweep_fit {
	double offset_ns;	/* latency at 0 bytes */
	double ns_per_byte;	/* slope */
	double bandwidth_bps;	/* 8e9 / ns_per_byte, bits per second; 0 if slope <= 0 */
};

/*
 * Least-squares line latency = offset + slope * size through n points.
 * 0, or -EINVAL with fewer than two distinct sizes.
 */
int sweep_fit(const uint32_t *sizes, const int64_t *lat_ns, unsigned int n,
	      struct sweep_fit *f);

/*
 * Where one line does not hold. Between two neighbouring sizes (sizes
 * ascending) a break is
 *  - IP fragmentation: the first is within frag_above (the UDP payload
 *    the path MTU allows; 0: unknown or not UDP), the second above it;
 *  - a cliff up: the median more than doubles, and rises faster than
 *    the size does, by half again: no line a + b x with a, b >= 0 does
 *    that (Nagle and delayed ACKs, a buffer crossed);
 *  - a cliff down: the median halves or less (a line with a positive
 *    slope never falls: the small sizes waited on a timer).
 * Each stretch between breaks is a regime: a line fitted through its
 * points when it has two sizes or more and a positive slope, else its
 * level (the median of its medians: a negative slope is noise or a
 * cause the sizes do not explain, never a cost per byte).
 */
enum sweep_break {
	SWEEP_END,		/* the last regime: nothing after it */
	SWEEP_FRAGMENTS,
	SWEEP_CLIFF_UP,
	SWEEP_CLIFF_DOWN,
};

struct sweep_regime {
	unsigned int first, last;	/* indices of its sizes, inclusive */
	bool sloped;			/* fit holds a positive slope */
	struct sweep_fit fit;
	int64_t level_ns;		/* the median of its medians */
	enum sweep_break ends;		/* what comes after it */
};

/* The regimes of n points (at most SWEEP_MAX_POINTS: more are left out)
 * into out[n], their count in *nout. */
#define SWEEP_MAX_POINTS 64
void sweep_regimes(const uint32_t *sizes, const int64_t *lat_ns, unsigned int n,
		   uint32_t frag_above, struct sweep_regime *out, unsigned int *nout);

/* "IP fragmentation", "cliff up", "cliff down", "" (SWEEP_END). */
const char *sweep_break_name(enum sweep_break b);

#endif
