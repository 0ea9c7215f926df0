/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Message-size sweeps (-m LIST or RANGE): the list of sizes a run
 * measures in turn, and the straight line fitted through the per-size
 * median round trips (a fixed latency plus a cost per byte, as a
 * kernel's latency-against-size report draws it).
 */
#ifndef RANT_SWEEP_H
#define RANT_SWEEP_H

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

#endif
