// SPDX-License-Identifier: GPL-2.0-or-later
/* rant trace's Prometheus exposition (traceprom.h). */
#include <errno.h>
#include <inttypes.h>

#include "prom.h"
#include "traceprom.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

/* interface="eth0",destination="10.82.3.2" */
static void own(FILE *f, const struct hopsum *s)
{
	fprintf(f, "interface=\"");
	prom_label_value(f, s->cfg->iface);
	fprintf(f, "\",destination=\"");
	prom_label_value(f, s->dst);
	fputc('"', f);
}

/* name{own,path="52579",ttl="2",responder="10.82.1.2" */
static void hop_open(FILE *f, const char *name, const struct hopsum *s,
		     const struct hopsum_path *p, const struct hopsum_cell *c)
{
	fprintf(f, "%s{", name);
	own(f, s);
	fprintf(f, ",path=\"%u\",ttl=\"%u\",responder=\"", p->sport, c->ttl);
	if (c->responder >= 0)
		prom_label_value(f, s->addr[c->responder]);
	fputc('"', f);
}

static void put_info(FILE *f, const struct hopsum *s)
{
	prom_family(f, "rant_info", "gauge", "What this rant measures (always 1).");
	fprintf(f, "rant_info{version=\"");
	prom_label_value(f, RANT_VERSION);
	fprintf(f, "\",mode=\"trace\",protocol=\"%s\",timestamp_source=\"%s\",",
		hopsock_proto_name(s->cfg->proto), s->hw ? "hardware" : "kernel");
	own(f, s);
	fprintf(f, "} 1\n");
}

static void put_rtt(FILE *f, const struct hopsum *s)
{
	static const double q[] = { 0, 0.5, 0.99, 1 };

	prom_family(f, "rant_trace_hop_rtt_seconds", "summary",
		    "RTT of a path's probes to a hop, probe TX stamp to answer RX stamp, seconds.");
	for (unsigned int i = 0; i < s->paths; i++) {
		const struct hopsum_path *p = &s->path[i];

		for (unsigned int t = 0; t < p->hops; t++) {
			const struct hopsum_cell *c = &p->cell[t];
			struct hist_stats st = { 0 };

			if (c->rtt.counts)
				moments_stats(&c->rtt.m, &st);
			for (size_t k = 0; c->rtt.counts && k < sizeof(q) / sizeof(q[0]); k++) {
				int64_t v = k == 0 ? c->rtt.m.min : k == 3 ? c->rtt.m.max :
					    latstat_percentile(&c->rtt, q[k] * 100);

				hop_open(f, "rant_trace_hop_rtt_seconds", s, p, c);
				fprintf(f, ",quantile=\"%g\"} %.9f\n", q[k], (double)v / 1e9);
			}
			hop_open(f, "rant_trace_hop_rtt_seconds_sum", s, p, c);
			fprintf(f, "} %.9f\n", st.avg * (double)st.samples / 1e9);
			hop_open(f, "rant_trace_hop_rtt_seconds_count", s, p, c);
			fprintf(f, "} %" PRIu64 "\n", st.samples);
		}
	}
}

enum hop_field { HF_SENT, HF_RECEIVED, HF_RATE_LIMITED, HF_INCREMENT };

/* One family of every (path, hop): field f of each cell. */
static void put_hops(FILE *f, const struct hopsum *s, enum hop_field which, const char *name,
		     const char *type, const char *help)
{
	prom_family(f, name, type, help);
	for (unsigned int i = 0; i < s->paths; i++) {
		const struct hopsum_path *p = &s->path[i];

		for (unsigned int t = 0; t < p->hops; t++) {
			const struct hopsum_cell *c = &p->cell[t];

			if (which == HF_INCREMENT && !c->have_inc)
				continue;
			hop_open(f, name, s, p, c);
			if (which == HF_INCREMENT)
				fprintf(f, "} %.9f\n", (double)c->inc_ns / 1e9);
			else if (which == HF_RATE_LIMITED)
				fprintf(f, "} %d\n", c->rate_limited);
			else
				fprintf(f, "} %" PRIu64 "\n",
					which == HF_SENT ? c->sent : c->received);
		}
	}
}

static void put_paths(FILE *f, const struct hopsum *s)
{
	prom_family(f, "rant_trace_path_reached", "gauge",
		    "1 when the destination answered the path's probes, 0 when not.");
	for (unsigned int i = 0; i < s->paths; i++) {
		fprintf(f, "rant_trace_path_reached{");
		own(f, s);
		fprintf(f, ",path=\"%u\"} %d\n", s->path[i].sport, s->path[i].end == HOPS_REACHED);
	}
	prom_family(f, "rant_trace_path_hops", "gauge", "Hops the path was probed to.");
	for (unsigned int i = 0; i < s->paths; i++) {
		fprintf(f, "rant_trace_path_hops{");
		own(f, s);
		fprintf(f, ",path=\"%u\"} %u\n", s->path[i].sport, s->path[i].hops);
	}
}

static void put_verdict(FILE *f, const struct hopsum *s)
{
	prom_family(f, "rant_trace_finding_paths", "gauge",
		    "Paths a finding of the verdict names (kind: delay_step, slow_answer, loss_from).");
	for (unsigned int d = 0; d < s->ndiag; d++) {
		fprintf(f, "rant_trace_finding_paths{");
		own(f, s);
		fprintf(f, ",kind=\"%s\",ttl=\"%u\"} %d\n", hopdiag_kind_name(s->diag[d].kind),
			s->diag[d].ttl, __builtin_popcountll(s->diag[d].paths));
	}
	prom_family(f, "rant_trace_delay_step_seconds", "gauge",
		    "The step of a path's RTT from the hop where the time grows and stays grown, seconds.");
	for (unsigned int d = 0; d < s->ndiag; d++) {
		const struct hopdiag *g = &s->diag[d];

		for (unsigned int i = 0; g->kind == HOPDIAG_DELAY_STEP && i < s->paths; i++) {
			if (!(g->paths & (1ULL << i)))
				continue;
			fprintf(f, "rant_trace_delay_step_seconds{");
			own(f, s);
			fprintf(f, ",path=\"%u\",ttl=\"%u\"} %.9f\n", s->path[i].sport, g->ttl,
				(double)g->step_ns / 1e9);
		}
	}
}

int traceprom_render(FILE *f, const struct hopsum *s)
{
	put_info(f, s);
	put_rtt(f, s);
	put_hops(f, s, HF_SENT, "rant_trace_hop_sent_total", "counter",
		 "Probes a path sent to a hop (its TTL).");
	put_hops(f, s, HF_RECEIVED, "rant_trace_hop_received_total", "counter",
		 "Probes of a path a hop answered.");
	put_hops(f, s, HF_RATE_LIMITED, "rant_trace_hop_rate_limited", "gauge",
		 "1 when the hop's missing answers are the router's ICMP rate limit, not loss.");
	put_hops(f, s, HF_INCREMENT, "rant_trace_hop_increment_seconds", "gauge",
		 "A hop's RTT p50 over the previous answering hop's on the path, seconds.");
	put_paths(f, s);
	put_verdict(f, s);
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
