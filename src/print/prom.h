/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus text exposition format (version 0.0.4) of a snapshot
 * (snap.h): counters of the run (_total, never going backwards while
 * the process lives: they are the loop's counts), a classic histogram
 * rant_latency_seconds{metric="..."} of every metric of the run, and
 * rant_info. Base units: seconds. The renderer computes nothing in the
 * loop: a histogram's buckets are the snapshot's log-linear buckets
 * summed up to each bound of the ladder.
 *
 * The ladder (--metrics-buckets): bounds from 1 us to 10 s, by default
 * PROM_DEFAULT_PER_DECADE per decade (each bound about 26% above the one
 * below: 1, 1.3, 1.6, 2, 2.5, 3.2, 4, 5, 6.3, 7.9, 10 us, ...), or N per
 * decade ("20/decade"), or a list of bounds in microseconds
 * ("5,10,20,50,100"). A log-linear bucket is counted at a bound when its
 * highest value is at or below it: a count at a bound may leave out
 * samples up to 0.1% below it (hist.h), never adds one above.
 */
#ifndef RANT_PROM_H
#define RANT_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "snap.h"

#define PROM_DEFAULT_PER_DECADE 10
#define PROM_MAX_BOUNDS 256
#define PROM_LOW_NS 1000LL			/* 1 us */
#define PROM_HIGH_NS 10000000000LL		/* 10 s */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct prom_ladder {
	unsigned int n;
	int64_t le_ns[PROM_MAX_BOUNDS];		/* ascending, > 0 */
};

/* A fleet's default ladder: 3 bounds a decade (22 series a target). */
#define PROM_FLEET_BUCKETS "3/decade"

/* --metrics-buckets as given, or its default for c's run. */
static inline const char *prom_buckets(const struct rant_cfg *c)
{
	return c->metrics_buckets ? c->metrics_buckets : cfg_fleet(c) ? PROM_FLEET_BUCKETS : NULL;
}

/*
 * arg: NULL (the default ladder), "N/decade" (1 <= N <= 30) or a list of
 * ascending bounds in microseconds. 0, or -EINVAL with msg set.
 */
int prom_ladder_parse(struct prom_ladder *l, const char *arg, char *msg, size_t len);

/* The labels of one series, at most (prom_hist). */
#define PROM_LABELS_MAX 512

/* The exposition of s to f. 0, or -errno when f failed. */
int prom_render(FILE *f, const struct snap *s, const struct prom_ladder *l);

/* The pieces, for an exposition of another report (--watch's):
 * "# HELP" and "# TYPE" of a family; a label's value escaped as the
 * format requires; one histogram's series under rant_latency_seconds
 * with the labels given (`metric="rtt",interface="eth0"`, escaped): the
 * ladder's cumulative counts of st's log-linear buckets, +Inf, _sum and
 * _count. */
void prom_family(FILE *f, const char *name, const char *type, const char *help);
void prom_label_value(FILE *f, const char *v);
void prom_hist(FILE *f, const char *labels, const struct snap_stats *st,
	       const struct prom_ladder *l);

#endif
