// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The steps the probe's loops share (prober.h), below them: syn.c and
 * http.c (httpconn.c) call these, and these call neither. Every measured
 * transaction's fate goes through prober_sent, prober_measured and
 * prober_lost, and from there through the run's fan-out (measure.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "prober.h"
#include "series.h"

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

void prober_sent(struct prober *p, uint64_t seq, int64_t t1_sw)
{
	struct run *r = p->r;

	p->sent++;
	r->cnt.sent++;
	if (r->series)
		series_sent(r->series, seq, t1_sw);
}

enum measure_next prober_measured(struct prober *p, struct txrec *rec, int64_t late_ns)
{
	const struct measure_tx t = {
		.side = MEASURE_PROBE, .rec = rec, .which = METRIC_NO_T3 | METRIC_T3,
		.no_tx = rec->t1_wire == TS_NONE,
		.no_rx = txrec_stamp(rec, P_T4_WIRE) == TS_NONE, .late_ns = late_ns,
	};

	loss_received(&p->loss);
	return measure_tx(p->r, &t);
}

void prober_answered(struct prober *p, uint64_t seq)
{
	struct run *r = p->r;

	r->cnt.received++;
	loss_received(&p->loss);
	if (r->series)
		series_received(r->series, seq, SERIES_NO_VALUE);
}

enum measure_next prober_lost(struct prober *p, struct txrec *rec)
{
	const struct measure_tx t = { .side = MEASURE_PROBE, .rec = rec, .lost = true };

	loss_lost(&p->loss);
	p->r->cnt.loss_burst_max = p->loss.burst_max;
	return measure_tx(p->r, &t);
}

bool prober_enough(struct prober *p, int64_t now)
{
	struct run *r = p->r;

	if (r->cfg->count && p->sent >= r->cfg->count) {
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
