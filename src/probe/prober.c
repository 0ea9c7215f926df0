// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The steps the probe's loops share (prober.h), below them: syn.c,
 * icmp.c and http.c (httpconn.c) call these, and these call none of
 * them but through a datagram kind's prober_ops. Every measured
 * transaction's fate goes through prober_sent, prober_measured and
 * prober_lost, and from there through the run's fan-out (measure.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "prober.h"
#include "series.h"
#include "sock.h"

void prober_begin(struct prober *p)
{
	struct run *r = p->r;
	const struct rant_cfg *c = r->cfg;

	p->first_measured = p->seq + 1;
	p->start_mono = monotonic_ns();
	p->end_mono = c->duration_ns ? p->start_mono + c->duration_ns : 0;
	p->slot = 0;
	measure_start(r);
	fprintf(r->text, "measuring: warm-up done after %" PRIu64 " %s\n", r->cnt.warmup,
		c->syn || c->icmp ? "probes" : "requests");
	fflush(r->text);
	if (r->series)
		series_begin(r->series, monotonic_ns(), realtime_ns());
}

void prober_follow(struct prober *p, const struct prober *lead, int64_t offset_ns)
{
	p->first_measured = p->seq + 1;
	p->start_mono = lead->start_mono + offset_ns;
	p->end_mono = lead->end_mono;
	p->slot = 0;
}

static void prober_lock(struct prober *p)
{
	if (p->lock)
		pthread_mutex_lock(p->lock);
}

static void prober_unlock(struct prober *p)
{
	if (p->lock)
		pthread_mutex_unlock(p->lock);
}

void prober_sent(struct prober *p, uint64_t seq, int64_t t1_sw)
{
	struct run *r = p->r;

	p->sent++;
	r->cnt.sent++;
	if (r->series) {
		prober_lock(p);
		series_sent(r->series, seq, t1_sw);
		prober_unlock(p);
	}
}

enum measure_next prober_measured(struct prober *p, struct txrec *rec, int64_t late_ns)
{
	const struct measure_tx t = {
		.side = MEASURE_PROBE, .rec = rec, .which = METRIC_NO_T3 | METRIC_T3,
		.no_tx = rec->t1_wire == TS_NONE,
		.no_rx = txrec_stamp(rec, P_T4_WIRE) == TS_NONE, .late_ns = late_ns,
	};
	enum measure_next next;

	loss_received(&p->loss);
	prober_lock(p);
	next = measure_tx(p->r, &t);
	prober_unlock(p);
	return next;
}

void prober_answered(struct prober *p, uint64_t seq)
{
	struct run *r = p->r;

	r->cnt.received++;
	loss_received(&p->loss);
	if (r->series) {
		prober_lock(p);
		series_received(r->series, seq, SERIES_NO_VALUE);
		prober_unlock(p);
	}
}

enum measure_next prober_lost(struct prober *p, struct txrec *rec)
{
	const struct measure_tx t = { .side = MEASURE_PROBE, .rec = rec, .lost = true };
	enum measure_next next;

	loss_lost(&p->loss);
	p->r->cnt.loss_burst_max = p->loss.burst_max;
	prober_lock(p);
	next = measure_tx(p->r, &t);
	prober_unlock(p);
	return next;
}

bool prober_enough(struct prober *p, int64_t now)
{
	struct run *r = p->r;
	uint64_t count = p->share ? p->share : r->cfg->count;

	if (count && p->sent >= count) {
		r->stop_reason = "count";
		return true;
	}
	if (p->end_mono && now >= p->end_mono) {
		r->stop_reason = "duration";
		return true;
	}
	return false;
}

int64_t prober_due(const struct prober *p, int64_t now)
{
	int64_t iv = p->r->cfg->interval_ns;

	return iv ? p->start_mono + (int64_t)p->slot * iv : now;
}

void prober_take_slot(struct prober *p)
{
	p->slot++;
}

/* Send what is due now; the monotonic time of the next slot (0: none
 * while the closed loop waits for its transaction). */
static int64_t prober_schedule(struct prober *p, int64_t now, bool stopping)
{
	struct run *r = p->r;
	int64_t due, iv = r->cfg->interval_ns;

	if (stopping || (!p->open && p->inflight))
		return 0;
	due = prober_due(p, now);
	if (now < due)
		return due;
	if (iv && now - due >= iv)
		r->cnt.missed_slots++;	/* its time passed while one was out */
	prober_take_slot(p);
	p->ops->send(p, true, iv ? now - due : 0);
	if (p->inflight > r->cnt.inflight_max)
		r->cnt.inflight_max = p->inflight;
	return iv ? prober_due(p, now) : 0;
}

/* Wait (--block) or spin until the earlier deadline (0: none) or a packet. */
static void prober_wait(struct prober *p, bool block, int64_t a, int64_t b)
{
	int64_t until = !a ? b : !b ? a : a < b ? a : b;

	if (block && until)
		sk_poll(p->sk, until);
}

enum measure_next prober_measure(struct prober *p)
{
	const struct prober_ops *o = p->ops;
	bool stopping = false;

	p->step = MEASURE_GO_ON;
	prober_begin(p);
	while (!run_stop) {
		int64_t now = monotonic_ns(), next, expiry;

		stopping = stopping || p->step != MEASURE_GO_ON || prober_enough(p, now);
		if (stopping && !p->inflight)
			break;
		next = prober_schedule(p, now, stopping);
		o->tx(p);
		o->rx(p);
		expiry = o->expire(p, monotonic_ns());
		if (stopping && p->step == MEASURE_BREACH)
			break;	/* -t without -C: at once */
		prober_wait(p, p->r->cfg->block, next, expiry);
	}
	return p->step;
}

int prober_warmup(struct prober *p)
{
	const struct prober_ops *o = p->ops;
	struct run *r = p->r;
	int64_t give_up = monotonic_ns() + r->cfg->warmup_timeout_ns;

	if (!r->cfg->warmup && o->warmup_may_skip)
		return 0;
	while (!run_stop) {
		int64_t now = monotonic_ns(), expiry;

		if (now > give_up)
			return -EIO;
		if (p->answered && r->cnt.warmup >= r->cfg->warmup && !p->inflight)
			return 0;
		if (!p->inflight)
			o->send(p, false, 0);
		o->tx(p);
		o->rx(p);
		expiry = o->expire(p, monotonic_ns());
		if (p->inflight)
			prober_wait(p, true, expiry, monotonic_ns() + o->tx_wait_ns);
	}
	return -EINTR;
}
