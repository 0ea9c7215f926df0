// SPDX-License-Identifier: GPL-2.0-or-later
/* The Prometheus text format of a snapshot (prom.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsnap.h"
#include "icmpwire.h"
#include "probeout.h"
#include "prom.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

/* Bounds of 10^(i/n) us rounded to two significant digits (three above
 * ten per decade), so that they read as 1.3e-06, not 1.2589254e-06. */
static void ladder_decades(struct prom_ladder *l, unsigned int per)
{
	double digits = per <= 10 ? 10 : 100;

	l->n = 0;
	for (unsigned int i = 0; l->n < PROM_MAX_BOUNDS; i++) {
		double v = pow(10, (double)i / per);	/* >= 1 */
		double scale = pow(10, floor(log10(v)));
		int64_t ns = (int64_t)llround(round(v / scale * digits) / digits * scale *
					      PROM_LOW_NS);

		if (ns > PROM_HIGH_NS)
			break;
		if (!l->n || ns > l->le_ns[l->n - 1])
			l->le_ns[l->n++] = ns;
	}
}

static int ladder_list(struct prom_ladder *l, const char *arg, char *msg, size_t len)
{
	const char *p = arg;

	l->n = 0;
	while (*p) {
		char *end;
		double us = strtod(p, &end);
		int64_t ns = (int64_t)llround(us * 1000);

		if (end == p || (*end && *end != ',') || !(us > 0) || us > 3.6e9) {
			snprintf(msg, len, "--metrics-buckets: '%s' is not a number of microseconds above 0: give a list such as 5,10,20,50 or N/decade",
				 p);
			return -EINVAL;
		}
		if (l->n && ns <= l->le_ns[l->n - 1]) {
			snprintf(msg, len, "--metrics-buckets: the bounds must rise (%s): give them in ascending order",
				 p);
			return -EINVAL;
		}
		if (l->n == PROM_MAX_BOUNDS) {
			snprintf(msg, len, "--metrics-buckets: more than %d bounds: give fewer",
				 PROM_MAX_BOUNDS);
			return -EINVAL;
		}
		l->le_ns[l->n++] = ns;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int prom_ladder_parse(struct prom_ladder *l, const char *arg, char *msg, size_t len)
{
	unsigned int per;
	char tail;

	if (!arg) {
		ladder_decades(l, PROM_DEFAULT_PER_DECADE);
		return 0;
	}
	if (strchr(arg, '/')) {
		if (sscanf(arg, "%u/decad%c", &per, &tail) != 2 || tail != 'e' ||
		    strcmp(strchr(arg, '/'), "/decade") || per < 1 || per > 30) {
			snprintf(msg, len, "--metrics-buckets: '%s' is not N/decade with N from 1 to 30",
				 arg);
			return -EINVAL;
		}
		ladder_decades(l, per);
		return 0;
	}
	return ladder_list(l, arg, msg, len);
}

void prom_label_value(FILE *f, const char *v)
{
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* The labels every series of s carries: -i, and the emitter's peer (so
 * that rants on one host, in one textfile directory, never collide). */
static void put_own(FILE *f, const struct snap *s, bool first)
{
	fprintf(f, "%sinterface=\"", first ? "" : ",");
	prom_label_value(f, s->cfg->iface);
	fputc('"', f);
	if (!s->emit || s->fleet)
		return;		/* a fleet's series name their peer each */
	fprintf(f, ",peer=\"");
	prom_label_value(f, s->cfg->addr);
	fputc('"', f);
}

/* A fleet target's labels: -i's, its peer (ADDR:PORT), its name (name=,
 * else its peer) and its kind (rant, stamp, icmp). */
static void put_target(FILE *f, const struct snap *s, const struct snap_target *t)
{
	put_own(f, s, true);
	fprintf(f, ",peer=\"");
	prom_label_value(f, t->name);
	fprintf(f, "\",name=\"");
	prom_label_value(f, t->label);
	fprintf(f, "\",kind=\"%s\"", t->kind);
}

void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_u64(FILE *f, const struct snap *s, const char *name, uint64_t v)
{
	fprintf(f, "%s{", name);
	put_own(f, s, true);
	fprintf(f, "} %llu\n", (unsigned long long)v);
}

/* One counter of each fleet target: name{interface,peer} value. */
static void fleet_u64(FILE *f, const struct snap *s, const char *name, size_t off)
{
	for (size_t i = 0; i < s->fleet->n; i++) {
		const struct snap_target *t = &s->fleet->t[i];

		fprintf(f, "%s{", name);
		put_target(f, s, t);
		fprintf(f, "} %llu\n",
			(unsigned long long)*(const uint64_t *)((const char *)&t->cnt + off));
	}
}

static const char *transport_name(const struct rant_cfg *c)
{
	if (c->icmp)
		return "icmp";
	if (c->tcp)
		return "tcp";
	return c->ptp_mode ? "udp-ptp" : "udp";
}

static void put_info(FILE *f, const struct snap *s)
{
	const struct rant_cfg *c = s->cfg;

	prom_family(f, "rant_info", "gauge", "What this rant measures (always 1).");
	fprintf(f, "rant_info{version=\"");
	prom_label_value(f, RANT_VERSION);
	fprintf(f, "\",mode=\"%s\",interface=\"", s->emit ? "emit" : "reflect");
	prom_label_value(f, c->iface);
	fprintf(f, "\",peer=\"");
	prom_label_value(f, s->emit ? c->addr : "");
	fprintf(f, "\",transport=\"%s\",timestamp_source=\"%s\"} 1\n", transport_name(c),
		s->hw ? "hardware" : "software");
	if (s->start_ns) {
		prom_family(f, "rant_start_time_seconds", "gauge",
		       "When measuring began, seconds since the epoch.");
		fprintf(f, "rant_start_time_seconds{");
		put_own(f, s, true);
		fprintf(f, "} %.9f\n", s->start_ns / 1e9);
	}
}

#define FC(f) ((long)offsetof(struct fleet_counts, f))

static const struct prom_counter {
	const char *name, *help;
	size_t off;
	bool emit_only, reflect_only;
	long fleet_off;		/* a fleet's: each target's (struct fleet_counts), or
				 * -1: the run's alone */
} counters[] = {
	{ "rant_packets_sent_total", "Measured datagrams sent (pings emitting, pongs reflecting).",
	  offsetof(struct counts, sent), false, false, FC(sent) },
	{ "rant_packets_received_total", "Measured datagrams received and matched.",
	  offsetof(struct counts, received), false, false, FC(received) },
	{ "rant_packets_lost_total", "Pings without a pong within --timeout.",
	  offsetof(struct counts, lost), true, false, FC(lost) },
	{ "rant_packets_late_total", "Pongs that came after their ping was counted lost.",
	  offsetof(struct counts, late), true, false, FC(late) },
	{ "rant_packets_duplicate_total", "Second copies of a datagram already seen.",
	  offsetof(struct counts, duplicate), false, false, FC(duplicate) },
	{ "rant_packets_invalid_total", "Datagrams that are not valid rant messages.",
	  offsetof(struct counts, invalid), false, false, -1 },
	{ "rant_socket_drops_total", "Datagrams the kernel dropped before rant read them "
	  "(read at the end of the run).", offsetof(struct counts, socket_drops), false, false, -1 },
	{ "rant_breaches_total", "Transactions above the -t threshold.",
	  offsetof(struct counts, breaches), false, false, FC(breaches) },
	{ "rant_reflector_sessions_total", "Emitter runs the reflector served.",
	  offsetof(struct counts, sessions), false, true, -1 },
	{ "rant_reflector_sessions_refused_total", "Pings of a new session refused, table full.",
	  offsetof(struct counts, refused), false, true, -1 },
	{ "rant_reflector_looped_total", "STAMP datagrams from a reflector's port, unanswered "
	  "(an answer would start a reflection loop).", offsetof(struct counts, looped), false, true, -1 },
	{ "rant_reflector_repeated_total", "STAMP requests of a sequence number their session's replies "
	  "already carried too often, or chose themselves, unanswered (a reflection loop's).",
	  offsetof(struct counts, repeated), false, true, -1 },
	{ "rant_reflector_rate_limited_total", "Pings above --max-rate from one sender, unanswered.",
	  offsetof(struct counts, rate_limited), false, true, -1 },
};

static void put_counters(FILE *f, const struct snap *s)
{
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct prom_counter *k = &counters[i];

		if ((k->emit_only && !s->emit) || (k->reflect_only && s->emit))
			continue;
		prom_family(f, k->name, "counter", k->help);
		if (s->fleet && k->fleet_off >= 0)
			fleet_u64(f, s, k->name, (size_t)k->fleet_off);
		else
			sample_u64(f, s, k->name,
				   *(const uint64_t *)((const char *)&s->cnt + k->off));
	}
	prom_family(f, "rant_missing_stamps_total", "counter",
	       "Measured sends (tx) and receives (rx) without their kernel or NIC stamp.");
	for (size_t i = 0; s->fleet && i < s->fleet->n; i++) {
		const struct snap_target *t = &s->fleet->t[i];

		for (int d = 0; d < 2; d++) {
			fprintf(f, "rant_missing_stamps_total{direction=\"%s\",", d ? "rx" : "tx");
			put_target(f, s, t);
			fprintf(f, "} %llu\n", (unsigned long long)(d ? t->cnt.missing_rx_ts :
								    t->cnt.missing_tx_ts));
		}
	}
	for (int d = 0; !s->fleet && d < 2; d++) {
		fprintf(f, "rant_missing_stamps_total{direction=\"%s\"", d ? "rx" : "tx");
		put_own(f, s, false);
		fprintf(f, "} %llu\n", (unsigned long long)(d ? s->cnt.missing_rx_ts
							       : s->cnt.missing_tx_ts));
	}
}

/* A fleet's icmp and syn targets' ICMP errors, by name: each target's
 * series. */
static void put_icmp_targets(FILE *f, const struct snap *s)
{
	const char *icmp = targets_kind_name(TARGET_ICMP), *syn = targets_kind_name(TARGET_SYN);

	for (size_t i = 0; i < s->fleet->n; i++) {
		const struct snap_target *t = &s->fleet->t[i];
		bool errs = !strcmp(t->kind, icmp) || !strcmp(t->kind, syn);

		for (int k = 0; k < ICMPWIRE_E_N && errs; k++) {
			fprintf(f, "rant_icmp_errors_total{error=\"%s\",",
				icmpwire_err_name((enum icmpwire_err)k));
			put_target(f, s, t);
			fprintf(f, "} %llu\n", (unsigned long long)t->cnt.icmp_errors[k]);
		}
	}
}

/* --icmp (and a fleet's icmp and syn targets): the requests an ICMP
 * error answered, by its name. */
static void put_icmp(FILE *f, const struct snap *s)
{
	if (!s->cfg->icmp && !fleetsnap_has_errors(s->fleet))
		return;
	prom_family(f, "rant_icmp_errors_total", "counter",
		    "Echo requests (a fleet's SYNs too) answered by an ICMP error (not lost), by its name.");
	if (s->fleet) {
		put_icmp_targets(f, s);
		return;
	}
	for (int k = 0; k < ICMPWIRE_E_N; k++) {
		fprintf(f, "rant_icmp_errors_total{error=\"%s\"",
			icmpwire_err_name((enum icmpwire_err)k));
		put_own(f, s, false);
		fprintf(f, "} %llu\n", (unsigned long long)s->probe.echo_errors[k]);
	}
}

static void bucket_line(FILE *f, const char *labels, const char *le, uint64_t n)
{
	fprintf(f, "rant_latency_seconds_bucket{%s,le=\"%s\"} %llu\n", labels, le,
		(unsigned long long)n);
}

void prom_hist(FILE *f, const char *labels, const struct snap_stats *st,
	       const struct prom_ladder *l)
{
	uint64_t cum = 0, total = 0;
	size_t j = 0;
	char le[32];

	for (size_t i = 0; i < st->nhdr; i++)
		total += st->hdr[i].count;
	for (unsigned int b = 0; b < l->n; b++) {
		while (j < st->nhdr && st->hdr[j].hi <= l->le_ns[b])
			cum += st->hdr[j++].count;
		snprintf(le, sizeof(le), "%.9g", l->le_ns[b] / 1e9);
		bucket_line(f, labels, le, cum);
	}
	bucket_line(f, labels, "+Inf", total);
	fprintf(f, "rant_latency_seconds_sum{%s} %.9g\n", labels,
		st->st.avg * (double)st->st.samples / 1e9);
	fprintf(f, "rant_latency_seconds_count{%s} %llu\n", labels, (unsigned long long)total);
}

/*
 * One metric's series: the ladder's cumulative counts, +Inf and _count
 * (the buckets' total), _sum (the exact sum, avg * samples as the
 * statistics were read: it rises with them, a live read a few samples
 * apart from the buckets' notwithstanding).
 */
static void put_hist(FILE *f, const struct snap *s, const struct snap_stats *st,
		     const struct prom_ladder *l)
{
	char labels[PROM_LABELS_MAX] = "";
	FILE *m = fmemopen(labels, sizeof(labels) - 1, "w");

	if (!m)
		return;
	fprintf(m, "metric=\"%s\"", st->key);
	put_own(m, s, false);
	fclose(m);
	prom_hist(f, labels, st, l);
}

static void put_target_hist(FILE *f, const struct snap *s, const struct snap_target *t,
			    const struct prom_ladder *l)
{
	char labels[PROM_LABELS_MAX] = "";
	FILE *m = fmemopen(labels, sizeof(labels) - 1, "w");

	if (!m)
		return;
	fprintf(m, "metric=\"%s\",", t->rtt.key);
	put_target(m, s, t);
	fclose(m);
	prom_hist(f, labels, &t->rtt, l);
}

static void put_hists(FILE *f, const struct snap *s, const struct prom_ladder *l)
{
	prom_family(f, "rant_latency_seconds", "histogram",
	       "Latency of each metric of the run (metric: rtt, response, the -s "
	       "components, queues, one-way delays), seconds.");
	for (int m = 0; !s->fleet && m < M_COUNT; m++)
		if (s->shown[m])
			put_hist(f, s, &s->metric[m], l);
	if (s->have_rtt_intended)
		put_hist(f, s, &s->rtt_intended, l);
	for (size_t i = 0; s->fleet && i < s->fleet->n; i++)	/* a fleet's: by target */
		put_target_hist(f, s, &s->fleet->t[i], l);
}

static void gauge(FILE *f, const struct snap *s, const char *name, const char *help,
		  double v)
{
	prom_family(f, name, "gauge", help);
	fprintf(f, "%s{", name);
	put_own(f, s, true);
	fprintf(f, "} %.9g\n", v);
}

/* The clocks as the snapshot read them (live and at the end: the PHC's
 * last reading and drift, theta's median); theta's drift at the end only
 * (its fit is not for reading while the loop adds to it). */
static void put_clock(FILE *f, const struct snap *s)
{
	const struct clock_live *c = &s->clock_live;

	if (s->have_clock_live && c->have_phc)
		gauge(f, s, "rant_phc_offset_seconds", "The NIC clock (PHC) minus the system "
		      "clock at the last reading.", c->phc_offset_ns / 1e9);
	if (s->have_clock_live && c->phc_drift_valid)
		gauge(f, s, "rant_phc_drift_ratio", "The PHC's drift against the system "
		      "clock, fitted through the readings so far (1e-9 = 1 ppb).",
		      c->phc_drift_ppb * 1e-9);
	if (s->have_clock_live && c->peer_samples)
		gauge(f, s, "rant_peer_offset_seconds", "The reflector's wire clock minus this "
		      "one's (theta, median so far).", c->peer_offset_ns / 1e9);
	if (s->have_clock && s->clock.peer_samples && s->clock.peer_drift_valid)
		gauge(f, s, "rant_peer_drift_ratio", "The drift of theta, at the end of the "
		      "run (1e-9 = 1 ppb).", s->clock.peer_drift_ppb * 1e-9);
}

/* "10.0.0.2:40000", "[fd00::2]:40000": the sender of session x. */
static void put_sender(FILE *f, const struct session *x)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&x->addr;
	bool v6 = x->addr.ss_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
	in_port_t port = x->addr.ss_family == AF_INET6 ? in6->sin6_port :
			 ((const struct sockaddr_in *)&x->addr)->sin_port;
	char host[INET6_ADDRSTRLEN + 16];

	session_sockaddr_str(&x->addr, false, host, sizeof(host));
	fprintf(f, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", (unsigned int)ntohs(port));
}

/*
 * Reflector: the sessions in its table now (at most --max-sessions), and
 * each one's packets, labelled by its sender, its id and its ordinal
 * (a session evicted and come back starts new series, never a counter
 * going back). A session that leaves the table takes its series with it;
 * rant_packets_*_total keep counting every session's.
 */
/* A probe's load: answers a second since measuring began. */
static void put_probe(FILE *f, const struct snap *s)
{
	if (!s->cfg->syn && !s->cfg->http_path && !s->cfg->request_path)
		return;
	gauge(f, s, "rant_probe_answers_per_second", "Answers (whole responses; --syn: SYN-ACKs) "
	      "a second since measuring began: the load the probe offered and got answered.",
	      probeout_rate(s));
}

static void put_sessions(FILE *f, const struct snap *s)
{
	static const char *const what[] = { "received", "sent" };

	if (s->emit || !s->have_sessions)
		return;
	gauge(f, s, "rant_reflector_sessions", "Sessions in the reflector's table now "
	      "(at most --max-sessions).", (double)s->sessions.n);
	prom_family(f, "rant_reflector_sessions_evicted_total", "counter",
	       "Sessions evicted to make room for a new one (table full).");
	sample_u64(f, s, "rant_reflector_sessions_evicted_total", s->sessions.evicted);
	for (int w = 0; w < 2; w++) {
		fprintf(f, "# HELP rant_reflector_session_packets_%s_total Measured datagrams "
			"%s in one session of the table.\n# TYPE rant_reflector_session_packets_%s_total "
			"counter\n", what[w], what[w], what[w]);
		for (size_t i = 0; i < s->sessions.n; i++) {
			const struct session *x = &s->sessions.v[i];

			fprintf(f, "rant_reflector_session_packets_%s_total{", what[w]);
			put_own(f, s, true);
			fprintf(f, ",peer=\"");
			put_sender(f, x);
			fprintf(f, "\",session=\"%08x\",ordinal=\"%llu\"} %llu\n", x->id,
				(unsigned long long)x->ordinal,
				(unsigned long long)(w ? x->sent : x->received));
		}
	}
}

/* A fleet path's labels: its target's and path="SPORT" (or the flow label). */
static void put_path_labels(FILE *f, const struct snap *s, const struct snap_target *t,
			    const struct snap_path *p)
{
	put_target(f, s, t);
	fprintf(f, ",path=\"%u\"", p->id);
}

static void put_path_counts(FILE *f, const struct snap *s)
{
	static const struct { const char *what; size_t off; } k[] = {
		{ "sent", FC(sent) },
		{ "received", FC(received) },
		{ "lost", FC(lost) },
	};
	const struct snap_fleet *sf = s->fleet;

	for (size_t c = 0; c < sizeof(k) / sizeof(k[0]); c++) {
		fprintf(f, "# HELP rant_path_packets_%s_total Measured pings %s on one path "
			"(source port) of a fleet target.\n# TYPE rant_path_packets_%s_total counter\n",
			k[c].what, k[c].what, k[c].what);
		for (size_t i = 0; i < sf->n; i++) {
			for (unsigned int p = 0; sf->t[i].path && p < sf->npaths; p++) {
				const struct snap_path *sp = &sf->t[i].path[p];

				fprintf(f, "rant_path_packets_%s_total{", k[c].what);
				put_path_labels(f, s, &sf->t[i], sp);
				fprintf(f, "} %llu\n", (unsigned long long)*(const uint64_t *)
					((const char *)&sp->cnt + k[c].off));
			}
		}
	}
}

/* The jitter's gauges, one a way that has pairs. */
static const struct {
	const char *name, *help;
} jitter_gauges[] = {
	{ "rant_ipdv_abs_p50_seconds",
	  "The median |IPDV| (RFC 5481: a packet's delay less the previous one's)." },
	{ "rant_ipdv_abs_p99_seconds", "The 99th percentile of |IPDV|." },
	{ "rant_jitter_rfc3550_seconds", "RFC 3550's interarrival jitter J (|IPDV| smoothed by 1/16)." },
};

static double jitter_value(const struct jitter_stats *j, size_t g)
{
	return g == 0 ? (double)j->abs_p50 : g == 1 ? (double)j->abs_p99 : j->rfc3550;
}

static void put_jitter(FILE *f, const struct snap *s)
{
	for (size_t g = 0; g < sizeof(jitter_gauges) / sizeof(jitter_gauges[0]); g++) {
		prom_family(f, jitter_gauges[g].name, "gauge", jitter_gauges[g].help);
		for (int w = 0; w < JITTER_NWAYS; w++) {
			if (!s->jitter[w].pairs)
				continue;
			fprintf(f, "%s{", jitter_gauges[g].name);
			put_own(f, s, true);
			fprintf(f, ",way=\"%s\"} %.9g\n", jitter_way_name((enum jitter_way)w),
				jitter_value(&s->jitter[w], g) / 1e9);
		}
	}
}

/* Each path's round trips as a summary: p50, p90, p99, _sum and _count. */
static void put_path_rtt(FILE *f, const struct snap *s)
{
	static const int q[] = { 0, 1, SNAP_P99 };
	const struct snap_fleet *sf = s->fleet;

	prom_family(f, "rant_path_latency_seconds", "summary", "Round trips on one path (source "
		    "port) of a fleet target since it was added, seconds (percentiles within 3.1%).");
	for (size_t i = 0; i < sf->n; i++) {
		for (unsigned int p = 0; sf->t[i].path && p < sf->npaths; p++) {
			const struct snap_path *sp = &sf->t[i].path[p];

			for (size_t j = 0; j < sizeof(q) / sizeof(q[0]); j++) {
				fprintf(f, "rant_path_latency_seconds{");
				put_path_labels(f, s, &sf->t[i], sp);
				fprintf(f, ",quantile=\"0.%s\"} %.9g\n", snap_pct_keys[q[j]],
					sp->rtt.pct[q[j]] / 1e9);
			}
			fprintf(f, "rant_path_latency_seconds_sum{");
			put_path_labels(f, s, &sf->t[i], sp);
			fprintf(f, "} %.9g\nrant_path_latency_seconds_count{", sp->rtt.st.avg *
				(double)sp->rtt.st.samples / 1e9);
			put_path_labels(f, s, &sf->t[i], sp);
			fprintf(f, "} %llu\n", (unsigned long long)sp->rtt.st.samples);
		}
	}
}

/* Each fleet socket's drops: {interface, port, socket: its index on
 * the port}. */
static void put_socket_drops(FILE *f, const struct snap *s)
{
	const struct snap_fleet *sf = s->fleet;

	prom_family(f, "rant_fleet_socket_drops_total", "counter", "Datagrams the kernel dropped "
		    "at one of the fleet's sockets (its receive queue full: pongs lost before rant "
		    "read them); socket: its index among those of its source port.");
	for (unsigned int i = 0; i < sf->nsk; i++) {
		fprintf(f, "rant_fleet_socket_drops_total{");
		put_own(f, s, true);
		fprintf(f, ",port=\"%u\",socket=\"%u\"} %llu\n", sf->sock[i].port, i % sf->share,
			(unsigned long long)sf->sock[i].drops);
	}
}

/* A fleet's own: how many targets, each socket's drops, and with
 * --paths each path's series. */
static void put_fleet(FILE *f, const struct snap *s)
{
	if (!s->fleet)
		return;
	gauge(f, s, "rant_fleet_targets", "Targets the fleet measures now (--targets).",
	      (double)s->fleet->n);
	put_socket_drops(f, s);
	if (s->fleet->npaths < 2)
		return;
	put_path_counts(f, s);
	put_path_rtt(f, s);
}

/*
 * Emitter: jitter (jitter.h) for the round trip and each way (way: rtt,
 * fwd, back), live and at the end; --stamp, at the end: the pings lost
 * by direction (stamppeer.h; direction: forward, backward, other).
 */
static void put_path(FILE *f, const struct snap *s)
{
	static const char *const dir[] = { "forward", "backward", "other" };
	struct stamp_loss_dir l;
	bool any = false;

	for (int w = 0; w < JITTER_NWAYS && s->have_jitter; w++)
		any |= s->jitter[w].pairs > 0;
	if (any)
		put_jitter(f, s);
	if (!s->emit || !s->cfg->stamp || s->kind != SNAP_FINAL)
		return;
	stamppeer_loss(&s->stamp_peer, s->cnt.lost, s->cnt.late, &l);
	if (!l.from)
		return;
	prom_family(f, "rant_stamp_lost_total", "counter", "Pings lost, by direction, as the STAMP "
	       "reflector's numbers or Direct Measurement counters tell (other: after the last "
	       "reply; late ones are rant_packets_late_total).");
	for (int d = 0; d < 3; d++) {
		fprintf(f, "rant_stamp_lost_total{");
		put_own(f, s, true);
		fprintf(f, ",direction=\"%s\"} %llu\n", dir[d],
			(unsigned long long)(d == 0 ? l.forward : d == 1 ? l.backward : l.other));
	}
}

int prom_render(FILE *f, const struct snap *s, const struct prom_ladder *l)
{
	put_info(f, s);
	put_clock(f, s);
	put_counters(f, s);
	put_icmp(f, s);
	put_sessions(f, s);
	put_probe(f, s);
	put_path(f, s);
	put_hists(f, s, l);
	put_fleet(f, s);
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
