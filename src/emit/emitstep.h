/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps the emitter's two measuring loops share, in a module below
 * both (emitstep.c): the closed loop (emit.c, with emitpend.c's records
 * awaiting their TX stamp) and the open loop (emitopen.c) call these, and
 * these call neither. A measured transaction leaves the emitter here for
 * the run's fan-out (measure.h: measure_tx()).
 */
#ifndef RANT_EMITSTEP_H
#define RANT_EMITSTEP_H

#include <stdbool.h>
#include <stdint.h>

#include "emitter.h"
#include "measure.h"
#include "txpend.h"

/* The ping's header for the phase (measured or not, SW stamps asked) into
 * e->tx. */
void emit_set_flags(const struct emitter *e, bool measured);

/* The ping's TX stamp into rec, and its SCHED stamp (in the stash: it came
 * first; not looked for under --no-queue-stamps) for the sender's queue.
 * Inline: the closed loop takes it per ping. */
static inline void emit_tx_stamped(struct emitter *e, struct txrec *rec, uint32_t key,
				   const struct ts_stamps *txs)
{
	struct ts_stamps sch;

	rec->t1_wire = ts_wire(txs, e->r->sk.hw);
	if (!e->r->cfg->no_queue_stamps && sk_tx_sched(&e->r->sk, key, 0, &sch) == 0)
		txrec_set_queue(rec, txs->kn_ns, sch.kn_ns);
}

/* A measured ping without its TX stamp: why (txpend.h), counted. */
void emit_missing_why(struct run *r, const struct txrec *rec, enum txpend_end why);

/* A measured transaction came back in time (its T4 wire stamp there or
 * not: e->rx_stamped; its ping e->late_ns after its slot), or did not:
 * into the run's fan-out (measure_tx()). */
enum measure_next emit_measured(struct emitter *e, struct txrec *rec);
enum measure_next emit_lost(struct emitter *e, struct txrec *rec);

/* Measuring starts: the pings are measured from now on (said on the
 * text, once and for each size of a sweep; -I's intervals begin). */
void emit_measure_begin(struct emitter *e);

/*
 * -c reached, or -d: the next slot due (monotonic ns; now when not
 * paced) or now at or past end (0: no -d)? -d is the run's length: a
 * paced loop behind its slots stops at end too (the slots it never
 * sent counted as missed). The reason in r->stop_reason.
 */
bool emit_enough(struct emitter *e, uint64_t sent, int64_t due, int64_t now, int64_t end);

#endif
