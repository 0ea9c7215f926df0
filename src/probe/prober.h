/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps the probe's loops share (syn.c, icmp.c, http.c; prober.c,
 * below them): each measured transaction's fate counted and fanned out
 * (the counts, -I's series, the histograms, the intended-time histogram
 * of a paced run, the log, -t), measuring's start said, the schedule of
 * --interval; and for the kinds that send one datagram a transaction
 * (syn.c, icmp.c), the warm-up and the measuring loop themselves, over
 * the kind's four steps (struct prober_ops). Not for other modules:
 * probe.h is the interface.
 */
#ifndef RANT_PROBER_H
#define RANT_PROBER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure.h"
#include "openloop.h"

struct prober;
struct sk;

/* A datagram kind's steps, for prober_warmup() and prober_measure(). */
struct prober_ops {
	/* Begin a transaction (measured, or the warm-up's), late_ns after
	 * its slot: 0, or -errno (counted); -EBUSY when its table is full. */
	int (*send)(struct prober *p, bool measured, int64_t late_ns);
	void (*tx)(struct prober *p);	/* TX stamps (and errors) in */
	void (*rx)(struct prober *p);	/* answers in */
	/* Retire what is past --timeout (lost) or past tx_wait_ns without
	 * its TX stamp (done without it): the monotonic time of the next
	 * such deadline, 0: none. */
	int64_t (*expire)(struct prober *p, int64_t now);
	int64_t tx_wait_ns;		/* an answer's wait for its TX stamp */
	bool warmup_may_skip;		/* -w 0: no warm-up (else one answer) */
};

struct prober {
	struct run *r;
	const struct prober_ops *ops;	/* datagram kinds; NULL: http.c */
	struct sk *sk;			/* the kind's socket, polled when blocking */
	uint64_t inflight;		/* transactions out (the kind counts them) */
	uint64_t answered;		/* in the warm-up: answers with both stamps */
	bool open;			/* --open-loop */
	enum measure_next step;		/* what the last measured one asked */
	uint64_t seq;			/* the last transaction begun */
	uint64_t first_measured;	/* seq of the first measured one, 0: warming up */
	uint64_t sent;			/* measured transactions begun */
	uint64_t share;			/* --threads: this loop's part of -c; 0: -c */
	int64_t start_mono, end_mono;	/* measuring's start and -d's end (0: none) */
	uint64_t slot;			/* --interval: the next slot's number */
	struct loss_track loss;
	/* --threads: held around what the run's loops share (-I's series,
	 * -l's log: one writer each); NULL: one loop */
	pthread_mutex_t *lock;
};

/* Measuring starts now (say so: tests and users wait for the line). */
void prober_begin(struct prober *p);
/* --threads: another loop measures beside lead (begun), its slots
 * offset_ns after lead's. */
void prober_follow(struct prober *p, const struct prober *lead, int64_t offset_ns);

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

/*
 * The datagram kinds' warm-up: unmeasured transactions back to back
 * until -w were answered and one came with both stamps: 0, -EINTR, or
 * -EIO when none did for --warmup-timeout. Blocking: a spinner could
 * starve the kernel worker that turns RX stamps on.
 */
int prober_warmup(struct prober *p);

/* The datagram kinds' measuring: until -c, -d, a signal, a full log or
 * a breach; then those still out are waited for (at most --timeout). */
enum measure_next prober_measure(struct prober *p);

#endif
