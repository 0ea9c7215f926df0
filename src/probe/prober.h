/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps the probe's loops share (syn.c, http.c; prober.c, below
 * them): each measured
 * transaction's fate counted and fanned out (the counts, -I's series,
 * the histograms, the intended-time histogram of a paced run, the log,
 * -t), measuring's start said, the schedule of --interval. Not for
 * other modules: probe.h is the interface.
 */
#ifndef RANT_PROBER_H
#define RANT_PROBER_H

#include <stdbool.h>
#include <stdint.h>

#include "measure.h"
#include "openloop.h"

struct prober {
	struct run *r;
	uint64_t seq;			/* the last transaction begun */
	uint64_t first_measured;	/* seq of the first measured one, 0: warming up */
	uint64_t sent;			/* measured transactions begun */
	int64_t start_mono, end_mono;	/* measuring's start and -d's end (0: none) */
	uint64_t slot;			/* --interval: the next slot's number */
	struct loss_track loss;
};

/* Measuring starts now (say so: tests and users wait for the line). */
void prober_begin(struct prober *p);

/* A measured transaction seq began at t1_sw (CLOCK_REALTIME). */
void prober_sent(struct prober *p, uint64_t seq, int64_t t1_sw);

/*
 * Measured transaction rec came back whole, late_ns after its slot's
 * time (0 unpaced): into the run's fan-out (measure.h: counted, sampled
 * and into the intended time's histogram from its slot, logged, -t
 * checked).
 */
enum measure_next prober_measured(struct prober *p, struct txrec *rec, int64_t late_ns);

/* Measured transaction seq was answered, but its answer is no sample (an
 * HTTP status other than 2xx, counted apart): received, without a value. */
void prober_answered(struct prober *p, uint64_t seq);

/* Measured transaction rec did not come back within --timeout. */
enum measure_next prober_lost(struct prober *p, struct txrec *rec);

/* -c reached, or -d's end (monotonic now)? r->stop_reason says which. */
bool prober_enough(struct prober *p, int64_t now);

/* --interval: the monotonic time the next slot is due (now when not
 * paced). prober_take_slot() moves on to the one after. */
int64_t prober_due(const struct prober *p, int64_t now);
void prober_take_slot(struct prober *p);

#endif
