/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What both loops do around measured transactions: mark the start of
 * measuring, and after each transaction log it (a copy into the log's
 * memory: its writer thread does the I/O), check the log's writer and
 * the threshold, and keep a breach (writing the trace marker and freezing
 * the trace at the first). Only memory writes, except at a breach.
 */
#ifndef RANT_MEASURE_H
#define RANT_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"

/* Measuring starts now: r->start_ns, the log's columns (the peer's
 * stamps are known after the warm-up), and RANT_TEST_START with -T. */
void measure_start(struct run *r);

/* The log's columns for this run, as known now, in *f; returns f. */
const struct txlog_fmt *measure_log_format(const struct run *r,
					   struct txlog_fmt *f);

enum measure_next {
	MEASURE_GO_ON,
	MEASURE_STOP,		/* writing the log failed */
	MEASURE_BREACH,		/* a breach without -C */
};

/*
 * A measured transaction with its latency (the side's main metric):
 * log it, check the log's writer and -t. A lost ping's record
 * (txrec_lost) is logged, with latency_ns INT64_MAX so that -L keeps it
 * too, and is never a breach.
 */
enum measure_next measure_done(struct run *r, const struct txrec *rec,
			       int64_t latency_ns);

/*
 * rec's metrics into the run's histograms, those that need the T3 wire
 * stamp or those that do not (which: metric.h's METRIC_T3, METRIC_NO_T3),
 * and in a sweep into those of rec's size too (found by its seq: a T3
 * that comes with the follow-up after the next size began still counts
 * in its own). Hot-path safe.
 */
void measure_sample(struct run *r, const struct txrec *rec, unsigned int which);

/*
 * An emitting loop ended (the emitter's, the probe's) with ret: the end's
 * time, why (a signal when nothing else said), the start when measuring
 * never began; a warm-up stopped by a signal is said, and is no failure
 * (0). Returns what the loop returns.
 */
int measure_end(struct run *r, int ret);

/* True once the CLOCK_MONOTONIC deadline end_mono (0: none) has passed. */
static inline bool measure_time_up(int64_t end_mono)
{
	return end_mono && monotonic_ns() >= end_mono;
}

#endif
