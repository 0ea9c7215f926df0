// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The steps both measuring loops of the emitter share (emitstep.h), below
 * them: the closed loop (emit.c, emitpend.c) and the open loop
 * (emitopen.c) call them, and they call neither.
 */
#include <inttypes.h>
#include <stdio.h>

#include "emitstep.h"
#include "holdback.h"
#include "series.h"

/* The ping's header for the phase: measured or not, SW stamps asked. */
void emit_set_flags(const struct emitter *e, bool measured)
{
	struct run *r = e->r;
	struct msg_hdr h = {
		.type = MSG_PING,
		.flags = (uint16_t)((measured ? 0 : MSG_F_WARMUP) |
				    (r->cfg->sw ? MSG_F_WANT_SW : 0) |
				    (r->auth ? MSG_F_MAC : 0) | (e->fetching ? MSG_F_FETCH : 0) |
				    (r->fmt.f->caps.report_len ? MSG_F_WANT_REPORT : 0)),
		.session = r->session,
		.len = e->len,
		.dscp = r->cfg->dscp,
	};

	msgfmt_put_ping(&r->fmt, e->tx, &h);
}

/* A measured ping without its TX stamp: why (txpend.h), counted. */
void emit_missing_why(struct run *r, const struct txrec *rec, enum txpend_end why)
{
	if (rec->t1_wire != TS_NONE)
		return;
	r->cnt.missing_tx_timeout += why == TXPEND_TIMEOUT || why == TXPEND_STAMPED;
	r->cnt.missing_tx_overflow += why == TXPEND_OVERFLOW || why == TXPEND_DROPPED;
	r->cnt.missing_tx_full += why == TXPEND_FULL;
}

/*
 * A measured transaction came back in time: through the run's fan-out
 * (measure.h), with the loss tracker's run of pongs. rec has T3 already
 * when the follow-up came before (open loop), else it waits for it in
 * e->await (emitpong.c: measure_t3()).
 */
enum measure_next emit_measured(struct emitter *e, struct txrec *rec)
{
	bool have_t3 = txrec_stamp(rec, P_T3_WIRE) != TS_NONE;
	const struct measure_tx t = {
		.side = MEASURE_EMIT, .rec = rec,
		.which = METRIC_NO_T3 | (have_t3 ? METRIC_T3 : 0),
		.no_tx = rec->t1_wire == TS_NONE, .no_rx = !e->rx_stamped,
		.late_ns = e->late_ns,
	};

	loss_received(&e->loss);
	if (!have_t3)
		holdback_add(e->await, rec);
	return measure_tx(e->r, &t);
}

/* A measured ping without its pong in time: a loss (its burst), and its
 * row logged (the stamps it has, LOST). */
enum measure_next emit_lost(struct emitter *e, struct txrec *rec)
{
	const struct measure_tx t = { .side = MEASURE_EMIT, .rec = rec, .lost = true };

	loss_lost(&e->loss);
	e->r->cnt.loss_burst_max = e->loss.burst_max;
	return measure_tx(e->r, &t);
}

/* -d counts the warm-up too: when it took a tenth of it or more, say so
 * (a warning: the JSON's too). */
static void emit_say_warmup_took(const struct emitter *e)
{
	struct run *r = e->r;
	int64_t now = monotonic_ns(), took = now - e->warm_began, d = r->cfg->duration_ns;
	uint64_t n = r->cnt.warmup - e->warm_pings;

	if (!d || took * 10 < d)
		return;
	warn_add(&r->warn, r->text, "warmup_took_duration",
		 "a smaller -w, or a longer -d, leaves more of it to measure",
		 "the warm-up took %.3f s of -d %g s (%" PRIu64 " pings, %.1f ms each): %.3f s left to measure",
		 (double)took / NS_PER_SEC, (double)d / NS_PER_SEC, n,
		 n ? (double)took / (double)n / NS_PER_MS : 0.0,
		 (double)(d - took > 0 ? d - took : 0) / NS_PER_SEC);
}

/* Say that measuring starts (tests and users wait for it): once, and
 * for each size of a sweep. */
static void emit_say_measuring(const struct emitter *e)
{
	struct run *r = e->r;
	FILE *f = r->text;
	struct out o = { .t = f };

	if (r->sweep_idx == 0) {
		stamppeer_settle(&r->stamp_peer);	/* as the warm-up left it */
		stamppeer_print(&o, &r->stamp_peer);	/* --stamp: what the peer says */
		stamppeer_warn(&r->warn, f, &r->stamp_peer, r->cfg->one_way);
		fprintf(f, "measuring: warm-up done after %" PRIu64 " pings\n", r->cnt.warmup);
	}
	if (r->nsweep)
		fprintf(f, "sweep: size %u of %u: %u bytes\n", r->sweep_idx + 1, r->nsweep, e->size);
	emit_say_warmup_took(e);
	fflush(f);
}

/* Measuring starts: the pings are measured from now on. */
void emit_measure_begin(struct emitter *e)
{
	struct run *r = e->r;

	emit_set_flags(e, true);
	e->first_measured = e->seq + 1;
	r->sweep[r->sweep_idx].first_seq = e->first_measured;	/* sweep or not */
	if (r->sweep_idx == 0)
		measure_start(r);
	emit_say_measuring(e);
	if (r->series && r->sweep_idx == 0)	/* -I: from the first slot */
		series_begin(r->series, monotonic_ns(), realtime_ns());
}

/*
 * -d reached by a paced loop that fell behind: the slots from due (the
 * next one) to end never had their ping. Counted as missed and said.
 */
static void emit_unsent_slots(struct emitter *e, int64_t due, int64_t end)
{
	struct run *r = e->r;
	int64_t iv = r->cfg->interval_ns;
	uint64_t unsent;

	if (!iv || due >= end)
		return;
	unsent = (uint64_t)((end - due + iv - 1) / iv);
	r->cnt.missed_slots += unsent;
	fprintf(r->text,
		"schedule: -d reached %.3f s behind the slots: %" PRIu64
		" slots never sent (counted in the slots missed)\n",
		(double)(end - due) / NS_PER_SEC, unsent);
}

bool emit_enough(struct emitter *e, uint64_t sent, int64_t due, int64_t now, int64_t end)
{
	const struct rant_cfg *c = e->r->cfg;

	if (c->count && sent >= c->count) {
		e->r->stop_reason = "count";
		return true;
	}
	if (end && (due >= end || now >= end)) {
		e->r->stop_reason = "duration";
		emit_unsent_slots(e, due, end);
		return true;
	}
	return false;
}
