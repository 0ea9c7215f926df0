// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe (probe.h): which loop, and the steps the loops share
 * (prober.h): every measured transaction's fate goes through
 * prober_sent, prober_measured and prober_lost.
 */
#include <inttypes.h>
#include <stdio.h>

#include "probe.h"
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
		c->syn ? "probes" : "requests");
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

enum measure_next prober_measured(struct prober *p, const struct txrec *rec, int64_t late_ns)
{
	struct run *r = p->r;
	enum metric_id m = run_primary(r);
	int64_t v = 0;
	bool have = metric_value(m, rec, &v);

	r->cnt.received++;
	if (rec->t1_wire == TS_NONE)
		r->cnt.missing_tx_ts++;
	if (txrec_stamp(rec, P_T4_WIRE) == TS_NONE)
		r->cnt.missing_rx_ts++;
	loss_received(&p->loss);
	measure_sample(r, rec, METRIC_NO_T3 | METRIC_T3);
	if (r->rtt_intended && have)
		hist_add(r->rtt_intended, ns_add(v, late_ns), rec->seq);
	if (r->series)
		series_received(r->series, rec->seq, have ? v : SERIES_NO_VALUE);
	return measure_done(r, rec, have ? v : 0);
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
	struct run *r = p->r;

	r->cnt.lost++;
	loss_lost(&p->loss);
	r->cnt.loss_burst_max = p->loss.burst_max;
	if (r->series)
		series_lost(r->series, rec->seq);
	txrec_set_lost(rec);
	return measure_done(r, rec, INT64_MAX);
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

int probe_setup(struct run *r)
{
	return r->cfg->syn ? syn_setup(r) : http_setup(r);
}

void probe_teardown(const struct rant_cfg *cfg)
{
	if (cfg->syn)
		syn_teardown();
	else
		http_teardown();
}

int probe_run(struct run *r)
{
	return measure_end(r, r->cfg->syn ? syn_run(r) : http_run(r));
}
