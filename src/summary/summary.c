// SPDX-License-Identifier: GPL-2.0-or-later
/* The summary, from the snapshot (summary.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "allow.h"
#include "breach.h"
#include "clockout.h"
#include "serverout.h"
#include "seriesout.h"
#include "optprobe.h"
#include "pathout.h"
#include "peerout.h"
#include "probeout.h"
#include "statout.h"
#include "fleetout.h"
#include "fleetsnap.h"
#include "summary.h"
#include "sweepout.h"
#include "xdpout.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

#define STR_(x) #x
#define STR(x) STR_(x)
/* What hist.h promises of every percentile printed. */
#define PCT_PRECISION "0.1% (" STR(HIST_SIGNIFICANT_DIGITS) \
	" significant digits), exact below " STR(HIST_EXACT_BELOW_NS) " ns"

static const char *source_name(bool hw)
{
	return hw ? "hardware" : "kernel";
}

/* The reflector's wire stamps: kernel or hardware (rant's own pongs say
 * which); a STAMP reflector's as its Timestamp Information said (of T2,
 * or with t3 of T3): "software" (SW local: kernel or program, STAMP does
 * not tell), or "not_reported". */
static const char *peer_source(const struct snap *s, bool t3)
{
	const char *w;

	if (!s->cfg->stamp)
		return source_name(s->peer_hw);
	w = t3 ? stamppeer_suffix_t3(&s->stamp_peer) : stamppeer_suffix(&s->stamp_peer);
	return !strcmp(w, "_PEER_HW") ? "hardware" : !strcmp(w, "_PEER_SW") ? "software" :
	       "not_reported";
}

/* Measured pings without a pong, in % of those sent. */
static double loss_pct(const struct counts *c)
{
	return c->sent ? 100.0 * (double)c->lost / (double)c->sent : 0.0;
}

/* The log's lines written, left out (-L), overwritten (-S), dropped. */
static void print_log_counts(struct out *o, const struct snap *s)
{
	const struct rant_cfg *c = s->cfg;
	bool log = s->have_log;

	out_u64(o, "logged", log ? "log: %" PRIu64 " written" : NULL, s->logged);
	out_u64(o, "log_skipped", log && c->log_threshold_ns ? ", %" PRIu64 " below -L" : NULL,
		s->cnt.log_skipped);
	out_u64(o, "log_overwritten", log && c->log_ring ? ", %" PRIu64 " overwritten (-S)" : NULL,
		s->log_overwritten);
	out_u64(o, "log_dropped", log ? ", %" PRIu64 " dropped\n" : NULL, s->log_dropped);
	if (s->log_dropped)
		out_text(o, "warning: the log's writer fell behind and %" PRIu64 " records were dropped from the log (not from the statistics): write the log to a faster disk, give a larger --log-buffer, or log less with -L\n",
			 s->log_dropped);
}

/* Emitter: loss in detail, pings in flight, and the schedule of
 * --interval: its missed slots, with what they mean when there are any. */
static void print_pacing(struct out *o, const struct snap *s)
{
	const struct counts *c = &s->cnt;
	const struct rant_cfg *cfg = s->cfg;

	out_u64(o, "loss_burst_max", "loss: longest burst %" PRIu64, c->loss_burst_max);
	out_u64(o, "reordered", ", reordered %" PRIu64, c->reordered);
	out_u64(o, "inflight_max", cfg->open_loop ? ", in flight at most %" PRIu64 : NULL,
		cfg->open_loop ? c->inflight_max : c->sent > 0);
	out_text(o, "\n");
	out_u64(o, "missed_slots", cfg->interval_ns ? "schedule: %" PRIu64 " slots missed" : NULL,
		c->missed_slots);
	if (!cfg->interval_ns)
		return;
	if (!c->missed_slots)
		out_text(o, " (every ping left at its time)\n");
	else if (cfg->open_loop)
		out_text(o, " (left an interval or more late: the emitter could not keep its schedule: CPU, or --timeout / --interval pings in flight)\n");
	else
		out_text(o, " (their time passed while the emitter waited for an earlier pong: coordinated omission; they left late, and rtt_intended counts the wait; --open-loop does not wait)\n");
}

/* The first line of counts: what was sent and received, and of what kind. */
static void print_traffic(struct out *o, const struct snap *s)
{
	const struct counts *c = &s->cnt;
	const struct rant_cfg *cfg = s->cfg;
	bool emit = s->emit;

	out_u64(o, "sent", "sent %" PRIu64, c->sent);
	out_u64(o, "received", ", received %" PRIu64, c->received);
	out_u64(o, "lost", emit ? ", lost %" PRIu64 : NULL, c->lost);
	out_dbl(o, "loss_pct", emit ? " (%.2f%%)" : NULL, loss_pct(c));
	out_u64(o, "late", emit ? ", late %" PRIu64 : NULL, c->late);
	out_u64(o, "duplicate", ", duplicate %" PRIu64, c->duplicate);
	out_u64(o, "invalid", ", invalid %" PRIu64, c->invalid);
	/* --key: the emitter's are among its invalid, the reflector's apart */
	out_u64(o, "unauthenticated", !cfg->key_path ? NULL : emit ?
		" (unauthenticated %" PRIu64 ")" : ", unauthenticated %" PRIu64, c->unauthenticated);
	out_u64(o, "socket_drops", ", socket drops %" PRIu64, c->socket_drops);
	if (emit) {
		out_u64(o, "foreign", ", foreign %" PRIu64, c->foreign);
		out_u64(o, "refused", cfg->syn ? ", refused %" PRIu64 : cfg->icmp ? NULL :
			c->refused ? ", refused a session %" PRIu64 : NULL, c->refused);
	} else {
		out_u64(o, "sessions", ", sessions %" PRIu64, c->sessions);
		out_u64(o, "refused", !c->refused ? NULL : cfg->stamp ?
			", refused (unanswered) %" PRIu64 : ", refused %" PRIu64, c->refused);
		out_u64(o, "replayed", cfg->key_path ? ", replayed %" PRIu64 : NULL, c->replayed);
		out_u64(o, "not_allowed", cfg->allow.n ? ", not allowed %" PRIu64 : NULL,
			c->not_allowed);
		out_u64(o, "looped", cfg->stamp ? ", from a reflector's port %" PRIu64 : NULL,
			c->looped);
		out_u64(o, "repeated", cfg->stamp ? ", repeated (a loop's) %" PRIu64 : NULL,
			c->repeated);
		out_u64(o, "rate_limited", cfg->max_rate ? ", above --max-rate %" PRIu64 : NULL,
			c->rate_limited);
	}
	out_u64(o, "warmup", ", warmup %" PRIu64, c->warmup);
	out_u64(o, "warmup_late", emit ? " (late %" PRIu64 : NULL, c->warmup_late);
	out_u64(o, "warmup_duplicate", emit ? ", duplicate %" PRIu64 ")" : NULL,
		c->warmup_duplicate);
	out_u64(o, "fetch", c->fetch ? ", fetch %" PRIu64 : NULL, c->fetch);
	out_text(o, "\n");
}

static void print_counts(struct out *o, const struct snap *s)
{
	struct out jo = out_json_only(o);
	const struct counts *c = &s->cnt;
	int64_t threshold = s->cfg->threshold_ns;

	out_obj(o, "counts");
	print_traffic(o, s);
	if (s->fleet)	/* its icmp and syn targets' errors: the JSON's always,
			 * the text's with such a target */
		probeout_icmp_errors(fleetsnap_has_errors(s->fleet) ? o : &jo, s);
	out_u64(o, "missing_tx_ts", "missing stamps: TX %" PRIu64, c->missing_tx_ts);
	out_u64(o, "missing_tx_timeout", c->missing_tx_ts ? " (timeout %" PRIu64 : NULL,
		c->missing_tx_timeout);
	out_u64(o, "missing_tx_overflow", c->missing_tx_ts ? ", error queue overflow %" PRIu64 : NULL,
		c->missing_tx_overflow);
	out_u64(o, "missing_tx_full", c->missing_tx_ts ? ", table full %" PRIu64 ")" : NULL,
		c->missing_tx_full);
	out_u64(o, "missing_rx_ts", ", RX %" PRIu64, c->missing_rx_ts);
	out_u64(o, "backwards_tx_ts", "; backwards: TX %" PRIu64, c->backwards_tx_ts);
	out_u64(o, "backwards_rx_ts", ", RX %" PRIu64, c->backwards_rx_ts);
	out_u64(o, "qdisc_drops", c->qdisc_drops ? ", pongs dropped in the qdisc %" PRIu64 : NULL,
		c->qdisc_drops);
	out_u64(o, "send_errors", ", send errors %" PRIu64 "\n", c->send_errors);
	out_u64(o, "breaches", threshold ? "breaches: %" PRIu64 : NULL, c->breaches);
	if (threshold)
		out_text(o, " (threshold %.3f us)\n", (double)threshold / NS_PER_US);
	print_log_counts(o, s);
	if (s->emit)
		print_pacing(o, s);
	out_obj_end(o);
}

/* --tcp: what happened to the connections. */
static void print_tcp(struct out *o, const struct snap *s)
{
	const struct tcp_stats *t = &s->tcp;
	const struct rant_cfg *c = s->cfg;

	if (!c->tcp)
		return;
	out_obj(o, "tcp");
	if (!s->emit)
		out_u64(o, "accepted", "tcp: connections %" PRIu64, t->accepted);
	else
		out_u64(o, "reconnects", "tcp: reconnects %" PRIu64, t->reconnects);
	out_u64(o, "closed", ", closed by the peer %" PRIu64, t->closed);
	if (s->emit)
		out_u64(o, "closed_before_pong", " (%" PRIu64 " before any pong)",
			t->closed_before_pong);
	out_u64(o, "dropped_garbage", ", dropped (not rant's framing) %" PRIu64, t->garbage);
	if (s->emit)
		out_u64(o, "connect_failures", ", failed reconnects %" PRIu64, t->connect_failures);
	if (!s->emit) {
		out_u64(o, "max_open", ", at most %" PRIu64 " open", t->max_open);
		out_u64(o, "refused", ", refused (--max-sessions-per-address open) %" PRIu64,
			t->refused);
		out_u64(o, "evicted", ", evicted (the least used, for a newcomer) %" PRIu64,
			t->evicted);
		out_u64(o, "idle_timeouts", ", timed out idle %" PRIu64, t->idle_timeouts);
		out_u64(o, "partial_timeouts", ", in a message %" PRIu64, t->partial_timeouts);
		out_u64(o, "pongs_dropped", ", pongs dropped (peer not reading) %" PRIu64,
			t->pongs_dropped);
		out_u64(o, "idle_timeout_ns", NULL, (uint64_t)c->tcp_idle_ns);
	}
	out_u64(o, "writes", ", writes per message %" PRIu64, c->writes);
	out_str(o, "nagle", ", Nagle %s\n", c->nodelay ? "off" : "on");
	out_obj_end(o);
}

/* The metrics of the run that never got a sample: named unknown, with
 * what a STAMP reflector does not report. */
static void print_unknown(struct out *o, const struct snap *s)
{
	bool any = false;

	for (int m = 0; m < M_COUNT; m++)
		any |= s->unknown[m];
	if (!any)
		return;
	out_text(o, "  unknown:");
	out_arr(o, "metrics_unknown");
	for (int m = 0; m < M_COUNT; m++)
		if (s->unknown[m])
			out_str(o, NULL, " %s", metric_defs[m].name);
	out_arr_end(o);
	out_str(o, "metrics_unknown_why", " (%s)\n", !s->cfg->stamp ?
		"the stamps they need never came" : s->cfg->sw ?
		"a STAMP reflector reports no SW stamps (T2_SW, T3_SW); one that understands Follow-Up Telemetry reports T3 only there, and fills it only when stateful" :
		"a STAMP reflector that understands Follow-Up Telemetry reports T3 only there, and fills it only when stateful");
}

static void print_metrics(struct out *o, const struct snap *s)
{
	out_text(o, "\n%-13s %9s %10s %10s %10s", "us", "samples", "min", "avg", "stddev");
	for (size_t i = 0; i < SNAP_NPCT; i++)
		out_text(o, " %10s", snap_pct_keys[i]);
	out_text(o, " %10s\n", "max");
	out_str(o, "percentile_precision", NULL, PCT_PRECISION);
	out_obj(o, "metrics");
	for (int m = 0; m < M_COUNT; m++)
		if (s->shown[m])
			statout_stats(o, &s->metric[m]);
	if (s->have_rtt_intended)
		statout_stats(o, &s->rtt_intended);
	out_obj_end(o);
	out_text(o, "\n");
	for (int m = 0; m < M_COUNT; m++) {
		if (!s->shown[m])
			continue;
		out_text(o, "  %-13s %s", s->metric[m].key, s->metric[m].label);
		if (s->metric[m].untrusted)
			out_text(o, "  (untrusted: %s)", s->metric[m].untrusted);
		out_text(o, "\n");
	}
	if (s->have_rtt_intended)
		out_text(o, "  %-13s %s\n", s->rtt_intended.key, s->rtt_intended.label);
	print_unknown(o, s);
	if (!cfg_probe(s->cfg))
		out_text(o, "  T1 the ping sent (emitter), T2 received (reflector), T3 the pong sent (reflector), T4 received (emitter): wire stamps, %s; _SW user space, _SCHED into the qdisc\n",
			 s->hw ? "the NIC's (HW)" : "the kernel's (KN)");
}

/* Text only: the seed's summary of the primary metric. */
static void print_hist_summary(struct out *o, const struct snap *s)
{
	const struct snap_stats *st = &s->metric[s->primary];

	out_text(o, "\nHistogram Summary: %s, percentiles within %s\n", st->key, PCT_PRECISION);
	if (!st->st.samples) {
		out_text(o, "  no samples\n");
		return;
	}
	out_text(o, "  minimum  %12.3f us  (seq %" PRIu64 ")\n", (double)st->st.min / NS_PER_US,
		 st->st.min_seq);
	for (size_t i = 0; i < SNAP_NPCT; i++)
		out_text(o, "  p%-7s %12.3f us\n", snap_pct_keys[i], (double)st->pct[i] / NS_PER_US);
	out_text(o, "  maximum  %12.3f us  (seq %" PRIu64 ")\n", (double)st->st.max / NS_PER_US,
		 st->st.max_seq);
}

/* The linear histogram: text with -H, JSON always. */
static void print_histogram(struct out *to, const struct snap *s)
{
	const struct snap_linear *l = &s->hist;
	struct out o = s->cfg->histogram ? *to : out_json_only(to);

	out_text(&o, "\nHistogram: %s (bucket start, us: count)\n", l->metric);
	out_obj(&o, "histogram");
	out_str(&o, "metric", NULL, l->metric);
	out_i64(&o, "bucket_ns", NULL, l->bucket_ns);
	out_i64(&o, "overflow_ns", NULL, l->overflow_ns);
	out_arr(&o, "buckets");
	for (size_t i = 0; i < l->n; i++) {
		out_arr(&o, NULL);
		out_text(&o, "  %10.3f: ", (double)l->b[i].lo_ns / NS_PER_US);
		out_i64(&o, NULL, NULL, l->b[i].lo_ns);
		out_u64(&o, NULL, "%" PRIu64 "\n", l->b[i].count);
		out_arr_end(&o);
	}
	out_arr_end(&o);
	out_text(&o, "  overflow (>= %g us): %" PRIu64 "\n", (double)l->overflow_ns / NS_PER_US,
		 l->overflow);
	if (l->underflow)
		out_text(&o, "  underflow (< 0): %" PRIu64 "\n", l->underflow);
	out_u64(&o, "overflow", NULL, l->overflow);
	out_u64(&o, "underflow", NULL, l->underflow);
	out_obj_end(&o);
}

/* --allow and --key in the JSON's config. */
static void print_config_guard(struct out *o, const struct rant_cfg *c)
{
	char p[INET6_ADDRSTRLEN + 8];

	if (c->mode == MODE_REFLECT) {
		out_arr(o, "allow");
		for (unsigned int i = 0; i < c->allow.n; i++) {
			allow_str(&c->allow.p[i], p, sizeof(p));
			out_str(o, NULL, NULL, p);
		}
		out_arr_end(o);
	}
	if (c->mode == MODE_REFLECT) {
		out_u64(o, "max_sessions", NULL, c->max_sessions);
		out_u64(o, "max_sessions_per_address", NULL, c->max_per_address);
		if (c->key_path)
			out_u64(o, "key_window_ns", NULL, (uint64_t)c->key_window_ns);
	}
	out_bool(o, "authenticated", NULL, c->key_path != NULL);
}

static void print_config_emit(struct out *o, const struct rant_cfg *c)
{
	out_u64(o, "size", NULL, c->size);
	out_arr(o, "sizes");
	for (unsigned int i = 0; i < c->nsizes; i++)
		out_u64(o, NULL, NULL, c->sizes[i]);
	out_arr_end(o);
	out_i64(o, "timeout_ns", NULL, c->timeout_ns);
	out_i64(o, "warmup_timeout_ns", NULL, c->warmup_timeout_ns);
	out_i64(o, "interval_ns", NULL, c->interval_ns);
	out_bool(o, "open_loop", NULL, c->open_loop);
	if (c->targets_path)
		out_str(o, "targets", NULL, c->targets_path);
	out_u64(o, "paths", NULL, c->paths);
	out_u64(o, "dscp", NULL, c->dscp);
	out_bool(o, "flow_label", NULL, c->flow_label);
}

/* --syn, --http, --request: what is probed. */
static void print_config_probe(struct out *o, const struct rant_cfg *c)
{
	char host[320];

	out_str(o, "probe", NULL, c->icmp ? "icmp" : c->syn ? "syn" : c->http_path ? "http" : "request");
	if (c->icmp)
		out_u64(o, "payload_bytes", NULL, c->size);
	if (c->syn || c->icmp)
		return;
	if (c->http_path) {
		out_str(o, "http_path", NULL, c->http_path);
		optprobe_host(c, host, sizeof(host));
		out_str(o, "host", NULL, host);
	} else {
		out_str(o, "request_file", NULL, c->request_path);
		out_u64(o, "response_bytes", NULL, c->response_bytes);
	}
	out_u64(o, "connections", NULL, c->connections);
	out_u64(o, "threads", NULL, c->threads);
	out_bool(o, "quickack", NULL, c->quickack);
}

/* JSON only: the options of the run. */
static void print_config(struct out *to, const struct rant_cfg *c)
{
	struct out jo = out_json_only(to), *o = &jo;

	out_strs(o, "command_line", (const char *const *)c->argv, (size_t)c->argc);
	out_obj(o, "config");
	if (c->addr)
		out_str(o, "address", NULL, c->addr);
	out_u64(o, "port", NULL, c->port);
	out_i64(o, "duration_ns", NULL, c->duration_ns);
	out_u64(o, "count", NULL, c->count);
	out_u64(o, "warmup", NULL, c->warmup);
	if (c->mode == MODE_EMIT)
		print_config_emit(o, c);
	if (cfg_probe(c))
		print_config_probe(o, c);
	out_bool(o, "block", NULL, c->block);
	out_bool(o, "sw_timestamps", NULL, c->sw);
	out_bool(o, "no_hw_ts", NULL, c->no_hw_ts);
	out_bool(o, "no_queue_stamps", NULL, c->no_queue_stamps);
	out_i64(o, "bucket_ns", NULL, c->bucket_ns);
	out_i64(o, "overflow_ns", NULL, c->overflow_ns);
	out_bool(o, "hugepages", NULL, c->hugepages);
	out_i64(o, "busy_poll_us", NULL, c->busy_poll_us);
	out_i64(o, "budget", NULL, c->budget);
	out_bool(o, "prefer_busypoll", NULL, c->prefer_busypoll);
	out_i64(o, "threshold_ns", NULL, c->threshold_ns);
	out_bool(o, "continue", NULL, c->cont);
	out_i64(o, "log_threshold_ns", NULL, c->log_threshold_ns);
	out_bool(o, "trace_marker", NULL, c->trace_marker);
	out_bool(o, "snapshot", NULL, c->log_ring || c->trace_snapshot);
	if (c->trace_marker)
		out_str(o, "trace_instance", NULL, c->trace_instance);
	out_str(o, "transport", NULL, c->tcp ? "tcp" : "udp");
	out_i64(o, "report_interval_ns", NULL, c->report_interval_ns);
	out_i64(o, "max_clock_offset_ns", NULL, c->max_clock_offset_ns);
	out_i64(o, "phc_interval_ns", NULL, c->phc_interval_ns);
	if (c->mode == MODE_EMIT)
		out_bool(o, "one_way", NULL, c->one_way);
	out_bool(o, "ptp_mode", NULL, c->ptp_mode);
	out_bool(o, "stamp", NULL, c->stamp);
	if (c->stamp) {
		out_str(o, "stamp_ts", NULL, c->stamp_ts);
		if (c->mode == MODE_REFLECT)
			out_bool(o, "stamp_stateful", NULL, c->stamp_stateful);
	}
	if (c->tcp) {
		out_u64(o, "writes", NULL, c->writes);
		out_bool(o, "nodelay", NULL, c->nodelay);
		out_bool(o, "quickack", NULL, c->quickack);
		out_bool(o, "cork", NULL, c->cork);
	}
	print_config_guard(o, c);
	out_obj_end(o);
}

/* --stamp: what the reflector said of itself (the text had it after the
 * warm-up; again here only when it changed during the run). */
static void print_stamp_peer(struct out *o, const struct snap *s)
{
	struct out jo = out_json_only(o);

	stamppeer_print(s->stamp_peer.changes ? o : &jo, &s->stamp_peer);
}

/* The run: JSON, who and when; text, the first two lines. */
static void print_head(struct out *o, const struct snap *s)
{
	const struct rant_cfg *c = s->cfg;
	const char *layers[8];

	out_str(o, "rant_version", NULL, RANT_VERSION);
	out_str(o, "mode", NULL, cfg_probe(c) ? "probe" : s->emit ? "emit" : "reflect");
	out_str(o, "interface", NULL, c->iface);
	out_str(o, "timestamp_source", NULL, source_name(s->hw));
	if (!s->hw)
		out_str(o, "timestamp_note", NULL, s->hw_note);
	/* the stamp layers asked of the kernel (the start-up line says them) */
	out_strs(o, "stamp_layers", layers, ts_layers(s->ts_flags, layers, 8));
	if (s->emit && s->peer_body)
		out_str(o, "reflector_timestamp_source", NULL, peer_source(s, false));
	if (s->emit && s->peer_body && c->stamp) {
		out_str(o, "reflector_t3_timestamp_source", NULL, peer_source(s, true));
		out_str(o, "reflector_t3_from", NULL,
			stamppeer_t3_own(&s->stamp_peer) ? "reply" : "follow_up");
		out_bool(o, "network_includes_reflector_stack", NULL, s->network_stack);
	}
	if (s->emit)
		out_u64(o, "session", NULL, s->session);
	out_i64(o, "start_ns", NULL, s->start_ns);
	out_i64(o, "end_ns", NULL, s->end_ns);
	out_str(o, "stop_reason", NULL, s->stop_reason ? s->stop_reason : "");
	print_config(o, c);
	out_text(o, "\n--- Latency Statistics ---\n");
	out_text(o, "%s on %s, %.3f s measured, timestamps %s",
		 cfg_probe(c) ? "probe" : s->emit ? "emit" : "reflect",
		 c->iface, (double)(s->end_ns - s->start_ns) / NS_PER_SEC, source_name(s->hw));
	if (s->emit && s->peer_body)
		out_text(o, " (reflector: %s)", peer_source(s, false));
	out_text(o, ", stopped: %s\n", s->stop_reason ? s->stop_reason : "?");
	print_stamp_peer(o, s);
}

/* -I: the interval with the largest p99, or NULL. */
static const struct series_row *worst_interval(const struct snap *s)
{
	const struct series_row *w = NULL;

	for (size_t i = 0; s->have_series && i < s->series.n; i++) {
		const struct series_row *r = &s->series.rows[i];

		if (r->samples && (!w || r->p99 > w->p99))
			w = r;
	}
	return w;
}

/*
 * The lines that must not be missed, first: a closed loop that fell
 * behind its schedule (its rtt measured from when each ping left hides
 * the queue; rtt_intended, from the slot, shows it), with the share of
 * the run's slots missed, and with -I the worst interval's p99. JSON:
 * "headline", the same numbers.
 */
static void print_headline(struct out *o, const struct snap *s)
{
	const struct rant_cfg *c = s->cfg;
	const struct snap_stats *p = &s->metric[s->primary], *ri = &s->rtt_intended;
	const struct series_row *w = worst_interval(s);
	bool queue = s->emit && c->interval_ns && !c->open_loop && s->cnt.missed_slots &&
		     s->have_rtt_intended && ri->st.samples;
	double slots = (double)(s->end_ns - s->start_ns) /
		       (double)(c->interval_ns ? c->interval_ns : 1);
	double share = slots > 0 ? 100.0 * (double)s->cnt.missed_slots / slots : 0;
	char a[32], b[32], m[32];

	out_obj(o, "headline");
	probeout_headline(o, s);
	if (queue) {
		share = share > 100 ? 100 : share;
		out_text(o, "closed loop behind its schedule: %s p99 %s (max %s) beside %s p99 %s; %"
			 PRIu64 " slots missed, %.1f%% of the run's: its transactions waited for late answers and left late, catching up (%s hides that queue; --open-loop does not wait)\n",
			 ri->key, statout_human_ns(ri->pct[SNAP_P99], a, sizeof(a)),
			 statout_human_ns(ri->st.max, m, sizeof(m)), p->key,
			 statout_human_ns(p->pct[SNAP_P99], b, sizeof(b)), s->cnt.missed_slots,
			 share, p->key);
		out_i64(o, "rtt_intended_p99", NULL, ri->pct[SNAP_P99]);
		out_i64(o, "rtt_intended_max", NULL, ri->st.max);
		out_dbl(o, "catch_up_pct", NULL, share);
	}
	if (w) {
		out_text(o, "worst interval (-I): %s p99 %s at %.1f s (the run's p99 %s)\n",
			 p->key, statout_human_ns(w->p99, a, sizeof(a)),
			 (double)w->t_ns / NS_PER_SEC,
			 statout_human_ns(p->pct[SNAP_P99], b, sizeof(b)));
		out_i64(o, "worst_interval_p99", NULL, w->p99);
		out_i64(o, "worst_interval_t_ns", NULL, w->t_ns);
	}
	out_obj_end(o);
}

/*
 * Every warning of the run (JSON: code, text, fix): those printed at
 * set-up, the clock's and the log's; the text names their codes, the
 * lines themselves were printed where they were found.
 */
static void print_warnings(struct out *o, const struct snap *s)
{
	const struct clock_report *cr = s->have_clock ? &s->clock : NULL;
	unsigned int nrun = s->warn ? s->warn->n : 0, nclock = cr ? cr->nwarn : 0;
	struct out jo = out_json_only(o);

	out_arr(&jo, "warnings");
	for (unsigned int i = 0; i < nrun; i++)
		warn_print_one(o, s->warn->w[i].code, s->warn->w[i].text, s->warn->w[i].fix);
	for (unsigned int i = 0; i < nclock; i++)
		warn_print_one(o, cr->warn_code[i], cr->warn[i], cr->warn_fix[i]);
	if (s->log_dropped)
		warn_print_one(o, "log_dropped", "the log's writer fell behind: records were dropped from the log (not from the statistics)",
			       "write the log to a faster disk, give a larger --log-buffer, or log less with -L");
	out_arr_end(&jo);
	if (!nrun && !nclock)
		return;
	out_text(o, "warnings: %u:", nrun + nclock);
	for (unsigned int i = 0; i < nrun; i++)
		out_text(o, " %s", s->warn->w[i].code);
	for (unsigned int i = 0; i < nclock; i++)
		out_text(o, " %s", cr->warn_code[i]);
	out_text(o, " (each printed with its fix; the JSON's warnings)\n");
}

void summary_print(struct out *o, const struct snap *s)
{
	struct out jo = out_json_only(o);

	out_obj(o, NULL);
	print_head(o, s);
	print_headline(o, s);
	print_counts(o, s);
	xdpout_print(o, s->xdp);
	peerout_print(o, s);
	if (cfg_probe(s->cfg))
		probeout_counts(o, s);
	if (s->have_sessions)
		sessions_print(o, &s->sessions);
	print_tcp(o, s);
	print_metrics(o, s);
	pathout_print(o, s);
	print_hist_summary(o, s);
	print_histogram(o, s);
	sweepout_print(o, s);
	if (s->have_series)
		series_print(o, &s->series, s->metric[s->primary].pct[0], loss_pct(&s->cnt));
	if (s->have_diagnosis)
		out_str(o, "diagnosis_line", "\ndiagnosis from the round trips: %s\n", s->diagnosis);
	probeout_diagnosis(o, s);
	serverout_print(o, "server", s->server, &s->server_judge, false);
	serverout_print(o, "client", s->client, NULL, false);
	if (s->have_capture)
		capture_print(o, &s->capture, s->emit);
	out_arr(&jo, "breaches");	/* the text was printed at the end of the run */
	for (unsigned int i = 0; i < s->nbreach; i++) {
		out_obj(&jo, NULL);
		breach_print(&jo, &s->breach_ctx, &s->breach[i]);
		out_obj_end(&jo);
	}
	out_arr_end(&jo);
	if (s->have_clock)
		clock_print(o, &s->clock, s->hw, &s->hwts);
	print_warnings(o, s);
	fleetout_print(o, s);	/* last: the text ends with the targets' table */
	out_obj_end(o);
	out_doc_end(o);
}
