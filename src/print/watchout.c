// SPDX-License-Identifier: GPL-2.0-or-later
/* The outputs of --read and --watch (watchout.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "metrics.h"
#include "outfile.h"
#include "statout.h"
#include "timeutil.h"
#include "watchflow.h"
#include "watchout.h"
#include "watchprom.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

#define TEXT_FLOWS 10		/* rows of the text table */

struct watchout {
	const struct rant_cfg *cfg;
	struct watch *w;
	FILE *text;
	struct outfile json;
	bool have_json;
	struct metrics *metrics;
};

/* ---- the report ---- */

static void print_source(struct out *o, const struct rant_cfg *c, const struct watch_report *r)
{
	out_str(o, "rant_version", NULL, RANT_VERSION);
	out_str(o, "mode", NULL, r->live ? "watch" : "read");
	out_strs(o, "command_line", (const char *const *)c->argv, (size_t)c->argc);
	out_obj(o, "source");
	if (r->live)
		out_str(o, "interface", NULL, r->iface);
	else
		out_str(o, "file", NULL, strcmp(r->path, "-") ? r->path : "(standard input)");
	out_str_or_null(o, "filter", NULL, r->filter);
	out_str(o, "link_type", NULL, r->link);
	out_str_or_null(o, "format", NULL, r->format);
	out_str_or_null(o, "stamps", NULL, r->stamps);
	out_i64(o, "snaplen", NULL, r->snaplen);
	out_obj_end(o);
	out_text(o, "\n--- TCP flows (%s %s) ---\n", r->live ? "--watch on" : "--read",
		 r->live ? r->iface : r->path);
}

/* What the capture held that was read with care, or not read: a line
 * each, when there was any. */
static void print_odd(struct out *o, const struct watch_counts *k)
{
	if (k->tunneled)
		out_text(o, "tunnels: %" PRIu64 " TCP segments read inside IPIP, 6in4, GRE or VXLAN\n",
			 k->tunneled);
	if (k->verdict[PKT_TUNNEL])
		out_text(o, "not read: %" PRIu64 " packets in a tunnel rant does not decode (PPTP's GRE, GRE of another protocol than IP or Ethernet, tunnels over 16 deep)\n",
			 k->verdict[PKT_TUNNEL]);
	if (k->ip_len_clamped)
		out_text(o, "untrusted: %" PRIu64 " packets whose IP length ran past the frame: cut to the frame's bytes\n",
			 k->ip_len_clamped);
	if (k->bad_stamps)
		out_text(o, "not read: %" PRIu64 " packets stamped past what rant's clock holds (year 2262; a pcapng if_tsoffset?)\n",
			 k->bad_stamps);
}

static void print_counts(struct out *o, const struct watch_report *r)
{
	const struct watch_counts *k = &r->cnt;

	out_i64(o, "first_ns", NULL, r->first_ns);
	out_i64(o, "last_ns", NULL, r->last_ns);
	out_i64(o, "read_ns", NULL, r->wall_ns);
	out_str(o, "stop_reason", NULL, r->stop_reason ? r->stop_reason : "");
	out_str_or_null(o, "error", NULL, *r->error ? r->error : NULL);
	out_text(o, "%" PRIu64 " packets over %.3f s of capture (read in %.3f s): %" PRIu64
		 " TCP, %" PRIu64 " other, %" PRIu64 " fragments, %" PRIu64 " cut short, %" PRIu64
		 " bad; stopped: %s\n", k->packets,
		 (double)(r->last_ns - r->first_ns) / NS_PER_SEC, (double)r->wall_ns / NS_PER_SEC,
		 k->verdict[PKT_TCP],
		 k->verdict[PKT_NOT_IP] + k->verdict[PKT_NOT_TCP] + k->verdict[PKT_TUNNEL],
		 k->verdict[PKT_FRAGMENT], k->verdict[PKT_CUT], k->verdict[PKT_BAD],
		 r->stop_reason ? r->stop_reason : "?");
	out_obj(o, "counts");
	out_u64(o, "packets", NULL, k->packets);
	for (int v = 0; v < PKT_VERDICTS; v++)
		out_u64(o, pktparse_verdict_name(v), NULL, k->verdict[v]);
	out_u64(o, "tcp_unreadable", NULL, k->unreadable);
	out_u64(o, "tcp_options_cut", NULL, k->cut);
	out_u64(o, "backwards", NULL, k->backwards);
	out_u64(o, "after_close", NULL, k->after_close);
	out_u64(o, "tunneled", NULL, k->tunneled);
	out_u64(o, "ip_len_clamped", NULL, k->ip_len_clamped);
	out_u64(o, "bad_stamps", NULL, k->bad_stamps);
	out_u64(o, "flows", NULL, r->all.flows);
	out_u64(o, "flows_active_peak", NULL, k->flows_active_peak);
	out_obj(o, "flow_ends");
	for (int e = 0; e < WE_COUNT; e++)
		out_u64(o, watch_end_names[e], NULL, k->ends[e]);
	out_obj_end(o);
	if (r->live) {
		out_u64(o, "dropped", NULL, k->dropped);
		out_u64(o, "if_dropped", NULL, k->if_dropped);
	}
	out_obj_end(o);
	print_odd(o, k);
	if (r->live)
		out_text(o, "dropped: %" PRIu64 " by the kernel (its buffer full), %" PRIu64
			 " by the interface\n", k->dropped, k->if_dropped);
}

static void print_memory(struct out *o, const struct watch_report *r)
{
	struct rusage ru;
	struct out jo = out_json_only(o);

	out_obj(&jo, "memory");
	out_u64(&jo, "table_bytes", NULL, r->table_bytes);
	out_u64(&jo, "counters_peak", NULL, r->cnt.counters_peak);
	if (!getrusage(RUSAGE_SELF, &ru))
		out_u64(&jo, "max_rss_bytes", NULL, (uint64_t)ru.ru_maxrss * 1024);
	out_obj_end(&jo);
}

static void print_flows(struct out *o, const struct watch_report *r)
{
	size_t n = r->nflows < TEXT_FLOWS ? r->nflows : TEXT_FLOWS;

	out_text(o, "flows: %" PRIu64 ", at most %" PRIu64 " at once; ended:", r->all.flows,
		 r->cnt.flows_active_peak);
	for (int e = 0; e < WE_COUNT; e++)
		if (r->cnt.ends[e])
			out_text(o, " %s %" PRIu64, watch_end_names[e], r->cnt.ends[e]);
	out_text(o, "\n");
	if (n) {
		out_text(o, "the %zu worst (the longest held, then the slowest exchange)%s:\n", n,
			 r->nflows > n ? "; -j lists more" : "");
		watchflow_head(o);
	}
	for (size_t i = 0; i < n; i++)
		watchflow_row(o, &r->flows[i]);
	out_u64(o, "flows_kept", NULL, r->nflows);
	out_arr(o, "flows");
	for (size_t i = 0; i < r->nflows; i++)
		watchflow_json(o, &r->flows[i]);
	out_arr_end(o);
}

/* A port's (or the capture's) metrics: JSON objects; text, the rows. */
static void print_metrics(struct out *o, const struct watch_port *p, bool rows)
{
	struct out jo = out_json_only(o);
	struct out *to = rows ? o : &jo;

	if (rows) {
		out_text(o, "\n%-13s %9s %10s %10s %10s", "us", "samples", "min", "avg", "stddev");
		for (size_t i = 0; i < SNAP_NPCT; i++)
			out_text(o, " %9s", snap_pct_keys[i]);
		out_text(o, " %9s\n", "max");
	}
	out_obj(o, "metrics");
	for (int m = 0; m < WM_COUNT; m++) {
		struct snap_stats st;

		if (snap_stats_fill(&st, p->h[m], watch_metric_keys[m], watch_metric_labels[m],
				    NULL))
			continue;
		statout_stats(st.st.samples ? to : &jo, &st);
		snap_stats_free(&st);
	}
	out_obj_end(o);
}

static void print_port_diag(struct out *o, const struct watch_port *p, const char *indent)
{
	char a[24], m[24];

	for (size_t i = 0; i < p->ndiag; i++) {
		const struct tcpana_diag *d = &p->diag[i];

		out_text(o, "%s%s held %.1f%% of %" PRIu64 " exchanges (in %" PRIu64 " of %" PRIu64
			 " flows), typical %s, max %s: fix: %s\n", indent, tcpana_kind_name(d->kind),
			 100 * d->share, p->exchanges, p->named_flows[d->kind], p->flows,
			 statout_human_ns_in(d->typical_ns, d->max_ns, a, sizeof(a)),
			 statout_human_ns_in(d->max_ns, d->max_ns, m, sizeof(m)), d->fix ? d->fix : "-");
	}
	watchflow_diag(o, "diagnosis", p->diag, p->ndiag, p->named_flows);
}

static void print_ports(struct out *o, const struct watch_report *r)
{
	size_t n = atomic_load(&r->nports);
	char a[24], b[24];

	out_arr(o, "ports");
	for (size_t i = 0; i < n; i++) {
		const struct watch_port *p = &r->ports[i];

		out_obj(o, NULL);
		if (p->other) {
			out_str(o, "port", "server port other (past the first %d)", "other");
			out_text(o, "%d", WATCH_PORTS);
		} else {
			out_u64(o, "port", "server port %" PRIu64, p->port);
		}
		out_u64(o, "flows", ": %" PRIu64 " flows", p->flows);
		out_u64(o, "exchanges", ", %" PRIu64 " exchanges", p->exchanges);
		out_u64(o, "retransmits", ", %" PRIu64 " retransmits", p->retransmits);
		if (p->exchanges)
			out_text(o, ", exchange p50 %s p99 %s",
				 statout_human_ns(hist_percentile(p->h[WM_EXCHANGE], 50), a, 24),
				 statout_human_ns(hist_percentile(p->h[WM_EXCHANGE], 99), b, 24));
		out_text(o, "%s\n", p->exchanges && !p->ndiag ? "; nothing held them" : "");
		print_port_diag(o, p, "  ");
		print_metrics(o, p, false);
		out_obj_end(o);
	}
	out_arr_end(o);
}

/* What the flows could not tell, and the capture's diagnosis. */
static void print_verdict(struct out *o, const struct watch_report *r)
{
	struct out jo = out_json_only(o);

	out_arr(&jo, "unknown");
	for (unsigned int i = 0; i < 3; i++) {
		if (!r->cnt.flows_unknown[i])
			continue;
		out_text(o, "cannot tell for %" PRIu64 " of %" PRIu64 " flows: %s\n",
			 r->cnt.flows_unknown[i], r->all.flows, watchflow_unknown_text(i));
		out_obj(&jo, NULL);
		out_str(&jo, "what", NULL, watchflow_unknown_name(i));
		out_u64(&jo, "flows", NULL, r->cnt.flows_unknown[i]);
		out_str(&jo, "text", NULL, watchflow_unknown_text(i));
		out_obj_end(&jo);
	}
	out_arr_end(&jo);
	if (!r->all.exchanges)
		out_text(o, "diagnosis: no exchange (a request and its response) in %s\n",
			 r->cnt.verdict[PKT_TCP] ? "these flows" : "this capture: it has no TCP");
	else if (!r->all.ndiag)
		out_text(o, "diagnosis: nothing held the %" PRIu64 " exchanges\n", r->all.exchanges);
	if (r->all.ndiag)
		out_text(o, "diagnosis:\n");
	print_port_diag(o, &r->all, "  ");
}

void watchout_print(struct out *o, const struct rant_cfg *c, const struct watch_report *r)
{
	out_obj(o, NULL);
	print_source(o, c, r);
	print_counts(o, r);
	print_memory(o, r);
	print_flows(o, r);
	print_ports(o, r);
	print_metrics(o, &r->all, r->all.exchanges || r->all.flows);
	print_verdict(o, r);
	out_obj_end(o);
	out_doc_end(o);
}

/* ---- the files ---- */

static int render(void *ctx, FILE *f, const struct prom_ladder *l)
{
	struct watchout *o = ctx;

	return watchprom_render(f, o->cfg, watch_report(o->w), l);
}

static void print_start(const struct watchout *o)
{
	const struct watch_report *r = watch_report(o->w);
	const struct rant_cfg *c = o->cfg;

	if (r->live)
		fprintf(o->text, "watching %s: link %s, snaplen %d%s%s%s, ", r->iface, r->link,
			r->snaplen, r->filter ? ", filter '" : "", r->filter ? r->filter : "",
			r->filter ? "'" : "");
	else
		fprintf(o->text, "reading %s: %s%s%s%s, link %s, snaplen %d%s%s%s\n",
			strcmp(r->path, "-") ? r->path : "standard input",
			r->format ? r->format : "capture", r->stamps ? ", " : "",
			r->stamps ? r->stamps : "", r->stamps ? "second stamps" : "", r->link,
			r->snaplen, r->filter ? ", filter '" : "", r->filter ? r->filter : "",
			r->filter ? "'" : "");
	if (r->live && c->duration_ns)
		fprintf(o->text, "for %.3g s (or until SIGINT)\n", (double)c->duration_ns / NS_PER_SEC);
	else if (r->live)
		fprintf(o->text, "until SIGINT\n");
	fflush(o->text);
}

int watchout_start(struct watchout **op, const struct rant_cfg *c, struct watch *w)
{
	struct watchout *o = calloc(1, sizeof(*o));
	char msg[512];
	int ret;

	*op = NULL;
	if (!o) {
		fprintf(stderr, "rant: no memory for the outputs\n");
		return -ENOMEM;
	}
	o->cfg = c;
	o->w = w;
	o->text = out_text_stream(c->json_path, NULL, NULL);
	if (c->json_path) {
		ret = outfile_open(&o->json, c->json_path, c->follow_links ? OUTFILE_FOLLOW : 0,
				   msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "rant: -j/--json: %s\n", msg);
			free(o);
			return ret;
		}
		o->have_json = true;
	}
	ret = metrics_start_with(c, render, o, &o->metrics);
	if (ret) {
		if (o->have_json)
			outfile_abort(&o->json);
		free(o);
		return ret;
	}
	print_start(o);
	*op = o;
	return 0;
}

int watchout_end(struct watchout *o)
{
	const struct watch_report *r = watch_report(o->w);
	struct out pass = { .t = o->text };
	struct json j;
	int ret = 0;

	metrics_finish(o->metrics);
	if (o->have_json) {
		FILE *f = outfile_stream(&o->json);

		if (f) {
			json_init(&j, f);
			pass.j = &j;
		} else {
			ret = -(errno ? errno : EIO);
		}
	}
	watchout_print(&pass, o->cfg, r);
	fflush(o->text);
	if (*r->error)
		fprintf(stderr, "rant: %s: the report is of what came before it\n", r->error);
	if (o->have_json && !ret)
		ret = outfile_commit(&o->json);
	if (o->have_json && ret) {
		fprintf(stderr, "rant: -j/--json: writing %s failed: %s\n", o->cfg->json_path,
			strerror(-ret));
		outfile_abort(&o->json);
	}
	free(o);
	return ret;
}
