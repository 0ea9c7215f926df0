/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One metric's statistics (snap.h's struct snap_stats) as the summary
 * prints them, for every part of it that has some (the metrics, a
 * sweep's sizes): a text row and the JSON object under its key.
 */
#ifndef RANT_STATOUT_H
#define RANT_STATOUT_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"
#include "snap.h"

/* The row (key, samples, min, avg, stddev, percentiles, max) and the
 * object: those, the label, the clocks' verdict, and the log-linear
 * buckets ("hdr") or, for a sweepstat's, its percentile_precision. */
void statout_stats(struct out *o, const struct snap_stats *st);

/* ns as a reader takes it in: ns, us, ms or s, three or four digits. */
const char *statout_human_ns(int64_t ns, char *buf, size_t len);
/* The same in the unit statout_human_ns() gives scale_ns (a line's
 * largest value): one unit for the figures of a line. */
const char *statout_human_ns_in(int64_t ns, int64_t scale_ns, char *buf, size_t len);

#endif
