// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * After each measured transaction, on both sides (see measure.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>

#include "measure.h"
#include "trace.h"

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
		f->target_len = TARGET_NAME_LEN;
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

void measure_sample(struct run *r, const struct txrec *rec, unsigned int which)
{
	struct sweep_point *sp = r->nsweep ? sweep_point_of(r, rec->seq) : NULL;
	int64_t v;

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

enum measure_next measure_done(struct run *r, const struct txrec *rec,
			       int64_t latency_ns)
{
	log_rec(r, rec, latency_ns);
	if (r->log && txlog_failed(r->log)) {
		r->stop_reason = "log write failed";
		return MEASURE_STOP;
	}
	if (txrec_lost(rec))
		return MEASURE_GO_ON;
	if (r->cfg->threshold_ns && latency_ns > r->cfg->threshold_ns) {
		breach_seen(r, rec, latency_ns);
		if (!r->cfg->cont) {
			r->stop_reason = "breach";
			return MEASURE_BREACH;
		}
	}
	return MEASURE_GO_ON;
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
