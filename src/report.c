// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text and JSON output from one set of calls (iproute2's print_* idea):
 * each o_*() call prints its value to the text stream with a format and
 * to the JSON document under a key; either may be absent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "allow.h"
#include "breakdown.h"
#include "capture.h"
#include "cpucheck.h"
#include "hist.h"
#include "hwts.h"
#include "diagnose.h"
#include "json.h"
#include "sweep.h"
#include "measure.h"
#include "report.h"
#include "rtcheck.h"
#include "series.h"
#include "session.h"
#include "trace.h"
#include "wire.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

struct out {
	FILE *t;		/* text, or NULL */
	struct json *j;		/* JSON, or NULL */
};

static void o_u64(struct out *o, const char *key, const char *fmt, uint64_t v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && key)
		json_u64(o->j, key, v);
}

static void o_i64(struct out *o, const char *key, const char *fmt, int64_t v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && key)
		json_i64(o->j, key, v);
}

static void o_dbl(struct out *o, const char *key, const char *fmt, double v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && key)
		json_double(o->j, key, v);
}

static void o_str(struct out *o, const char *key, const char *fmt,
		  const char *v)
{
	if (o->t && fmt)
		fprintf(o->t, fmt, v);
	if (o->j && key)
		json_str(o->j, key, v);
}

static void o_obj(struct out *o, const char *key)
{
	if (o->j)
		json_obj_begin(o->j, key);
}

static void o_end(struct out *o)
{
	if (o->j)
		json_obj_end(o->j);
}

#define o_text(o, ...) do { if ((o)->t) fprintf((o)->t, __VA_ARGS__); } while (0)

static const double pcts[] = { 50, 90, 95, 99, 99.9, 99.99, 99.999 };
static const char *const pct_keys[] = {
	"50", "90", "95", "99", "99.9", "99.99", "99.999",
};
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))
#define STR_(x) #x
#define STR(x) STR_(x)
/* What hist.h promises of every percentile printed. */
#define PCT_PRECISION "0.1% (" STR(HIST_SIGNIFICANT_DIGITS) \
	" significant digits), exact below " STR(HIST_EXACT_BELOW_NS) " ns"

FILE *report_text_stream(const struct run *r)
{
	const char *j = r->cfg->json_path, *pc = r->cfg->pcap_path, *l = r->cfg->log_path;

	if (pc && !strcmp(pc, "-"))
		return stderr;	/* stdout carries the capture */
	/* The log streams to stdout during the run with -l -: keep apart. */
	return (j && !strcmp(j, "-")) || (l && !strcmp(l, "-")) ? stderr : stdout;
}

static const char *source_name(bool hw)
{
	return hw ? "hardware" : "kernel";
}

static const char *wire_suffix(bool hw)
{
	return hw ? "HW" : "KN";
}

/* A spinning real-time rant that the kernel will stop every second. */
static void warn_rt_throttle(FILE *f, const struct rant_cfg *c)
{
	struct rtcheck_src src;
	char msg[640];

	rtcheck_system(&src);
	if (rtcheck_throttle(&src, sched_getscheduler(0), !c->block, msg, sizeof(msg)) == 1)
		fprintf(f, "%s\n", msg);
}

/* A spinning rant whose CPUs another spinning rant may use too. */
static void warn_cpu_shared(FILE *f, const struct rant_cfg *c)
{
	cpu_set_t mine;
	char msg[512];

	if (c->block || sched_getaffinity(0, sizeof(mine), &mine))
		return;
	if (cpucheck_shared("/proc", getpid(), &mine, msg, sizeof(msg)) == 1)
		fprintf(f, "%s\n", msg);
}

/* Who may talk to the reflector (--allow), and --key. */
static void report_start_guard(FILE *f, const struct rant_cfg *c)
{
	char p[INET6_ADDRSTRLEN + 8];

	if (c->allow.n) {
		fprintf(f, "allow:");
		for (unsigned int i = 0; i < c->allow.n; i++) {
			allow_str(&c->allow.p[i], p, sizeof(p));
			fprintf(f, " %s", p);
		}
		fprintf(f, " (others dropped and counted)\n");
	}
	if (c->key_path)
		fprintf(f, "key: pings and pongs carry an HMAC-SHA-256 (16 bytes) with the key of %s\n",
			c->key_path);
}

/* The interface's timestamping (-v: as ethtool -T prints it), a setting
 * found in force, and --ptp-mode. */
static void report_hwts_start(FILE *f, const struct run *r)
{
	const struct rant_cfg *c = r->cfg;

	if (c->verbose)
		hwts_print_caps(f, c->iface, &r->sk.hwts);
	if (r->sk.hwts.notice[0])
		fprintf(f, "hwtstamp: %s\n", r->sk.hwts.notice);
	if (c->ptp_mode)
		fprintf(f, "ptp-mode: pings travel as PTPv2 %s, pongs as %s (domain %d), from and to UDP port %u\n",
			ptp_type_name(PTP_DELAY_REQ), ptp_type_name(PTP_SYNC), PTP_RANT_DOMAIN,
			c->port);
}

void report_start(const struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	FILE *f = report_text_stream(r);

	if (c->mode == MODE_EMIT && c->nsizes > 1)
		fprintf(f, "rant %s emit: %s -> %s port %u, sweep of %u sizes from %u bytes, session %08x\n",
			RANT_VERSION, c->iface, c->addr, c->port, c->nsizes, c->size, r->session);
	else if (c->mode == MODE_EMIT)
		fprintf(f, "rant %s emit: %s -> %s port %u, %u-byte payload, session %08x\n",
			RANT_VERSION, c->iface, c->addr, c->port, c->size, r->session);
	else
		fprintf(f, "rant %s reflect: %s port %u\n", RANT_VERSION, c->iface, c->port);
	report_start_guard(f, c);
	if (c->tcp)
		fprintf(f, "tcp: %u write%s per message, Nagle %s%s%s\n", c->writes,
			c->writes > 1 ? "s" : "", c->nodelay ? "off (--nodelay)" : "on",
			c->quickack ? ", quick ACKs" : "", c->cork ? ", corked" : "");
	report_hwts_start(f, r);
	if (r->sk.hw)
		fprintf(f, "timestamps: hardware (NIC, PHC time): columns T*_HW\n");
	else
		fprintf(f, "timestamps: kernel software, not the NIC's (%s): columns T*_KN\n",
			r->sk.hw_note);
	if (c->mode == MODE_EMIT && c->open_loop)
		fprintf(f, "pacing: open loop, a ping every %g us whether or not the pongs came back (up to %zu in flight)\n",
			(double)c->interval_ns / NS_PER_US, (size_t)(r->flight.mask + 1));
	else if (c->mode == MODE_EMIT && c->interval_ns)
		fprintf(f, "pacing: closed loop, a slot every %g us, each ping waits for its pong (--open-loop does not)\n",
			(double)c->interval_ns / NS_PER_US);
	if (c->mode == MODE_EMIT && c->size < (c->key_path ? WIRE_AUTH_PONG_LEN : WIRE_PONG_LEN))
		fprintf(f, "note: -m %u is below %d bytes%s: pongs cannot carry the reflector's stamps\n",
			c->size, c->key_path ? WIRE_AUTH_PONG_LEN : WIRE_PONG_LEN,
			c->key_path ? " (72 and the MAC of --key)" : "");
	if (r->trace && trace_mounted(r->trace))
		fprintf(f, "ftrace: tracefs was not mounted here: mounted it at /sys/kernel/tracing\n");
	if (r->trace && trace_no_snapshot(r->trace))
		fprintf(f, "ftrace: warning: this kernel has no ftrace snapshot (CONFIG_TRACER_SNAPSHOT is off): -S freezes the trace by tracing_on alone (the log is still a ring)\n");
	if (r->capture)
		capture_describe(r->capture, f);
	warn_rt_throttle(f, c);
	warn_cpu_shared(f, c);
	if (c->verbose) {
		fprintf(f, "waiting: %s; busy poll %d us; warm-up %u; duration %.3f s; count %" PRIu64 "\n",
			c->block ? "poll()" : "spinning", c->busy_poll_us,
			c->warmup,
			(double)c->duration_ns / NS_PER_SEC, c->count);
		if (r->trace)
			fprintf(f, "ftrace: markers to %s/trace_marker%s\n", trace_dir(r->trace),
				c->snapshot ? ", snapshot at a breach" : "");
	}
	fflush(f);
}

/* The name of a stamp as the log and breakdown show it. */
static const char *stamp_name(const struct run *r, enum point p, char *buf,
			      size_t len)
{
	static const char *const base[P_COUNT] = {
		"T1_SW", "T1", "T2", "T2_SW", "T3_SW", "T3", "T4", "T4_SW",
	};
	bool local = r->cfg->mode == MODE_EMIT ?
		     (p == P_T1_WIRE || p == P_T4_WIRE) : true;
	bool hw = local ? r->sk.hw : r->peer_hw;

	if (p == P_T1_WIRE || p == P_T2_WIRE || p == P_T3_WIRE || p == P_T4_WIRE)
		snprintf(buf, len, "%s_%s", base[p], wire_suffix(hw));
	else
		snprintf(buf, len, "%s", base[p]);
	return buf;
}

/* Metrics in the order of the path, then the totals. */
static const enum metric_id path_order[] = {
	M_EMIT_QUEUE, M_EMIT_TX, M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_QUEUE,
	M_REFLECT_TX, M_EMIT_RX,
	M_NETWORK, M_RESPONSE, M_RTT, M_RTT_SW, M_EMIT_ACK,
};

/* Over TCP: the ACK stamp, always the kernel's. */
static void print_ack_stamp(struct out *o, const struct txrec *rec)
{
	int64_t t = txrec_stamp(rec, P_T_ACK);

	if (t == TS_NONE)
		return;
	o_text(o, "    %-8s %" PRId64 ".%09" PRId64 "\n", "T_ACK_KN",
	       (int64_t)(t / NS_PER_SEC), (int64_t)(t % NS_PER_SEC));
	if (o->j)
		json_i64(o->j, "T_ACK_KN", t);
}

/* The side's SCHED stamp (its packet entered the qdisc), a kernel stamp
 * known where the wire stamps are kernel ones too. */
static void print_sched_stamp(struct out *o, const struct run *r,
			      const struct txrec *rec)
{
	bool emit = r->cfg->mode == MODE_EMIT;
	int64_t t = txrec_sched(rec, emit, !r->sk.hw);
	const char *name = emit ? "T1_SCHED" : "T3_SCHED";

	if (t == TS_NONE)
		return;
	o_text(o, "    %-8s %" PRId64 ".%09" PRId64 "\n", name,
	       (int64_t)(t / NS_PER_SEC), (int64_t)(t % NS_PER_SEC));
	if (o->j)
		json_i64(o->j, name, t);
}

static void print_breach(struct out *o, const struct run *r,
			 const struct breach *b)
{
	bool emit = r->cfg->mode == MODE_EMIT;
	struct breakdown bd;
	char name[16];

	breakdown_compute(&b->rec, emit, &bd);
	o_text(o, "\n*** Threshold breach: %s", emit ? "RTT" : "response");
	o_u64(o, "seq", " of seq %" PRIu64, b->rec.seq);
	o_i64(o, "latency", " is %" PRId64 " ns", b->latency_ns);
	o_i64(o, "threshold", " > threshold %" PRId64 " ns\n", r->cfg->threshold_ns);
	o_text(o, "  stamps (s.ns):\n");
	o_obj(o, "stamps");
	for (int p = 0; p < P_COUNT; p++) {
		int64_t t = txrec_stamp(&b->rec, p);

		if (t == TS_NONE)
			continue;
		stamp_name(r, p, name, sizeof(name));
		o_text(o, "    %-8s %" PRId64 ".%09" PRId64 "\n", name,
		       (int64_t)(t / NS_PER_SEC), (int64_t)(t % NS_PER_SEC));
		if (o->j)
			json_i64(o->j, name, t);
	}
	print_ack_stamp(o, &b->rec);
	print_sched_stamp(o, r, &b->rec);
	o_end(o);
	/* The path's steps first, in path order, then the totals. */
	o_obj(o, "components");
	for (int pass = 0; pass < 2; pass++) {
		o_text(o, pass ? "  totals (ns):\n" : "  path (ns):\n");
		for (size_t i = 0; i < sizeof(path_order) / sizeof(path_order[0]); i++) {
			enum metric_id m = path_order[i];

			bool in_path = breakdown_is_step(&bd, m, emit) ||
				       breakdown_is_part(m, emit);

			if (!bd.have[m] || in_path == pass)
				continue;
			o_text(o, "    %-44s", metric_defs[m].label);
			o_i64(o, metric_defs[m].name, " %10" PRId64, bd.ns[m]);
			o_text(o, "%s\n", (int)m == bd.largest ? "  <-- where the spike is" : "");
		}
	}
	o_end(o);
	if (bd.largest >= 0)
		o_str(o, "largest", NULL, metric_defs[bd.largest].name);
	if (emit && !bd.have[M_RESPONSE] && r->cfg->size >= WIRE_PONG_LEN)
		o_text(o, "  (the reflector's TX stamp of this pong never arrived: response and network unknown)\n");
}

/* After the first breach's breakdown: what became of the trace, and the
 * command that reads it. */
static void print_trace_note(FILE *f, const struct run *r)
{
	const char *dir = trace_dir(r->trace), *j = r->cfg->json_path;
	int cpu = trace_breach_cpu(r->trace);

	if (r->trace_err == -EALREADY)
		fprintf(f, "  ftrace: the instance %s was already frozen (tracing_on 0), most likely by the other side's breach: its RANT_BREACH is the one in the trace; this side's breach (%s, CPU %d) is the one above\n",
			dir, r->cfg->mode == MODE_EMIT ? "emit" : "reflect", cpu);
	else if (!r->trace_err)
		fprintf(f, "  ftrace: RANT_BREACH written (%s on CPU %d, trace_clock %s) and %s frozen\n",
			r->cfg->mode == MODE_EMIT ? "emit" : "reflect", cpu,
			trace_clock_name(r->trace), dir);
	else
		return;		/* main() says what failed */
	fprintf(f, "  what the kernel did: rant-trace --instance %s%s%s\n", dir,
		j && strcmp(j, "-") ? " --json " : "", j && strcmp(j, "-") ? j : "");
	fprintf(f, "  (or save it first: cp %s/trace breach.trace; rant-trace breach.trace%s%s)\n",
		dir, j && strcmp(j, "-") ? " --json " : "", j && strcmp(j, "-") ? j : "");
}

void report_breach(const struct run *r, const struct breach *b)
{
	struct out o = { .t = report_text_stream(r) };

	print_breach(&o, r, b);
	if (r->trace && b == &r->breach[0])
		print_trace_note(o.t, r);
	fflush(o.t);
}

/* Measured pings without a pong, in % of those sent. */
static double loss_pct(const struct counts *c)
{
	return c->sent ? 100.0 * (double)c->lost / (double)c->sent : 0.0;
}

/* The log's lines written, left out (-L), overwritten (-S), dropped. */
static void print_log_counts(struct out *o, const struct run *r)
{
	uint64_t dropped = r->log ? txlog_dropped(r->log) : 0;

	o_u64(o, "logged", r->log ? "log: %" PRIu64 " written" : NULL,
	      r->log ? txlog_logged(r->log) : 0);
	o_u64(o, "log_skipped", r->log && r->cfg->log_threshold_ns ?
	      ", %" PRIu64 " below -L" : NULL, r->cnt.log_skipped);
	o_u64(o, "log_overwritten", r->log && r->cfg->snapshot ?
	      ", %" PRIu64 " overwritten (-S)" : NULL,
	      r->log ? txlog_overwritten(r->log) : 0);
	o_u64(o, "log_dropped", r->log ? ", %" PRIu64 " dropped\n" : NULL, dropped);
	if (dropped)
		o_text(o, "warning: the log's writer fell behind and %" PRIu64 " records were dropped from the log (not from the statistics): write the log to a faster disk, give a larger --log-buffer, or log less with -L\n",
		       dropped);
}

/* Emitter: loss in detail, pings in flight, and the schedule of
 * --interval: its missed slots, with what they mean when there are any. */
static void print_pacing(struct out *o, const struct run *r)
{
	const struct counts *c = &r->cnt;
	const struct rant_cfg *cfg = r->cfg;

	o_u64(o, "loss_burst_max", "loss: longest burst %" PRIu64, c->loss_burst_max);
	o_u64(o, "reordered", ", reordered %" PRIu64, c->reordered);
	o_u64(o, "inflight_max", cfg->open_loop ? ", in flight at most %" PRIu64 : NULL,
	      cfg->open_loop ? c->inflight_max : c->sent > 0);
	o_text(o, "\n");
	o_u64(o, "missed_slots", cfg->interval_ns ? "schedule: %" PRIu64 " slots missed" : NULL,
	      c->missed_slots);
	if (!cfg->interval_ns)
		return;
	if (!c->missed_slots)
		o_text(o, " (every ping left at its time)\n");
	else if (cfg->open_loop)
		o_text(o, " (left an interval or more late: the emitter could not keep its schedule: CPU, or --timeout / --interval pings in flight)\n");
	else
		o_text(o, " (their time passed while the emitter waited for an earlier pong: coordinated omission; they left late, and rtt_intended counts the wait; --open-loop does not wait)\n");
}

static void print_counts(struct out *o, const struct run *r)
{
	const struct counts *c = &r->cnt;

	o_obj(o, "counts");
	o_u64(o, "sent", "sent %" PRIu64, c->sent);
	o_u64(o, "received", ", received %" PRIu64, c->received);
	if (r->cfg->mode == MODE_EMIT) {
		o_u64(o, "lost", ", lost %" PRIu64, c->lost);
		o_dbl(o, "loss_pct", " (%.2f%%)", loss_pct(c));
		o_u64(o, "late", ", late %" PRIu64, c->late);
	} else {
		o_u64(o, "lost", NULL, c->lost);
		o_dbl(o, "loss_pct", NULL, loss_pct(c));
		o_u64(o, "late", NULL, c->late);
	}
	o_u64(o, "duplicate", ", duplicate %" PRIu64, c->duplicate);
	o_u64(o, "invalid", ", invalid %" PRIu64, c->invalid);
	/* --key: the emitter's are among its invalid, the reflector's apart */
	o_u64(o, "unauthenticated", !r->cfg->key_path ? NULL : r->cfg->mode == MODE_EMIT ?
	      " (unauthenticated %" PRIu64 ")" : ", unauthenticated %" PRIu64, c->unauthenticated);
	o_u64(o, "socket_drops", ", socket drops %" PRIu64, c->socket_drops);
	if (r->cfg->mode == MODE_EMIT) {
		o_u64(o, "foreign", ", foreign %" PRIu64, c->foreign);
	} else {
		o_u64(o, "sessions", ", sessions %" PRIu64, c->sessions);
		o_u64(o, "refused", c->refused ? ", refused %" PRIu64 : NULL, c->refused);
		o_u64(o, "not_allowed", r->cfg->allow.n ? ", not allowed %" PRIu64 : NULL,
		      c->not_allowed);
	}
	o_u64(o, "warmup", ", warmup %" PRIu64, c->warmup);
	if (r->cfg->mode == MODE_EMIT) {
		o_u64(o, "warmup_late", " (late %" PRIu64, c->warmup_late);
		o_u64(o, "warmup_duplicate", ", duplicate %" PRIu64 ")", c->warmup_duplicate);
	} else {
		o_u64(o, "warmup_late", NULL, c->warmup_late);
		o_u64(o, "warmup_duplicate", NULL, c->warmup_duplicate);
	}
	o_text(o, "\n");
	o_u64(o, "missing_tx_ts", "missing stamps: TX %" PRIu64, c->missing_tx_ts);
	o_u64(o, "missing_rx_ts", ", RX %" PRIu64, c->missing_rx_ts);
	o_u64(o, "backwards_tx_ts", "; backwards: TX %" PRIu64, c->backwards_tx_ts);
	o_u64(o, "backwards_rx_ts", ", RX %" PRIu64, c->backwards_rx_ts);
	o_u64(o, "send_errors", ", send errors %" PRIu64 "\n", c->send_errors);
	o_u64(o, "breaches", r->cfg->threshold_ns ? "breaches: %" PRIu64 : NULL, c->breaches);
	if (r->cfg->threshold_ns)
		o_text(o, " (threshold %" PRId64 " ns)\n", r->cfg->threshold_ns);
	print_log_counts(o, r);
	if (r->cfg->mode == MODE_EMIT)
		print_pacing(o, r);
	o_end(o);
}

/* JSON only: the non-empty log-linear buckets, [lo, hi, count] each. */
static void print_hdr(struct json *j, const struct hist *h)
{
	struct hist_bucket b;
	size_t pos = 0;

	json_obj_begin(j, "hdr");
	json_u64(j, "significant_digits", HIST_SIGNIFICANT_DIGITS);
	json_arr_begin(j, "buckets");
	while (hist_hdr_next(h, &pos, &b)) {
		json_arr_begin(j, NULL);
		json_i64(j, NULL, b.lo);
		json_i64(j, NULL, b.hi);
		json_u64(j, NULL, b.count);
		json_arr_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* One metric's statistics: a text row and/or the JSON object under key;
 * untrusted: why its clocks disagree, or NULL. */
static void print_stats(struct out *o, const char *key, struct hist *h,
			const char *label, const char *untrusted)
{
	struct hist_stats st;

	hist_get_stats(h, &st);
	o_text(o, "%-13s", key);
	o_obj(o, key);
	o_u64(o, "samples", " %9" PRIu64, st.samples);
	o_i64(o, "min", " %9" PRId64, st.min);
	o_u64(o, "min_seq", NULL, st.min_seq);
	o_dbl(o, "avg", " %11.1f", st.avg);
	o_dbl(o, "stddev", " %9.1f", st.stddev);
	o_obj(o, "percentiles");
	for (size_t i = 0; i < NPCT; i++)
		o_i64(o, pct_keys[i], " %9" PRId64, hist_percentile(h, pcts[i]));
	o_end(o);
	o_i64(o, "max", " %9" PRId64 "\n", st.max);
	o_u64(o, "max_seq", NULL, st.max_seq);
	if (o->j) {
		json_str(o->j, "label", label);
		json_bool(o->j, "trusted", !untrusted);
		if (untrusted)
			json_str(o->j, "untrusted", untrusted);
		print_hdr(o->j, h);
	}
	o_end(o);
}

static void print_metric(struct out *o, struct run *r, enum metric_id m,
			 const struct clock_report *cr)
{
	print_stats(o, metric_defs[m].name, r->hist[m], metric_defs[m].label,
		    clock_metric_untrusted(cr, &metric_defs[m]));
}

/* --interval: the round trip counted from the slot's time (emit.h). */
#define RTT_INTENDED_LABEL "Round trip from the ping's slot (rtt + how late it left)"


/* -m LIST or RANGE: a row per size, and the line fitted through the
 * medians; JSON "sizes" (each with the rtt statistics) and "fit". */
static void print_sweep(struct out *o, struct run *r)
{
	uint32_t sizes[RANT_MAX_SIZES];
	int64_t p50[RANT_MAX_SIZES];
	struct sweep_fit fit;
	unsigned int n = 0;

	if (!r->nsweep)
		return;
	o_text(o, "\nSize sweep: round trip (rtt) against message size, ns\n");
	o_text(o, "  %8s %9s %7s %9s %9s %9s\n", "bytes", "samples", "lost", "min", "p50", "p99");
	if (o->j)
		json_arr_begin(o->j, "sizes");
	for (unsigned int i = 0; i < r->nsweep; i++) {
		struct sweep_point *sp = &r->sweep[i];
		struct out jo = { .j = o->j };
		struct hist_stats st;

		hist_get_stats(sp->rtt, &st);
		if (o->j) {
			json_obj_begin(o->j, NULL);
			json_u64(o->j, "size", sp->size);
			json_u64(o->j, "sent", sp->sent);
			json_u64(o->j, "lost", sp->lost);
			json_obj_begin(o->j, "metrics");
			print_stats(&jo, "rtt", sp->rtt, metric_defs[M_RTT].label, NULL);
			json_obj_end(o->j);
			json_obj_end(o->j);
		}
		if (!st.samples) {
			o_text(o, "  %8u %9d %7" PRIu64 "   (not measured)\n", sp->size, 0, sp->lost);
			continue;
		}
		sizes[n] = sp->size;
		p50[n] = hist_percentile(sp->rtt, 50);
		o_text(o, "  %8u %9" PRIu64 " %7" PRIu64 " %9" PRId64 " %9" PRId64 " %9" PRId64 "\n",
		       sp->size, st.samples, sp->lost, st.min, p50[n],
		       hist_percentile(sp->rtt, 99));
		n++;
	}
	if (o->j)
		json_arr_end(o->j);
	if (sweep_fit(sizes, p50, n, &fit)) {
		o_text(o, "  fit: needs the medians of two sizes or more\n");
		if (o->j)
			json_null(o->j, "fit");
		return;
	}
	o_text(o, "  fit of p50: %.0f ns + %.4f ns/byte", fit.offset_ns, fit.ns_per_byte);
	if (fit.bandwidth_bps > 0)
		o_text(o, " (%.3g Gbit/s)", fit.bandwidth_bps / 1e9);
	o_text(o, "\n");
	o_obj(o, "fit");
	o_dbl(o, "offset_ns", NULL, fit.offset_ns);
	o_dbl(o, "ns_per_byte", NULL, fit.ns_per_byte);
	o_dbl(o, "bandwidth_bps", NULL, fit.bandwidth_bps);
	o_end(o);
}

/* One interval of -I in the JSON's "series". */
static void print_series_row(struct json *j, const struct series_row *sr)
{
	json_obj_begin(j, NULL);
	json_i64(j, "t_ns", sr->t_ns);
	json_i64(j, "duration_ns", sr->duration_ns);
	json_u64(j, "sent", sr->sent);
	json_u64(j, "received", sr->received);
	json_u64(j, "lost", sr->lost);
	json_u64(j, "late", sr->late);
	json_u64(j, "samples", sr->samples);
	if (sr->samples) {
		json_i64(j, "min", sr->min);
		json_i64(j, "p50", sr->p50);
		json_i64(j, "p99", sr->p99);
		json_i64(j, "max", sr->max);
	} else {
		json_null(j, "min");
		json_null(j, "p50");
		json_null(j, "p99");
		json_null(j, "max");
	}
	json_obj_end(j);
}

/*
 * Text: a line "over time" when an interval's median is at least twice
 * the run's, and one when an interval lost 1% or more, twice the run's;
 * the lines themselves were printed during the run.
 */
static void print_over_time(struct out *o, const struct run *r)
{
	const struct series *s = r->series;
	const struct series_row *hi = NULL, *lossy = NULL;
	int64_t run_p50 = hist_percentile(r->hist[run_primary(r)], 50);
	double loss, worst_loss = 0;

	for (size_t i = 0; i < series_nrows(s); i++) {
		const struct series_row *sr = series_row(s, i);

		if (sr->samples && (!hi || sr->p50 > hi->p50))
			hi = sr;
		loss = sr->sent ? 100.0 * (double)sr->lost / (double)sr->sent : 0;
		if (loss > worst_loss) {
			worst_loss = loss;
			lossy = sr;
		}
	}
	if (hi && run_p50 > 0 && hi->p50 >= 2 * run_p50)
		o_text(o, "over time: p50 %.1f us in %.2f-%.2f s, %.1f times the run's %.1f us (-I lines, JSON series)\n",
		       (double)hi->p50 / NS_PER_US, (double)hi->t_ns / NS_PER_SEC,
		       (double)(hi->t_ns + hi->duration_ns) / NS_PER_SEC,
		       (double)hi->p50 / (double)run_p50, (double)run_p50 / NS_PER_US);
	if (lossy && worst_loss >= 1.0 && worst_loss >= 2 * loss_pct(&r->cnt))
		o_text(o, "over time: loss %.2f%% in %.2f-%.2f s, against %.2f%% over the run\n",
		       worst_loss, (double)lossy->t_ns / NS_PER_SEC,
		       (double)(lossy->t_ns + lossy->duration_ns) / NS_PER_SEC, loss_pct(&r->cnt));
}

/* -I: JSON "series", a row per interval; text, what is not in it. */
static void print_series(struct out *o, const struct run *r)
{
	const struct series *s = r->series;

	if (!s)
		return;
	print_over_time(o, r);
	if (series_missed(s))
		o_text(o, "interval reports: %" PRIu64 " events are not in any interval: the reporter thread fell behind (is it starved on the measuring CPU?)\n",
		       series_missed(s));
	if (series_rows_dropped(s))
		o_text(o, "interval reports: %" PRIu64 " intervals printed but not kept for the JSON (out of memory)\n",
		       series_rows_dropped(s));
	if (!o->j)
		return;
	json_u64(o->j, "series_missed", series_missed(s));
	json_arr_begin(o->j, "series");
	for (size_t i = 0; i < series_nrows(s); i++)
		print_series_row(o->j, series_row(s, i));
	json_arr_end(o->j);
}

/* --tcp: what happened to the connections. */
static void print_tcp(struct out *o, const struct run *r)
{
	const struct tcp_stats *t = tcp_stats(&r->sk);

	if (!r->cfg->tcp)
		return;
	o_obj(o, "tcp");
	if (r->cfg->mode == MODE_REFLECT)
		o_u64(o, "accepted", "tcp: connections %" PRIu64, t->accepted);
	else
		o_u64(o, "reconnects", "tcp: reconnects %" PRIu64, t->reconnects);
	o_u64(o, "closed", ", closed by the peer %" PRIu64, t->closed);
	o_u64(o, "dropped_garbage", ", dropped (not rant's framing) %" PRIu64, t->garbage);
	if (r->cfg->mode == MODE_EMIT)
		o_u64(o, "connect_failures", ", failed reconnects %" PRIu64, t->connect_failures);
	if (r->cfg->mode == MODE_REFLECT) {
		o_u64(o, "max_open", ", at most %" PRIu64 " open", t->max_open);
		o_u64(o, "refused", ", refused (--max-sessions open) %" PRIu64, t->refused);
		o_u64(o, "idle_timeouts", ", timed out idle %" PRIu64, t->idle_timeouts);
		o_u64(o, "partial_timeouts", ", in a message %" PRIu64, t->partial_timeouts);
		o_u64(o, "pongs_dropped", ", pongs dropped (peer not reading) %" PRIu64,
		      t->pongs_dropped);
		o_u64(o, "idle_timeout_ns", NULL, (uint64_t)r->cfg->tcp_idle_ns);
	}
	o_u64(o, "writes", ", writes per message %" PRIu64, r->cfg->writes);
	o_str(o, "nagle", ", Nagle %s\n", r->cfg->nodelay ? "off" : "on");
	o_end(o);
}

/* The emitter's diagnosis from its round trips, if any. */
static void print_diagnosis(struct out *o, struct run *r)
{
	struct hist *h = r->hist[M_RTT];
	int64_t q[DIAG_NQ];
	struct hist_stats st;
	char line[512];

	if (r->cfg->mode != MODE_EMIT || !h)
		return;
	hist_get_stats(h, &st);
	if (!st.samples)
		return;
	for (int i = 0; i < DIAG_NQ; i++)
		q[i] = hist_percentile(h, (i + 1) * 5.0);
	if (diagnose_delack(r->cfg, q, line, sizeof(line)))
		o_str(o, "diagnosis", "\ndiagnosis: %s\n", line);
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

static void print_metrics(struct out *o, struct run *r, const struct clock_report *cr)
{
	o_text(o, "\n%-13s %9s %9s %11s %9s", "ns", "samples", "min", "avg", "stddev");
	for (size_t i = 0; i < NPCT; i++)
		o_text(o, " %9s", pct_keys[i]);
	o_text(o, " %9s\n", "max");
	o_str(o, "percentile_precision", NULL, PCT_PRECISION);
	o_obj(o, "metrics");
	for (int m = 0; m < M_COUNT; m++)
		if (metric_shown(r, m))
			print_metric(o, r, m, cr);
	if (r->rtt_intended)
		print_stats(o, "rtt_intended", r->rtt_intended, RTT_INTENDED_LABEL, NULL);
	o_end(o);
	o_text(o, "\n");
	for (int m = 0; m < M_COUNT; m++) {
		const char *why = clock_metric_untrusted(cr, &metric_defs[m]);

		if (!metric_shown(r, m))
			continue;
		o_text(o, "  %-13s %s", metric_defs[m].name, metric_defs[m].label);
		if (why)
			o_text(o, "  (untrusted: %s)", why);
		o_text(o, "\n");
	}
	if (r->rtt_intended)
		o_text(o, "  %-13s %s\n", "rtt_intended", RTT_INTENDED_LABEL);
}

/* Text only: the seed's summary of the primary metric. */
static void print_hist_summary(struct out *o, struct run *r)
{
	enum metric_id m = run_primary(r);
	struct hist *h = r->hist[m];
	struct hist_stats st;

	hist_get_stats(h, &st);
	o_text(o, "\nHistogram Summary: %s, percentiles within %s\n",
	       metric_defs[m].name, PCT_PRECISION);
	if (!st.samples) {
		o_text(o, "  no samples\n");
		return;
	}
	o_text(o, "  minimum  %10" PRId64 " ns  (seq %" PRIu64 ")\n", st.min, st.min_seq);
	for (size_t i = 0; i < NPCT; i++)
		o_text(o, "  p%-7s %10" PRId64 " ns\n", pct_keys[i], hist_percentile(h, pcts[i]));
	o_text(o, "  maximum  %10" PRId64 " ns  (seq %" PRIu64 ")\n", st.max, st.max_seq);
}

static void print_histogram(struct out *o, struct run *r)
{
	enum metric_id m = run_primary(r);
	struct hist *h = r->hist[m];
	int64_t b = hist_bucket_ns(h);

	if (o->t && r->cfg->histogram)
		fprintf(o->t, "\nHistogram: %s (bucket start, us: count)\n", metric_defs[m].name);
	o_obj(o, "histogram");
	o_str(o, "metric", NULL, metric_defs[m].name);
	o_i64(o, "bucket_ns", NULL, b);
	o_i64(o, "overflow_ns", NULL, hist_overflow_ns(h));
	if (o->j)
		json_arr_begin(o->j, "buckets");
	for (size_t i = 0; i < hist_nbuckets(h); i++) {
		uint64_t n = hist_bucket_count(h, i);

		if (!n)
			continue;
		if (o->t && r->cfg->histogram)
			fprintf(o->t, "  %10.3f: %" PRIu64 "\n", (double)((int64_t)i * b) / NS_PER_US, n);
		if (o->j) {
			json_arr_begin(o->j, NULL);
			json_i64(o->j, NULL, (int64_t)i * b);
			json_u64(o->j, NULL, n);
			json_arr_end(o->j);
		}
	}
	if (o->j)
		json_arr_end(o->j);
	if (o->t && r->cfg->histogram) {
		fprintf(o->t, "  overflow (>= %g us): %" PRIu64 "\n",
			(double)hist_overflow_ns(h) / NS_PER_US, hist_overflow_count(h));
		if (hist_underflow_count(h))
			fprintf(o->t, "  underflow (< 0): %" PRIu64 "\n", hist_underflow_count(h));
	}
	if (o->j) {
		json_u64(o->j, "overflow", hist_overflow_count(h));
		json_u64(o->j, "underflow", hist_underflow_count(h));
	}
	o_end(o);
}

/* --allow and --key in the JSON's config. */
static void print_config_guard(struct json *j, const struct rant_cfg *c)
{
	char p[INET6_ADDRSTRLEN + 8];

	if (c->mode == MODE_REFLECT) {
		json_arr_begin(j, "allow");
		for (unsigned int i = 0; i < c->allow.n; i++) {
			allow_str(&c->allow.p[i], p, sizeof(p));
			json_str(j, NULL, p);
		}
		json_arr_end(j);
	}
	json_bool(j, "authenticated", c->key_path != NULL);
}

static void print_config(struct json *j, const struct run *r)
{
	const struct rant_cfg *c = r->cfg;

	json_obj_begin(j, "config");
	if (c->addr)
		json_str(j, "address", c->addr);
	json_u64(j, "port", c->port);
	json_i64(j, "duration_ns", c->duration_ns);
	json_u64(j, "count", c->count);
	json_u64(j, "warmup", c->warmup);
	if (c->mode == MODE_EMIT) {
		json_u64(j, "size", c->size);
		json_arr_begin(j, "sizes");
		for (unsigned int i = 0; i < c->nsizes; i++)
			json_u64(j, NULL, c->sizes[i]);
		json_arr_end(j);
		json_i64(j, "timeout_ns", c->timeout_ns);
		json_i64(j, "interval_ns", c->interval_ns);
		json_bool(j, "open_loop", c->open_loop);
	}
	json_bool(j, "block", c->block);
	json_bool(j, "sw_timestamps", c->sw);
	json_bool(j, "no_hw_ts", c->no_hw_ts);
	json_i64(j, "bucket_ns", c->bucket_ns);
	json_i64(j, "overflow_ns", c->overflow_ns);
	json_bool(j, "hugepages", c->hugepages);
	json_i64(j, "busy_poll_us", c->busy_poll_us);
	json_i64(j, "budget", c->budget);
	json_bool(j, "prefer_busypoll", c->prefer_busypoll);
	json_i64(j, "threshold_ns", c->threshold_ns);
	json_bool(j, "continue", c->cont);
	json_i64(j, "log_threshold_ns", c->log_threshold_ns);
	json_bool(j, "trace_marker", c->trace_marker);
	json_bool(j, "snapshot", c->snapshot);
	if (c->trace_marker)
		json_str(j, "trace_instance", c->trace_instance);
	json_str(j, "transport", c->tcp ? "tcp" : "udp");
	json_i64(j, "report_interval_ns", c->report_interval_ns);
	json_i64(j, "max_clock_offset_ns", c->max_clock_offset_ns);
	json_i64(j, "phc_interval_ns", c->phc_interval_ns);
	if (c->mode == MODE_EMIT)
		json_bool(j, "one_way", c->one_way);
	json_bool(j, "ptp_mode", c->ptp_mode);
	if (c->tcp) {
		json_u64(j, "writes", c->writes);
		json_bool(j, "nodelay", c->nodelay);
		json_bool(j, "quickack", c->quickack);
		json_bool(j, "cork", c->cork);
	}
	print_config_guard(j, c);
	json_obj_end(j);
}

/* One session's line and object. */
static void print_session(struct out *o, const struct session *s)
{
	char addr[INET6_ADDRSTRLEN + 16], id[12];

	session_addr_str(s, addr, sizeof(addr));
	snprintf(id, sizeof(id), "%08x", s->id);
	if (o->j)
		json_obj_begin(o->j, NULL);
	o_str(o, "address", "  %s", addr);
	o_str(o, "session", " session %s:", id);
	o_u64(o, "received", " received %" PRIu64, s->received);
	o_u64(o, "sent", NULL, s->sent);
	o_u64(o, "warmup", ", warmup %" PRIu64, s->warmup);
	o_u64(o, "left_out", s->left_out ? " (-w left out %" PRIu64 ")" : NULL, s->left_out);
	o_u64(o, "duplicate", ", duplicate %" PRIu64, s->duplicate);
	o_u64(o, "missing_tx_ts", NULL, s->missing_tx_ts);
	o_u64(o, "missing_rx_ts", NULL, s->missing_rx_ts);
	o_obj(o, "response");
	o_u64(o, "samples", NULL, s->resp_n);
	if (s->resp_n) {
		o_i64(o, "min", ", response min %" PRId64, s->resp_min);
		o_dbl(o, "avg", " avg %.1f", s->resp_sum / (double)s->resp_n);
		o_i64(o, "max", " max %" PRId64 " ns", s->resp_max);
	}
	o_end(o);
	o_text(o, "\n");
	if (o->j)
		json_obj_end(o->j);
}

/* Reflector: each emitter run it served, as the table holds them. */
static void print_sessions(struct out *o, const struct run *r)
{
	const struct sessions *t = r->sessions;
	size_t n = t ? sessions_count(t) : 0;

	if (!t)
		return;
	o_text(o, "\nsessions (%zu now, %" PRIu64 " evicted idle):\n", n, sessions_evicted(t));
	if (o->j) {
		json_u64(o->j, "sessions_evicted", sessions_evicted(t));
		json_arr_begin(o->j, "sessions");
	}
	for (size_t i = 0; i < n; i++)
		print_session(o, sessions_at(t, i));
	if (o->j)
		json_arr_end(o->j);
}

/* One direction of the capture check: "tx (T1): ..." and "tx": {...}. */
static void print_capture_dir(struct out *o, const char *key, const char *point,
			      const struct capmatch_dir *d)
{
	o_obj(o, key);
	o_text(o, "  %s (%s):", key, point);
	o_u64(o, "matched", " %" PRIu64 " matched", d->matched);
	o_u64(o, "exact", ", %" PRIu64 " exact", d->exact);
	if (d->matched) {
		o_i64(o, "min_diff_ns", ", rant - capture min %" PRId64, d->min_diff_ns);
		o_dbl(o, "avg_diff_ns", " avg %.1f", d->sum_diff_ns / (double)d->matched);
		o_i64(o, "max_diff_ns", " max %" PRId64 " ns", d->max_diff_ns);
	}
	o_u64(o, "only_in_log", "; only in rant %" PRIu64, d->only_in_log);
	o_u64(o, "only_in_capture", ", only in the capture %" PRIu64 "\n", d->only_in_capture);
	o_end(o);
}

static int64_t abs_max(const struct capmatch_dir *d)
{
	if (!d->matched)
		return 0;
	return -d->min_diff_ns > d->max_diff_ns ? -d->min_diff_ns : d->max_diff_ns;
}

/* --pcap: what was captured and how rant's stamps compare (capture.h). */
static void print_capture(struct out *o, const struct run *r)
{
	const struct capture_result *cr = r->capture ? capture_result(r->capture) : NULL;
	const struct capmatch_dir *tx, *rx;
	bool emit = r->cfg->mode == MODE_EMIT;
	int64_t dmax;

	if (!cr)
		return;
	tx = &cr->st.tx;
	rx = &cr->st.rx;
	dmax = abs_max(tx) > abs_max(rx) ? abs_max(tx) : abs_max(rx);
	o_obj(o, "capture");
	o_str(o, "file", "\ncapture: %s", strcmp(cr->file, "-") ? cr->file : "stdout");
	o_u64(o, "packets", ": %" PRIu64 " packets", cr->packets);
	o_str(o, "tstamp_type", ", %s stamps", cr->tstamp_type);
	o_u64(o, "dropped", ", dropped by the kernel %" PRIu64 "\n", cr->dropped);
	o_str(o, "filter", NULL, cr->filter);
	if (o->j)
		json_bool(o->j, "checked", cr->checked);
	if (cr->checked) {
		o_u64(o, "matched", "check: %" PRIu64 " packets matched", tx->matched + rx->matched);
		o_u64(o, "exact", ", %" PRIu64 " exact to the ns", tx->exact + rx->exact);
		o_i64(o, "max_diff_ns", ", largest difference %" PRId64 " ns", dmax);
		o_u64(o, "only_in_log", ", only in rant %" PRIu64, tx->only_in_log + rx->only_in_log);
		o_u64(o, "only_in_capture", ", only in the capture %" PRIu64 "\n",
		      tx->only_in_capture + rx->only_in_capture);
		o_u64(o, "duplicates", NULL, cr->st.duplicates);
		o_u64(o, "unchecked", cr->unchecked ? "  %" PRIu64 " transactions not checked (hand-over ring full)\n" : NULL,
		      cr->unchecked);
		o_u64(o, "settled_early", cr->st.evicted ? "  %" PRIu64 " settled early (check table full)\n" : NULL,
		      cr->st.evicted);
		print_capture_dir(o, "tx", emit ? "T1, ping" : "T3, pong", tx);
		print_capture_dir(o, "rx", emit ? "T4, pong" : "T2, ping", rx);
	} else {
		o_text(o, "check: not done over TCP (the capture is written)\n");
	}
	o_end(o);
}

/* JSON only: an integer, or null when there is none. */
static void j_i64_or_null(struct out *o, const char *key, bool have, int64_t v)
{
	if (!o->j)
		return;
	if (have)
		json_i64(o->j, key, v);
	else
		json_null(o->j, key);
}

static void j_dbl_or_null(struct out *o, const char *key, bool have, double v)
{
	if (!o->j)
		return;
	if (have)
		json_double(o->j, key, v);
	else
		json_null(o->j, key);
}

/* Where the sampler thread read the PHC: text " (during the run by a thread on CPU 1,2)"
 * and JSON "sampler_cpus": [1, 2] (empty without a thread). */
static void print_sampler_cpus(struct out *o, uint64_t cpus)
{
	const char *sep = " (during the run by a thread on CPU ";

	if (o->j)
		json_arr_begin(o->j, "sampler_cpus");
	for (int i = 0; i < 64; i++) {
		if (!(cpus & (1ULL << i)))
			continue;
		o_text(o, "%s%d", sep, i);
		sep = ",";
		if (o->j)
			json_i64(o->j, NULL, i);
	}
	if (cpus)
		o_text(o, ")");
	if (o->j)
		json_arr_end(o->j);
}

/* The NIC clock against the system clock: one text line, the phc_* fields. */
static void print_clock_phc(struct out *o, const struct clock_report *cr)
{
	const struct phc_summary *s = &cr->phc_sum;
	bool have = cr->have_phc_samples;

	if (!cr->hw)
		o_text(o, "  PHC: none: the wire stamps are the kernel's, in the system clock (nothing to compare)\n");
	else if (!have)
		o_text(o, "  PHC: not compared: %s\n", cr->phc_error);
	if (o->j) {
		if (cr->have_phc)
			json_str(o->j, "phc", cr->phc);
		else
			json_null(o->j, "phc");
	}
	j_i64_or_null(o, "phc_index", cr->have_ts_info, cr->ts_info.phc_index);
	if (o->j && have)
		json_str(o->j, "phc_method", phc_method_name(s->method));
	else if (o->j)
		json_null(o->j, "phc_method");
	if (have)
		o_text(o, "  PHC %s (%s): NIC - system clock", cr->phc, phc_method_name(s->method));
	j_i64_or_null(o, "phc_offset_ns", have, s->offset_start_ns);
	j_i64_or_null(o, "phc_offset_end_ns", have, s->offset_end_ns);
	j_i64_or_null(o, "phc_offset_max_abs_ns", have, s->offset_max_abs_ns);
	j_dbl_or_null(o, "phc_drift_ppb", have && s->drift_valid, s->drift_ppb);
	if (have) {
		o_text(o, " %+" PRId64 " ns at start, %+" PRId64 " ns at end (|max| %" PRId64 " ns)",
		       s->offset_start_ns, s->offset_end_ns, s->offset_max_abs_ns);
		if (s->drift_valid)
			o_text(o, ", drift %+.1f ppb over %.1f s", s->drift_ppb, cr->phc_span_s);
		o_text(o, ", %u readings", s->samples);
	}
	print_sampler_cpus(o, cr->sampler_cpus);
	if (have)
		o_text(o, "\n");
	o_u64(o, "phc_samples", NULL, s->samples);
	o_u64(o, "phc_read_errors", NULL, cr->phc_read_errors);
	if (o->j && cr->phc_error[0])
		json_str(o->j, "phc_error", cr->phc_error);
	if (o->j)
		json_bool(o->j, "trusted", cr->local_trusted);
}

/* Between the hosts (emitter): theta's median and drift. */
static void print_clock_peer(struct out *o, const struct clock_report *cr)
{
	bool have = cr->peer_samples > 0;

	if (cr->emit && have) {
		o_text(o, "  peer: reflector's wire clock - emitter's (theta, if the paths are symmetric) %+" PRId64 " ns",
		       cr->peer_offset_ns);
		o_text(o, ", median of %" PRIu64 " (%+" PRId64 " to %+" PRId64 ")", cr->peer_samples,
		       cr->peer_min_ns, cr->peer_max_ns);
		if (cr->peer_drift_valid)
			o_text(o, ", drift %+.1f ppb over %.1f s", cr->peer_drift_ppb, cr->peer_span_s);
		o_text(o, "\n");
	} else if (cr->emit) {
		o_text(o, "  peer: no transaction carried all four wire stamps (the reflector's travel in pongs of 72 bytes or more)\n");
	}
	j_i64_or_null(o, "peer_offset_ns", have, cr->peer_offset_ns);
	j_i64_or_null(o, "peer_offset_min_ns", have, cr->peer_min_ns);
	j_i64_or_null(o, "peer_offset_max_ns", have, cr->peer_max_ns);
	j_dbl_or_null(o, "peer_drift_ppb", have && cr->peer_drift_valid, cr->peer_drift_ppb);
	o_u64(o, "peer_samples", NULL, cr->peer_samples);
	o_u64(o, "peer_drift_bins", NULL, cr->peer_fitted);
	if (o->j && cr->emit) {
		json_u64(o->j, "pongs", cr->pongs);
		json_u64(o->j, "pongs_clock_bad", cr->pongs_clock_bad);
		json_bool(o->j, "peer_trusted", cr->peer_trusted);
		json_bool(o->j, "one_way_trusted", cr->hosts_trusted);
	}
}

/* The "clock:" block and the JSON "clock" object. */
static void print_clock(struct out *o, const struct run *r, const struct clock_report *cr)
{
	o_text(o, "\nclock:\n");
	o_obj(o, "clock");
	o_str(o, "local_source", NULL, source_name(r->sk.hw));
	o_i64(o, "max_offset_ns", NULL, cr->max_offset_ns);
	print_clock_phc(o, cr);
	print_clock_peer(o, cr);
	if (o->j)
		json_arr_begin(o->j, "warnings");
	for (unsigned int i = 0; i < cr->nwarn; i++) {
		o_text(o, "  warning: %s\n", cr->warn[i]);
		if (o->j)
			json_str(o->j, NULL, cr->warn[i]);
	}
	if (o->j)
		json_arr_end(o->j);
	if (o->j)
		hwts_json(o->j, &r->sk.hwts);
	o_end(o);
}

/* Summary to text and/or JSON in one pass. */
static void print_summary(struct out *o, struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	bool emit = c->mode == MODE_EMIT;
	struct clock_report cr;

	if (o->j) {
		json_obj_begin(o->j, NULL);
		json_str(o->j, "rant_version", RANT_VERSION);
		json_str(o->j, "mode", emit ? "emit" : "reflect");
		json_str(o->j, "interface", c->iface);
		json_str(o->j, "timestamp_source", source_name(r->sk.hw));
		if (!r->sk.hw)
			json_str(o->j, "timestamp_note", r->sk.hw_note);
		if (emit && r->peer_body)
			json_str(o->j, "reflector_timestamp_source", source_name(r->peer_hw));
		if (emit)
			json_u64(o->j, "session", r->session);
		json_i64(o->j, "start_ns", r->start_ns);
		json_i64(o->j, "end_ns", r->end_ns);
		json_str(o->j, "stop_reason", r->stop_reason ? r->stop_reason : "");
		print_config(o->j, r);
	}
	o_text(o, "\n--- Latency Statistics ---\n");
	o_text(o, "%s on %s, %.3f s measured, timestamps %s",
	       emit ? "emit" : "reflect", c->iface,
	       (double)(r->end_ns - r->start_ns) / NS_PER_SEC, source_name(r->sk.hw));
	if (emit && r->peer_body)
		o_text(o, " (reflector: %s)", source_name(r->peer_hw));
	o_text(o, ", stopped: %s\n", r->stop_reason ? r->stop_reason : "?");
	clock_report(r->clock, &cr);
	print_counts(o, r);
	print_sessions(o, r);
	print_tcp(o, r);
	print_metrics(o, r, &cr);
	print_hist_summary(o, r);
	print_histogram(o, r);
	print_sweep(o, r);
	print_series(o, r);
	print_diagnosis(o, r);
	print_capture(o, r);
	if (o->j) {
		json_arr_begin(o->j, "breaches");
		for (unsigned int i = 0; i < r->nbreach; i++) {
			struct out jo = { .j = o->j };

			json_obj_begin(o->j, NULL);
			print_breach(&jo, r, &r->breach[i]);
			json_obj_end(o->j);
		}
		json_arr_end(o->j);
	}
	print_clock(o, r, &cr);
	if (o->j) {
		json_obj_end(o->j);
		json_end(o->j);
	}
}

/*
 * The log: the writer drains what is queued (-S: the ring is written
 * now), then the file is renamed over its target; before the summary,
 * so that its counts are final.
 */
static int finish_log(struct run *r)
{
	struct txlog_fmt f;
	int ret;

	ret = txlog_finish(r->log, measure_log_format(r, &f));
	if (!ret)
		ret = outfile_commit(&r->logf);
	if (ret)
		fprintf(stderr, "rant: writing the log %s failed: %s (nothing was written)\n",
			r->cfg->log_path, strerror(-ret));
	return ret;
}

int report_end(struct run *r)
{
	struct out text = { .t = report_text_stream(r) };
	int ret = 0, err = 0, cap_err = 0;

	if (r->have_log)
		err = finish_log(r);
	r->cnt.socket_drops = sk_drops(&r->sk);	/* once: text and JSON agree */
	if (r->capture)
		cap_err = capture_stop(r->capture);	/* the last packet has passed */
	print_summary(&text, r);
	fflush(text.t);
	if (r->have_json) {
		struct json j;
		struct out jo = { .j = &j };
		FILE *f = outfile_stream(&r->jsonf);

		if (!f) {
			ret = -errno;
		} else {
			json_init(&j, f);
			print_summary(&jo, r);
			ret = outfile_commit(&r->jsonf);
		}
		if (ret)
			fprintf(stderr, "rant: writing the JSON %s failed: %s (nothing was written)\n",
				r->cfg->json_path, strerror(-ret));
	}
	if (err && !ret)
		ret = err;
	if (cap_err && !ret)
		ret = cap_err;
	return ret;
}
