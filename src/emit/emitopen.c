// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emitter's open loop (--open-loop, emitopen.h): pings leave on
 * schedule whatever became of the earlier ones, several in flight in the
 * table of openloop.h, matched by seq, retired in seq order. The closed
 * loop is emit.c's; both share the steps of emitstep.h.
 */
#include <errno.h>

#include "emitcount.h"
#include "emitopen.h"
#include "emitpong.h"
#include "emitstep.h"
#include "openloop.h"

/* The ping of the slot due (monotonic ns), now: the table has room for
 * it. false when the send failed (counted). */
static bool ol_send(struct emitter *e, int64_t due, int64_t now)
{
	struct run *r = e->r;
	struct ol_entry *x;
	int64_t t1_sw;
	uint32_t key;

	pong_window_forget(&e->seen, ++e->seq);
	t1_sw = realtime_ns();
	msgfmt_set_seq(&r->fmt, e->tx, e->seq, t1_sw);
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, e->tx, e->len);
	if (r->tp->send(&r->sk, e->tx, e->len, NULL, &key)) {
		r->cnt.send_errors++;
		return false;
	}
	x = ol_put(e->ol, e->seq);
	x->rec.t1_sw = t1_sw;
	x->key = key;
	x->sent_mono = now;
	x->late_ns = now - due;
	if (x->late_ns >= r->cfg->interval_ns)
		r->cnt.missed_slots++;
	r->cnt.inflight_max = e->ol->inflight_max;
	emit_count_sent(e, e->seq, t1_sw);
	return true;
}

/* A pong of the ping x, still in flight: its stamps and body. */
static void ol_answered(struct emitter *e, struct ol_entry *x,
			       const struct sk_msg *m, const struct msg_hdr *h)
{
	struct run *r = e->r;

	x->state = OL_ANSWERED;
	x->answered_mono = monotonic_ns();
	x->t4_wire = ts_wire(&m->rx, r->sk.hw);
	x->t4_sw = m->sw_ns;
	ol_landed(e->ol);
	e->pongs++;
	if (loss_arrived(&e->loss, h->seq))
		r->cnt.reordered = e->loss.reordered;
	emit_take_pong(e, &x->rec, h);
}

/* Every datagram queued now: a pong of a ping in flight, or counted. */
static void ol_receive(struct emitter *e)
{
	struct run *r = e->r;
	struct msg_hdr h;
	struct sk_msg m;
	int ret;

	while ((ret = r->tp->recv(&r->sk, e->rx, e->rx_len, &m, r->cfg->sw,
				  false)) != -EAGAIN) {
		enum pong_class k;
		struct ol_entry *x;

		if (ret == -ECONNREFUSED || ret == -EINTR)
			continue;	/* the reflector's port was closed: pings get lost */
		if (ret)
			return;
		if (!emit_authentic(e, &m))
			continue;
		/* MATCH: the newest ping's; LATE: the first copy of an earlier one's */
		k = emit_classify(&e->seen, &r->fmt, e->rx, m.len, e->len, r->session, e->seq,
				  &h);
		if (k == PONG_MATCH || k == PONG_LATE) {
			x = ol_get(e->ol, h.seq);
			if (x && x->state == OL_SENT) {
				ol_answered(e, x, &m, &h);
				continue;
			}
			k = x ? PONG_DUPLICATE : PONG_LATE;
		}
		emit_count_stray(e, k, &h);
	}
}

/* The TX stamps queued now, each to its ping (by OPT_ID key). */
static void ol_harvest(struct emitter *e)
{
	struct run *r = e->r;
	struct ts_stamps ts;
	uint32_t key;

	while (sk_tx_next(&r->sk, &key, &ts) == 0) {
		/* UDP: seq and key both advance by one per send, so the
		 * newest key (tx_key - 1) is e->seq's. */
		uint64_t seq = e->seq - (uint32_t)(r->sk.tx_key - 1 - key);
		struct ol_entry *x = ol_get(e->ol, seq);

		if (x && x->key == key)
			emit_tx_stamped(e, &x->rec, key, &ts);
		if (!e->tx_seen || (int32_t)(key - e->newest_tx) > 0)
			e->newest_tx = key;
		e->tx_seen = true;
	}
}

/* An answered ping's turn: measured, or lost and late when its pong
 * came after --timeout (by the wire stamps where it has both). */
static enum measure_next ol_done(struct emitter *e, struct ol_entry *x)
{
	struct txrec *rec = &x->rec;
	int64_t took = x->answered_mono - x->sent_mono;
	enum measure_next step;

	if (rec->t1_wire != TS_NONE && x->t4_wire != TS_NONE)
		took = x->t4_wire - rec->t1_wire;
	txrec_set_t4_sw(rec, x->t4_sw);
	if (took > e->r->cfg->timeout_ns) {
		step = emit_lost(e, rec);
		emit_count_late(e, rec->seq);
		return step;
	}
	/* no stamp by --timeout: a later ping's came (overflow), or none */
	emit_missing_why(e->r, rec, e->tx_seen && (int32_t)(e->newest_tx - x->key) > 0 ?
			 TXPEND_OVERFLOW : TXPEND_TIMEOUT);
	txrec_set_t4_wire(rec, x->t4_wire);
	e->rx_stamped = x->t4_wire != TS_NONE;
	e->late_ns = x->late_ns;
	return emit_measured(e, rec);
}

/*
 * Retire the pings whose outcome is known, oldest first: answered (with
 * their TX stamp, or --timeout after the send without: a stamp is never
 * waited for, it is harvested when it comes) or past --timeout (lost).
 * The first step other than MEASURE_GO_ON is returned.
 */
static enum measure_next ol_settle(struct emitter *e, int64_t now)
{
	enum measure_next step = MEASURE_GO_ON, s;
	struct ol_entry *x;

	while ((x = ol_oldest(e->ol))) {
		if (x->state == OL_SENT) {
			if (now - x->sent_mono <= e->r->cfg->timeout_ns)
				break;
			ol_landed(e->ol);
			s = emit_lost(e, &x->rec);
		} else {
			/* its TX stamp, however late: --timeout after the send */
			if (x->rec.t1_wire == TS_NONE &&
			    now - x->sent_mono <= e->r->cfg->timeout_ns)
				break;
			s = ol_done(e, x);
		}
		ol_retire(e->ol, x);
		if (step == MEASURE_GO_ON)
			step = s;
	}
	return step;
}

/* --block: sleep until the next slot (when sending), the oldest ping's
 * deadline, or a pong or TX stamp. */
static void ol_sleep(struct emitter *e, bool sending, int64_t due)
{
	struct ol_entry *x = ol_oldest(e->ol);
	int64_t deadline = sending ? due : INT64_MAX;

	if (x) {
		int64_t d = x->sent_mono + e->r->cfg->timeout_ns;

		if (d < deadline)
			deadline = d;
	}
	if (deadline != INT64_MAX)
		sk_poll(&e->r->sk, deadline + 1);
}

/*
 * Measured pings of e->size, open loop: the ping of slot k leaves at
 * start + k x interval whatever became of the earlier ones (at once when
 * the emitter is late; when the table is full, once its oldest ping is
 * retired). Between sends, pongs are matched to their pings and TX
 * stamps harvested. Sending stops at -c, -d (the first slot at or past
 * its end), a signal, a breach or a full log; the pings in flight are
 * then waited for (at most --timeout) and counted, and the first reason
 * to stop stays the run's.
 */
enum measure_next emitopen_measure(struct emitter *e)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	enum measure_next step = MEASURE_GO_ON;
	uint64_t sent = 0, slot = 0;
	int64_t start, end, due = 0;
	bool sending = true;

	e->ol = &r->flight;
	emit_measure_begin(e);
	ol_reset(e->ol, e->seq + 1);
	start = monotonic_ns();
	end = e->deadline;	/* -d from the warm-up's start */
	for (;;) {
		int64_t now = monotonic_ns();
		const char *why = r->stop_reason;
		enum measure_next s;

		due = start + (int64_t)slot * c->interval_ns;
		if (sending && (run_stop || step != MEASURE_GO_ON ||
				emit_enough(e, sent, due, now, end)))
			sending = false;
		if (sending && now >= due && ol_room(e->ol, e->seq + 1)) {
			sent += ol_send(e, due, now);
			slot++;
		}
		ol_receive(e);
		/* Sleeping, every stamp is read: one left queued (a warm-up
		 * ping's) would end each poll() at once. */
		if (!ol_empty(e->ol) || c->block)
			ol_harvest(e);
		s = ol_settle(e, now);
		if (step == MEASURE_GO_ON)
			step = s;
		if (!sending && why)
			r->stop_reason = why;
		if (!sending && ol_empty(e->ol))
			break;
		if (c->block)
			ol_sleep(e, sending, due);
	}
	if (r->nsweep)
		r->sweep[r->sweep_idx].done = !run_stop;
	e->ol = NULL;
	return step;
}
