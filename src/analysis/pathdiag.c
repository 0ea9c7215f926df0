// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The paths that stand out from a target's others (see pathdiag.h).
 */
#include <stdlib.h>

#include "pathdiag.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static unsigned int latency(const struct pathdiag_in *p, unsigned int n, struct pathdiag *d)
{
	int64_t m[64], ref;
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		if (p[i].samples >= PATHDIAG_MIN_SAMPLES)
			m[k++] = p[i].p50_ns;
	if (k < 4)
		return 0;
	qsort(m, k, sizeof(m[0]), cmp_i64);
	ref = m[(k + 3) / 4 - 1];	/* the lower quartile, by nearest rank */
	*d = (struct pathdiag){ .kind = PATHDIAG_LATENCY, .ref_ns = ref };
	for (unsigned int i = 0; i < n; i++) {
		if (p[i].samples < PATHDIAG_MIN_SAMPLES ||
		    (double)p[i].p50_ns < PATHDIAG_FACTOR * (double)ref ||
		    p[i].p50_ns - ref < PATHDIAG_MIN_EXCESS_NS)
			continue;
		d->paths |= 1ULL << i;
		if (p[i].p50_ns > d->worst_ns)
			d->worst_ns = p[i].p50_ns;
	}
	return d->paths != 0;
}

static unsigned int loss(const struct pathdiag_in *p, unsigned int n, struct pathdiag *d)
{
	uint64_t sent = 0, lost = 0;

	for (unsigned int i = 0; i < n; i++) {
		sent += p[i].sent;
		lost += p[i].lost;
	}
	*d = (struct pathdiag){ .kind = PATHDIAG_LOSS };
	for (unsigned int i = 0; i < n; i++) {
		uint64_t os = sent - p[i].sent, ol = lost - p[i].lost;
		double rate, rest;

		if (p[i].lost < PATHDIAG_MIN_LOST || !p[i].sent || !os)
			continue;
		rate = (double)p[i].lost / (double)p[i].sent;
		rest = (double)ol / (double)os;
		if (rate < 3 * rest || rate < rest + 0.01)
			continue;
		d->paths |= 1ULL << i;
		if (rate > d->worst_loss)
			d->worst_loss = rate;
	}
	if (d->paths) {	/* the reference: the paths not named, together */
		uint64_t rs = 0, rl = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (d->paths & (1ULL << i))
				continue;
			rs += p[i].sent;
			rl += p[i].lost;
		}
		d->ref_loss = rs ? (double)rl / (double)rs : 0;
	}
	return d->paths != 0;
}

unsigned int pathdiag_find(const struct pathdiag_in *p, unsigned int n, struct pathdiag out[2])
{
	unsigned int k;

	if (n > 64)
		n = 64;
	if (n < 2)
		return 0;
	k = latency(p, n, &out[0]);
	return k + loss(p, n, &out[k]);
}

const char *pathdiag_kind_name(enum pathdiag_kind k)
{
	return k == PATHDIAG_LATENCY ? "path_latency" : "path_loss";
}

const char *pathdiag_fix(enum pathdiag_kind k)
{
	return k == PATHDIAG_LATENCY ?
	       "find the link these source ports hash onto (traceroute -U -p PORT with --sport, or the routers' ECMP counters) and look at its queue, errors and load" :
	       "find the link these source ports hash onto and look at its drops (interface errors, queue drops, a bad optic)";
}
