// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The closed loop's records that wait after their pong (emitpend.h): for
 * their ping's TX stamp, harvested when it comes and never waited for
 * (txpend.h; a pong can come before its ping's stamp), and for their
 * follow-up T3 (holdback.h; the reflector's stamp of the pong comes one
 * or more pongs later).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emitcount.h"
#include "emitpend.h"
#include "emitstep.h"
#include "holdback.h"

#define EMIT_PENDING 1024	/* measured pings awaiting their TX stamp at most */

/* A measured ping retired from e->pend: its TX stamp (or why none),
 * then measured, or lost and late when its pong came after --timeout
 * by the wire stamps. The step, as an int (txpend_done_fn). */
static int emit_pend_done(void *ctx, struct txpend_entry *x, enum txpend_end why)
{
	struct emitter *e = ctx;
	struct run *r = e->r;
	struct txrec *rec = &x->rec;
	enum measure_next step;

	if (why == TXPEND_STAMPED) {
		rec->t1_wire = ts_wire(&x->snd, r->sk.hw);
		if (x->sched_kn != TS_NONE)
			txrec_set_queue(rec, x->snd.kn_ns, x->sched_kn);
	}
	emit_missing_why(r, rec, why);
	if (rec->t1_wire != TS_NONE && x->aux != TS_NONE &&
	    x->aux - rec->t1_wire > r->cfg->timeout_ns) {
		step = emit_lost(e, rec);
		emit_count_late(e, rec->seq);
		return (int)step;
	}
	txrec_set_t4_wire(rec, x->aux);
	e->rx_stamped = x->aux != TS_NONE;
	e->late_ns = x->t_mono;
	return (int)emit_measured(e, rec);
}

/* The pong came before its ping's TX stamp: the record waits in
 * e->pend (the oldest retired first when it is full). */
enum measure_next emit_defer(struct emitter *e, const struct txrec *rec)
{
	struct txpend_entry *x;
	int step = 0;

	/* TCP: a new connection restarts the keys; the old one's stamps are
	 * gone with it */
	if (e->r->sk.fd != e->pend_fd) {
		step = txpend_flush(e->pend, emit_pend_done, e);
		e->pend_fd = e->r->sk.fd;
	}
	x = txpend_push(e->pend, e->t1_key, monotonic_ns());
	if (!x) {
		int s = txpend_evict(e->pend, emit_pend_done, e);

		step = step ? step : s;
		x = txpend_push(e->pend, e->t1_key, monotonic_ns());
	}
	x->rec = *rec;
	x->aux = e->t1_t4;
	x->t_mono = e->late_ns;
	e->t1_wait = false;
	return (enum measure_next)step;
}

/* Closed loop: the TX stamps queued now to the pings awaiting them, and
 * those whose turn came retired (at most --timeout after the send). */
enum measure_next emit_pend_harvest(struct emitter *e)
{
	if (!txpend_len(e->pend))
		return MEASURE_GO_ON;
	txpend_harvest(e->pend, &e->r->sk, NULL, NULL);
	return (enum measure_next)txpend_retire(e->pend, monotonic_ns(), emit_pend_done, e);
}

static int emit_pend_drop(void *ctx, struct txpend_entry *x, enum txpend_end why)
{
	(void)ctx;
	(void)x;
	(void)why;
	return 0;
}

/* Measuring ends: the stamps still awaited (--timeout after their send
 * at most), then every ping in e->pend retired. */
enum measure_next emit_pend_finish(struct emitter *e, enum measure_next step)
{
	int ret;

	while (step == MEASURE_GO_ON && txpend_waiting(e->pend) && !run_stop) {
		step = emit_pend_harvest(e);
		if (txpend_waiting(e->pend))
			sk_poll(&e->r->sk, txpend_deadline(e->pend));
	}
	if (step != MEASURE_GO_ON) {
		/* after a breach or a failed log nothing more is measured */
		txpend_flush(e->pend, emit_pend_drop, NULL);
		return step;
	}
	ret = txpend_flush(e->pend, emit_pend_done, e);
	return (enum measure_next)ret;
}

/* Records that fall out of e->await: their follow-up never came. */
static void emit_await_out(void *ctx, const struct txrec *rec)
{
	(void)ctx;
	(void)rec;
}

/*
 * Measured records kept for their follow-up: the reflector sends a T3
 * when the pong's TX stamp comes, up to 2 s after (reflect.c), so a
 * paced run keeps that many pings' worth (or --timeout's, when longer).
 */
static size_t emit_await_len(const struct rant_cfg *c)
{
	int64_t span = c->timeout_ns > 2 * NS_PER_SEC ? c->timeout_ns : 2 * NS_PER_SEC;
	uint64_t n = 1024;

	if (c->interval_ns && (uint64_t)(span / c->interval_ns) + 2 > n)
		n = (uint64_t)(span / c->interval_ns) + 2;
	return n > (1u << 18) ? 1u << 18 : (size_t)n;
}

int emit_pend_create(struct emitter *e)
{
	const struct rant_cfg *c = e->r->cfg;

	e->await = holdback_create(emit_await_len(c), c->hugepages, emit_await_out, NULL);
	if (!e->await) {
		fprintf(stderr, "rant: cannot allocate the %zu records awaiting their follow-up: %s\n",
			emit_await_len(c), strerror(errno));
		return -ENOMEM;
	}
	e->pend = txpend_create(EMIT_PENDING, c->timeout_ns, c->hugepages);
	e->pend_fd = e->r->sk.fd;
	if (!e->pend) {
		fprintf(stderr, "rant: cannot allocate the table of %d pings awaiting their TX stamps: %s\n",
			EMIT_PENDING, strerror(errno));
		holdback_destroy(e->await);
		e->await = NULL;
		return -ENOMEM;
	}
	return 0;
}

void emit_pend_destroy(struct emitter *e)
{
	txpend_destroy(e->pend);
	holdback_destroy(e->await);
	e->pend = NULL;
	e->await = NULL;
}
