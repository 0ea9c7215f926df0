// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Around measured transactions, on both sides (see measure.h): the one
 * fan-out every measured transaction goes through, measure_tx().
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>

#include "capture.h"
#include "measure.h"
#include "pairdiag.h"
#include "series.h"
#include "session.h"
#include "trace.h"

/* The steps of measure_tx(), inlined into it: no call's cost per
 * transaction beyond the one into measure_tx(). */
#define FANOUT_STEP static inline __attribute__((always_inline))

/* Log rec, if the log wants it: a copy into the log's memory, no I/O. */
static void log_rec(struct run *r, const struct txrec *rec, int64_t latency_ns)
{
	if (!r->log)
		return;
	if (r->cfg->log_threshold_ns && latency_ns <= r->cfg->log_threshold_ns) {
		r->cnt.log_skipped++;
		return;
	}
	txlog_add(r->log, rec);
}

const struct txlog_fmt *measure_log_format(const struct run *r,
					   struct txlog_fmt *f)
{
	bool emit = r->cfg->mode == MODE_EMIT;

	*f = (struct txlog_fmt){
		.emit = emit,
		.sw = r->cfg->sw,
		.hw = r->sk.hw,
		.peer = emit && r->peer_body,
		.peer_hw = r->peer_hw,
		.peer_w = r->cfg->stamp ? stamppeer_suffix(&r->stamp_peer) : NULL,
		.peer_w3 = r->cfg->stamp ? stamppeer_suffix_t3(&r->stamp_peer) : NULL,
		.ack = emit && r->tp->caps.ack_stamps,
		.sched = !r->cfg->no_queue_stamps && !cfg_requests(r->cfg),
		.lost = emit,
	};
	if (r->fleet) {		/* the round trip alone, whose target and path */
		f->peer = false;
		f->target_names = r->fleet->names;
		f->target_len = TARGET_LABEL_LEN;
		f->path_ids = r->fleet->npaths < 2 ? NULL :
			      r->fleet->flow_label ? r->fleet->label : r->fleet->port;
	}
	return f;
}

static const char *side_name(const struct run *r)
{
	return r->cfg->mode == MODE_EMIT ? "emit" : "reflect";
}

void measure_start(struct run *r)
{
	char extra[96];

	r->start_ns = realtime_ns();
	pairdiag_measuring(r->pair);
	if (r->log) {
		struct txlog_fmt f;

		txlog_set_format(r->log, measure_log_format(r, &f));
	}
	if (r->trace) {
		snprintf(extra, sizeof(extra), "iface=%s session=%08x", r->cfg->iface,
			 r->session);
		trace_start(r->trace, side_name(r), sched_getcpu(), extra);
	}
}

/* The first breach's marker (every stamp it has), then the trace frozen. */
static int mark_breach(struct run *r, const struct txrec *rec, int64_t latency_ns)
{
	struct trace_breach tb = {
		.seq = rec->seq, .latency_ns = latency_ns,
		.threshold_ns = r->cfg->threshold_ns,
		.metric = metric_defs[run_threshold_metric(r)].name,
		.side = side_name(r), .cpu = sched_getcpu(),
	};

	_Static_assert(P_COUNT == TRACE_NSTAMPS, "marker stamps in path order");
	for (int p = 0; p < P_COUNT; p++)
		tb.stamp[p] = txrec_stamp(rec, p);
	return trace_breach(r->trace, &tb);
}

/*
 * A transaction crossed -t: count it, keep the first and the largest for
 * the report, and at the first one write the marker and freeze the
 * trace, in that order (the kernel refuses markers once tracing_on is 0;
 * trace_breach does both).
 */
static void breach_seen(struct run *r, const struct txrec *rec,
			int64_t latency_ns)
{
	if (!r->cnt.breaches++)
		r->breach_first = (struct breach){ .rec = *rec, .latency_ns = latency_ns };
	bkeep_add(r->breach, &r->nbreach, r->breach_cap, rec, latency_ns);
	if (r->trace && r->cnt.breaches == 1) {
		r->trace_err = mark_breach(r, rec, latency_ns);
	}
}

/* The size of a sweep seq was measured at: the last that began by it. */
static struct sweep_point *sweep_point_of(struct run *r, uint64_t seq)
{
	for (unsigned int i = r->sweep_idx + 1; i-- > 0;)
		if (r->sweep[i].first_seq && seq >= r->sweep[i].first_seq)
			return &r->sweep[i];
	return NULL;
}

/*
 * rec's metrics into the run's histograms, those of which (metric.h's
 * METRIC_T3, METRIC_NO_T3), and in a sweep into those of rec's size too
 * (found by its seq: a T3 that comes with the follow-up after the next
 * size began still counts in its own).
 */
FANOUT_STEP void measure_sample_metrics(struct run *r, const struct txrec *rec,
					   unsigned int which)
{
	struct sweep_point *sp = r->nsweep ? sweep_point_of(r, rec->seq) : NULL;
	int64_t v;

	if (r->jitter)
		jitter_sample(r->jitter, rec, which);
	if (!sp) {
		metric_sample(r->hist, rec, which);
		return;
	}
	for (int m = 0; m < M_COUNT; m++) {
		if (!r->hist[m] || !(which & metric_step(m)) || !metric_value(m, rec, &v))
			continue;
		hist_add(r->hist[m], v, rec->seq);
		if (m == M_RTT)
			hist_add(sp->rtt, v, rec->seq);
		else if (sp->m[m])
			sweepstat_add(sp->m[m], v, rec->seq);
	}
}

/* -t on the metric it watches, of value v: MEASURE_BREACH at a breach
 * without -C. */
static enum measure_next check_threshold(struct run *r, const struct txrec *rec, int64_t v)
{
	if (v <= r->cfg->threshold_ns)
		return MEASURE_GO_ON;
	breach_seen(r, rec, v);
	if (r->cfg->cont)
		return MEASURE_GO_ON;
	r->stop_reason = "breach";
	return MEASURE_BREACH;
}

/* The log, its writer and -t (the main metric's latency_ns, or the
 * metric --threshold-metric names, when rec has what it needs: which):
 * MEASURE_STOP when the log failed, MEASURE_BREACH at a breach without
 * -C, or after one found when its T3 came. */
FANOUT_STEP enum measure_next log_and_check(struct run *r, const struct txrec *rec,
					    int64_t latency_ns, unsigned int which)
{
	enum metric_id tm = run_threshold_metric(r);
	int64_t v = latency_ns;

	log_rec(r, rec, latency_ns);
	if (r->log && txlog_failed(r->log)) {
		r->stop_reason = "log write failed";
		return MEASURE_STOP;
	}
	if (r->breach_by_t3)
		return MEASURE_BREACH;
	if (txrec_lost(rec) || !r->cfg->threshold_ns)
		return MEASURE_GO_ON;
	if (tm != run_primary(r) &&
	    (!(which & metric_step(tm)) || !metric_value(tm, rec, &v)))
		return MEASURE_GO_ON;	/* its T3 not come yet: measure_t3() */
	return check_threshold(r, rec, v);
}

/* A ping without its pong in time (emitter): counted lost, logged LOST
 * with latency INT64_MAX, so that -L keeps it too. */
static enum measure_next measure_lost_ping(struct run *r, struct txrec *rec)
{
	r->cnt.lost++;
	if (r->nsweep)
		r->sweep[r->sweep_idx].lost++;
	if (r->series)
		series_lost(r->series, rec->seq);
	txrec_set_lost(rec);
	return log_and_check(r, rec, INT64_MAX, 0);
}

/* The counts of an answered transaction, the run's and its session's. */
FANOUT_STEP void measure_count_answered(struct run *r, const struct measure_tx *t)
{
	struct session *s = t->s;

	r->cnt.received++;
	r->cnt.sent += t->sent;
	r->cnt.missing_tx_ts += t->no_tx;
	r->cnt.missing_rx_ts += t->no_rx;
	if (s) {
		s->received++;
		s->sent += t->sent;
		s->missing_tx_ts += t->no_tx;
		s->missing_rx_ts += t->no_rx;
	}
}

/* This side's wire stamps earlier than the last measured transaction's
 * (one NIC clock for every session): the emitter's T1 and T4, the
 * reflector's T3 and T2. */
FANOUT_STEP void measure_count_backwards(struct run *r, const struct txrec *rec, bool emit)
{
	int64_t tx = emit ? rec->t1_wire : txrec_stamp(rec, P_T3_WIRE);
	int64_t rx = emit ? txrec_stamp(rec, P_T4_WIRE) : rec->t2_wire;

	if (tx != TS_NONE) {
		r->cnt.backwards_tx_ts += r->prev_tx_wire != TS_NONE && tx < r->prev_tx_wire;
		r->prev_tx_wire = tx;
	}
	if (rx != TS_NONE) {
		r->cnt.backwards_rx_ts += r->prev_rx_wire != TS_NONE && rx < r->prev_rx_wire;
		r->prev_rx_wire = rx;
	}
}

enum measure_next measure_tx(struct run *r, const struct measure_tx *t)
{
	struct txrec *rec = t->rec;
	bool emit = t->side == MEASURE_EMIT, have;
	int64_t lat;

	if (t->lost)
		return measure_lost_ping(r, rec);
	measure_count_answered(r, t);
	if (t->side == MEASURE_EMIT || t->side == MEASURE_REFLECT)
		measure_count_backwards(r, rec, emit);
	measure_sample_metrics(r, rec, t->which);
	if (emit && (t->which & METRIC_T3))
		clock_peer_add(r->clock, rec);
	have = metric_value(run_primary(r), rec, &lat);
	if (!have)
		lat = 0;
	/* From the slot's time: how late it left, then the round trip. */
	if (r->rtt_intended && have)
		hist_add(r->rtt_intended, ns_add(lat, t->late_ns), rec->seq);
	if (t->s && have)
		session_response(t->s, lat);
	if (r->pair && have)		/* --tcp --diagnosis auto: keep it? */
		pairdiag_sample(r->pair, lat);
	/* -I: the reflector's in the interval of the ping's arrival, the
	 * others' in that of the send */
	if (r->series && t->side == MEASURE_REFLECT)
		series_answered(r->series, t->came_mono, t->sent, have ? lat : SERIES_NO_VALUE);
	else if (r->series)
		series_received(r->series, rec->seq, have ? lat : SERIES_NO_VALUE);
	/* the reflector's by the session's id: an evicted one's went with it */
	if (r->capture && (emit || (t->side == MEASURE_REFLECT && t->s)))
		capture_expect(r->capture, emit ? r->session : t->s->id, rec);
	return log_and_check(r, rec, lat, t->which);
}

void measure_t3(struct run *r, uint64_t seq, struct txrec *rec, int64_t t3_wire)
{
	for (unsigned int i = r->nbreach; i-- > 0;)
		if (r->breach[i].rec.seq == seq)
			txrec_set_t3_wire(&r->breach[i].rec, t3_wire);
	if (r->cnt.breaches && r->breach_first.rec.seq == seq)
		txrec_set_t3_wire(&r->breach_first.rec, t3_wire);
	if (!rec)
		return;
	txrec_set_t3_wire(rec, t3_wire);
	if (r->log)
		txlog_patch_t3(r->log, seq, t3_wire);
	measure_sample_metrics(r, rec, METRIC_T3);
	clock_peer_add(r->clock, rec);
	/* -t on a metric that needs T3 (--threshold-metric response,
	 * network): checked now; a breach stops the run at the next
	 * transaction (without -C) */
	if (r->cfg->threshold_ns && run_threshold_metric(r) != run_primary(r) &&
	    metric_step(run_threshold_metric(r)) == METRIC_T3 && !r->breach_by_t3) {
		int64_t v;

		if (metric_value(run_threshold_metric(r), rec, &v) &&
		    check_threshold(r, rec, v) == MEASURE_BREACH)
			r->breach_by_t3 = true;
	}
}

int measure_end(struct run *r, int ret)
{
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	if (r->start_ns == 0)
		r->start_ns = r->end_ns;
	if (ret == -EINTR) {
		fprintf(stderr, "rant: stopped during the warm-up: nothing measured\n");
		return 0;
	}
	return ret;
}
