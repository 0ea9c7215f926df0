// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The numbers of a run, taken from it (snap.h: snap_build). Apart from
 * snap.c, so that a renderer of a snapshot (prom.c) needs snap.h without
 * depending on run.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "run.h"
#include "snap.h"
#include "fleetsnap.h"
#include "timeutil.h"
#include "trace.h"

/* --interval: the main metric counted from the slot's time (emit.h):
 * its key and label. */
static const char *intended_key(enum metric_id m)
{
	return m == M_SYN_RTT ? "syn_rtt_intended" : m == M_REQUEST ? "request_intended" :
	       "rtt_intended";
}

static const char *intended_label(enum metric_id m)
{
	return m == M_SYN_RTT ? "Handshake from the probe's slot (syn_rtt + how late it left)" :
	       m == M_REQUEST ? "Request from when it should have left (request + how late it left: wrk2's corrected latency)" :
	       "Round trip from the ping's slot (rtt + how late it left)";
}

static int fill_linear(struct snap_linear *l, const struct hist *h, const char *metric)
{
	size_t n = 0;

	l->metric = metric;
	l->bucket_ns = hist_bucket_ns(h);
	l->overflow_ns = hist_overflow_ns(h);
	for (size_t i = 0; i < hist_nbuckets(h); i++)
		n += hist_bucket_count(h, i) != 0;
	l->b = n ? calloc(n, sizeof(*l->b)) : NULL;
	if (n && !l->b)
		return -ENOMEM;
	for (size_t i = 0; i < hist_nbuckets(h) && l->n < n; i++) {
		uint64_t c = hist_bucket_count(h, i);

		if (c)
			l->b[l->n++] = (struct snap_bucket){ (int64_t)i * l->bucket_ns, c };
	}
	l->overflow = hist_overflow_count(h);
	l->underflow = hist_underflow_count(h);
	return 0;
}

static bool metric_shown(const struct run *r, enum metric_id m)
{
	struct hist_stats st;

	if (!r->hist[m])
		return false;
	if (m == run_primary(r))
		return true;
	hist_get_stats(r->hist[m], &st);
	return st.samples > 0;
}

/* Every metric's statistics, rtt_intended's and the primary's histogram. */
/*
 * --stamp: what the reflector's stamps put in response and network, in
 * their labels. Software stamps (SW local: the kernel's or its
 * program's, STAMP does not tell; or a method not reported) leave the
 * reflector's host stack between its wire and those stamps in network;
 * a T3 its reply carries (a stateless reflector's, one without
 * follow-up) was taken before the packet left, so response ends there.
 */
static void peer_labels(struct snap *s, const struct run *r)
{
	const struct stamppeer *sp = &r->stamp_peer;
	bool t3_sw;

	if (!r->cfg->stamp || !sp->replies)
		return;
	t3_sw = strcmp(stamppeer_suffix_t3(sp), "_PEER_HW") != 0;
	s->network_stack = t3_sw || strcmp(stamppeer_suffix(sp), "_PEER_HW");
	if (s->network_stack)
		s->metric[M_NETWORK].label = "Network, both ways (RTT - response), with the "
			"reflector's host stack: its stamps are software ones (sw_local, or not said)";
	if (t3_sw && stamppeer_t3_own(sp))
		s->metric[M_RESPONSE].label = "Reflector response (T3 - T2), T3 the software "
			"stamp its reply carries, taken before it left (no follow-up)";
}

static int fill_metrics(struct snap *s, const struct run *r)
{
	const struct clock_report *cr = s->have_clock ? &s->clock : NULL;
	int ret = 0;

	s->primary = run_primary(r);
	for (int m = 0; m < M_COUNT && !ret; m++) {
		const struct metric_def *d = &metric_defs[m];

		s->shown[m] = metric_shown(r, m);
		s->unknown[m] = r->hist[m] && !s->shown[m];
		if (s->shown[m])
			ret = snap_stats_fill(&s->metric[m], r->hist[m], d->name, d->label,
					      cr ? clock_metric_untrusted(cr, d) : NULL);
	}
	peer_labels(s, r);
	s->have_jitter = r->jitter != NULL;
	for (int w = 0; w < JITTER_NWAYS && r->jitter; w++)
		jitter_get(r->jitter, (enum jitter_way)w, &s->jitter[w]);
	s->have_rtt_intended = r->rtt_intended != NULL;
	if (!ret && r->rtt_intended)
		ret = snap_stats_fill(&s->rtt_intended, r->rtt_intended,
				      intended_key(s->primary), intended_label(s->primary), NULL);
	return ret ? ret : fill_linear(&s->hist, r->hist[s->primary],
				       metric_defs[s->primary].name);
}

/* The delayed-ACK diagnosis of round trips h (diagnose.h), into buf. */
static bool delack_of(const struct rant_cfg *c, const struct hist *h, char *buf, size_t len)
{
	int64_t q[DIAG_NQ];
	struct hist_stats st;

	hist_get_stats(h, &st);
	if (!st.samples)
		return false;
	for (int i = 0; i < DIAG_NQ; i++)
		q[i] = hist_percentile(h, (i + 1) * 5.0);
	return diagnose_delack(c, q, buf, len);
}

/*
 * A sweep whose sizes wait on delayed ACKs: one line naming the sizes,
 * then the first one's diagnosis, in place of the whole run's (which
 * misses them when the slow sizes have few of the round trips, -d).
 */
static void sweep_diagnosis(struct snap *s, const struct run *r)
{
	char one[sizeof(s->diagnosis)], *p = s->diagnosis;
	size_t left = sizeof(s->diagnosis);
	int first = -1, w;

	for (unsigned int i = 0; i < s->nsizes; i++)
		if (s->sizes[i].delack && first < 0)
			first = (int)i;
	if (first < 0 || s->kind != SNAP_FINAL ||
	    !delack_of(r->cfg, r->sweep[first].rtt, one, sizeof(one)))
		return;
	w = snprintf(p, left, "at sizes");
	for (unsigned int i = 0; i < s->nsizes && w > 0 && (size_t)w < left; i++) {
		if (!s->sizes[i].delack)
			continue;
		p += w;
		left -= (size_t)w;
		w = snprintf(p, left, " %u", s->sizes[i].size);
	}
	if (w > 0 && (size_t)w < left)
		snprintf(p + w, left - (size_t)w, " bytes of %u (size %u: %s)", s->nsizes,
			 s->sizes[first].size, one);
	s->have_diagnosis = true;
}

/* A size's metrics besides rtt, with the clocks' verdict on them. */
static void fill_size_metrics(struct snap *s, struct snap_size *z, const struct sweep_point *sp)
{
	const struct clock_report *cr = s->have_clock ? &s->clock : NULL;

	s->size_shown[M_RTT] |= z->rtt.st.samples > 0;
	for (int m = 0; m < M_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];

		if (!sp->m[m] || !sp->m[m]->m.n)
			continue;
		snap_stats_small(&z->m[m], sp->m[m], d->name, d->label,
				 cr ? clock_metric_untrusted(cr, d) : NULL);
		z->have[m] = s->size_shown[m] = true;
	}
}

/* -m LIST or RANGE: each size's round trips and diagnosis, the line
 * through the medians and where it breaks. */
static int fill_sweep(struct snap *s, const struct run *r)
{
	char buf[8];
	int ret = 0;

	s->nsizes = r->nsweep;
	s->nfitted = 0;
	for (unsigned int i = 0; i < r->nsweep && !ret; i++) {
		const struct sweep_point *sp = &r->sweep[i];
		struct snap_size *z = &s->sizes[i];

		z->size = sp->size;
		z->sent = sp->sent;
		z->lost = sp->lost;
		ret = snap_stats_fill(&z->rtt, sp->rtt, "rtt", metric_defs[M_RTT].label, NULL);
		fill_size_metrics(s, z, sp);
		if (ret || !z->rtt.st.samples)
			continue;
		z->delack = delack_of(r->cfg, sp->rtt, buf, sizeof(buf));
		s->fitted_size[s->nfitted] = z->size;
		s->fitted_p50[s->nfitted++] = z->rtt.pct[0];
	}
	s->have_fit = !ret && r->nsweep &&
		      !sweep_fit(s->fitted_size, s->fitted_p50, s->nfitted, &s->fit);
	s->frag_above = r->frag_above;
	_Static_assert(RANT_MAX_SIZES <= SWEEP_MAX_POINTS, "a sweep's sizes fit the regimes");
	if (!ret && s->nfitted)
		sweep_regimes(s->fitted_size, s->fitted_p50, s->nfitted, s->frag_above,
			      s->regime, &s->nregimes);
	if (!ret)
		sweep_diagnosis(s, r);
	return ret;
}

/* The emitter's diagnosis from its round trips, if any. */
static void fill_diagnosis(struct snap *s, const struct run *r)
{
	if (s->emit && r->hist[M_RTT])
		s->have_diagnosis = delack_of(r->cfg, r->hist[M_RTT], s->diagnosis,
					      sizeof(s->diagnosis));
}

/* Breach b as the snapshot holds it: with its breakdown. */
static void take_breach(const struct breach *b, const struct snap_breach_ctx *ctx,
			struct snap_breach *sb)
{
	*sb = (struct snap_breach){ .rec = b->rec, .latency_ns = b->latency_ns };
	breakdown_compute(&sb->rec, ctx->emit, ctx->metric, &sb->bd);
}

/* The breaches (r's kept ones sorted, bkeep_sort()), the first, and what
 * became of the trace. */
static int fill_breaches(struct snap *s, const struct run *r)
{
	s->breach_ctx = (struct snap_breach_ctx){
		.emit = s->emit, .hw = r->sk.hw, .peer_hw = r->peer_hw,
		.peer_w = r->cfg->stamp ? stamppeer_suffix(&r->stamp_peer) : NULL,
		.peer_w3 = r->cfg->stamp ? stamppeer_suffix_t3(&r->stamp_peer) : NULL,
		.threshold_ns = r->cfg->threshold_ns, .size = r->cfg->size,
		.primary = run_primary(r), .metric = run_threshold_metric(r),
		.probe = cfg_probe(r->cfg),
	};
	s->have_breach_first = r->cnt.breaches > 0;
	if (s->have_breach_first)
		take_breach(&r->breach_first, &s->breach_ctx, &s->breach_first);
	s->have_trace = r->trace;
	if (r->trace)
		s->trace = (struct snap_trace){
			.dir = trace_dir(r->trace), .clock = trace_clock_name(r->trace),
			.cpu = trace_breach_cpu(r->trace), .err = r->trace_err,
		};
	if (!r->nbreach)
		return 0;
	s->breach = calloc(r->nbreach, sizeof(*s->breach));
	if (!s->breach)
		return -ENOMEM;
	for (unsigned int i = 0; i < r->nbreach; i++)
		take_breach(&r->breach[i], &s->breach_ctx, &s->breach[i]);
	s->nbreach = r->nbreach;
	return 0;
}

/* What only the end of the run has: see snap.h. */
static int fill_final(struct snap *s, struct run *r)
{
	int ret;

	r->cnt.socket_drops = sk_drops(&r->sk);	/* once: every format agrees */
	for (unsigned int i = 1; i < r->fs.nsk; i++)	/* a fleet's other sockets */
		r->cnt.socket_drops += sk_drops(r->fs.sk[i]);
	s->stop_reason = r->stop_reason;
	s->end_ns = r->end_ns;
	s->warn = &r->warn;
	if (r->log) {
		s->have_log = true;
		s->logged = txlog_logged(r->log);
		s->log_overwritten = txlog_overwritten(r->log);
		s->log_dropped = txlog_dropped(r->log);
	}
	if (r->clock) {
		clock_report(r->clock, &s->clock);
		s->have_clock = true;
	}
	s->hwts = r->sk.hwts;
	s->stamp_peer = r->stamp_peer;	/* the loop writes it */
	fill_diagnosis(s, r);
	s->diag = r->diag;	/* --http: the capture has stopped */
	s->server = r->server;	/* read after the loop (probesrv.h) */
	s->client = r->client;
	srvjudge(&s->diag, s->server, &s->server_judge);
	if (pairdiag_left(r->pair))
		s->diag_left = *pairdiag_left(r->pair);
	s->have_capture = r->capture && capture_result(r->capture);
	if (s->have_capture)
		s->capture = *capture_result(r->capture);
	ret = fill_breaches(s, r);
	if (!ret && r->sessions) {
		ret = sessions_snapshot(r->sessions, &s->sessions);
		s->have_sessions = !ret;
	}
	if (!ret && r->series) {
		ret = series_snapshot(r->series, &s->series);
		s->have_series = !ret;
	}
	return ret;
}

struct snap *snap_build(struct run *r, enum snap_kind kind)
{
	struct snap *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s)
		return NULL;
	s->kind = kind;
	s->cfg = r->cfg;
	s->emit = r->cfg->mode == MODE_EMIT;
	s->hw = r->sk.hw;
	s->hw_note = r->sk.hw_note;
	s->ts_flags = sk_ts_flags(&r->sk, r->cfg);
	s->peer_body = r->peer_body;
	s->peer_hw = r->peer_hw;
	s->have_peer_report = s->emit && !cfg_probe(r->cfg) && !r->fleet && r->fmt.f &&
			      r->fmt.f->caps.report_len;	/* a fleet's pings ask none */
	s->peer_report = r->peer_report;
	s->session = r->session;
	s->start_ns = r->start_ns;
	s->end_ns = realtime_ns();
	if (kind == SNAP_FINAL)
		ret = fill_final(s, r);
	else if (r->sessions)	/* none this time when the loop kept changing them */
		s->have_sessions = !sessions_snapshot_live(r->sessions, &s->sessions);
	if (r->clock) {
		clock_live(r->clock, &s->clock_live);
		s->have_clock_live = true;
	}
	s->cnt = r->cnt;
	s->xdp = r->xdp;
	s->probe = r->probe;	/* --syn, --http: 64-bit counters, as cnt's */
	if (r->cfg->tcp)
		s->tcp = *tcp_stats(&r->sk);
	if (!ret)
		ret = fill_metrics(s, r);
	if (!ret)
		ret = fill_sweep(s, r);
	if (!ret)
		ret = fleetsnap_take(s, r);
	if (ret) {
		snap_free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}
