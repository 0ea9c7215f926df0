// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant trace's report (traceout.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"
#include "snap.h"
#include "statout.h"
#include "traceout.h"
#include "traceprom.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

static const char *unreach_name(int family, uint8_t code)
{
	static const char *const v4[] = {
		"network unreachable", "host unreachable", "protocol unreachable",
		"port unreachable", "fragmentation needed", "source route failed",
		"network unknown", "host unknown", "source host isolated",
		"network prohibited", "host prohibited", "network unreachable for TOS",
		"host unreachable for TOS", "administratively prohibited",
	};
	static const char *const v6[] = {
		"no route", "administratively prohibited", "beyond the source's scope",
		"address unreachable", "port unreachable", "source address failed policy",
		"reject route",
	};

	if (family == AF_INET6)
		return code < sizeof(v6) / sizeof(v6[0]) ? v6[code] : "unreachable";
	return code < sizeof(v4) / sizeof(v4[0]) ? v4[code] : "unreachable";
}

/* How path p ended, as a clause. */
static const char *path_end(const struct hopsum *s, const struct hopsum_path *p, char *buf,
			    size_t len)
{
	switch (p->end) {
	case HOPS_REACHED:
		snprintf(buf, len, "destination %s reached at hop %u", s->dst, p->end_ttl);
		break;
	case HOPS_UNREACHABLE:
		snprintf(buf, len, "hop %u (%s) says %s (ICMP code %u): the trace ends there",
			 p->end_ttl, p->by >= 0 ? s->addr[p->by] : "?",
			 unreach_name(s->family, p->code), p->code);
		break;
	case HOPS_SILENT:
		snprintf(buf, len, "no answer from hop %u on (%u hops in a row): %s does not answer, or the probes or answers are dropped",
			 p->end_ttl - HOPS_SILENT_STOP + 1, (unsigned int)HOPS_SILENT_STOP, s->dst);
		break;
	case HOPS_MAX_HOPS:
		snprintf(buf, len, "hop limit %u reached without the destination %s (--max-hops)",
			 p->end_ttl, s->dst);
		break;
	case HOPS_FAILED:
		snprintf(buf, len, "failed at hop %u: %s", p->end_ttl, s->error ? s->error : "?");
		break;
	default:
		snprintf(buf, len, "stopped by a signal at hop %u", p->end_ttl);
		break;
	}
	return buf;
}

const char *traceout_end_line(const struct hopsum *s, char *buf, size_t len)
{
	char one[320], first[320];
	unsigned int same = 0;

	if (!s->paths)
		return snprintf(buf, len, "no path traced"), buf;
	path_end(s, &s->path[0], first, sizeof(first));
	for (unsigned int i = 0; i < s->paths; i++)
		same += !strcmp(path_end(s, &s->path[i], one, sizeof(one)), first);
	if (same == s->paths)
		snprintf(buf, len, "%s%s", first, s->paths > 1 ? " on every path" : "");
	else
		snprintf(buf, len, "%s on %u of %u paths; the others differ (each path's line says)",
			 first, same, s->paths);
	return buf;
}

static void cell_stats(struct out *o, const struct hopsum_cell *c)
{
	struct out jo = out_json_only(o);
	struct snap_stats st;

	out_obj(&jo, "metrics");
	if (c->rtt.counts) {
		snap_stats_lat(&st, &c->rtt, "rtt", "probe TX stamp to answer RX stamp", false);
		statout_stats(&jo, &st);
	}
	out_obj_end(&jo);
}

static void cell(struct out *o, const struct hopsum *s, const struct hopsum_cell *c)
{
	struct out to = out_text_only(o), jo = out_json_only(o);
	const char *who = c->responder >= 0 ? s->addr[c->responder] : NULL;

	out_obj(o, NULL);
	out_u64(o, "ttl", "  %3" PRIu64, c->ttl);
	out_str_or_null(&jo, "address", NULL, who);
	out_text(&to, "  %-39s", who ? who : "*");
	out_u64(o, "sent", " %4" PRIu64, c->sent);
	out_u64(o, "received", " %4" PRIu64, c->received);
	out_bool(&jo, "rate_limited", NULL, c->rate_limited);
	if (c->rtt.counts)
		out_text(&to, " %9.3f %9.3f %9.3f %9.3f", (double)c->rtt.m.min / 1e3,
			 (double)latstat_percentile(&c->rtt, 50) / 1e3,
			 (double)latstat_percentile(&c->rtt, 99) / 1e3, (double)c->rtt.m.max / 1e3);
	else
		out_text(&to, " %9s %9s %9s %9s", "-", "-", "-", "-");
	out_i64_or_null(&jo, "increment_ns", NULL, c->have_inc, c->inc_ns);
	if (c->have_inc)
		out_text(&to, " %+9.3f", (double)c->inc_ns / 1e3);
	if (c->rate_limited)
		out_text(&to, "  rate limited");
	if (c->others)
		out_text(&to, "  (+%u from others)", c->others);
	out_u64(&jo, "unstamped", NULL, c->unstamped);
	out_text(&to, "\n");
	cell_stats(o, c);
	out_obj_end(o);
}

static void path(struct out *o, const struct hopsum *s, unsigned int i)
{
	const struct hopsum_path *p = &s->path[i];
	struct out to = out_text_only(o), jo = out_json_only(o);
	char end[320];

	out_obj(o, NULL);
	out_u64(&jo, "path", NULL, i + 1);
	out_u64(&jo, s->cfg->proto == HOPSOCK_ICMP ? "echo_id" : "source_port", NULL, p->sport);
	out_str(&jo, "end", NULL, hops_end_name(p->end));
	out_u64(&jo, "end_ttl", NULL, p->end_ttl);
	path_end(s, p, end, sizeof(end));
	out_str(&jo, "end_text", NULL, end);
	out_text(&to, "\npath %u (%s %u): %s\n", i + 1,
		 s->cfg->proto == HOPSOCK_ICMP ? "echo id" : "source port", p->sport, end);
	out_text(&to, "  hop  %-39s sent recv    min_us    p50_us    p99_us    max_us    +p50_us\n",
		 "responder");
	out_arr(o, "hops");
	for (unsigned int t = 0; t < p->hops; t++)
		cell(o, s, &p->cell[t]);
	out_arr_end(o);
	out_obj_end(o);
}

/* The paths of mask, "3, 7, 11", and their ports, in the text; both
 * arrays in the JSON. */
static void paths_named(struct out *o, const struct hopsum *s, uint64_t mask)
{
	struct out to = out_text_only(o), jo = out_json_only(o);
	const char *sep = "";

	out_text(&to, "path%s ", __builtin_popcountll(mask) > 1 ? "s" : "");
	for (unsigned int i = 0; i < s->paths; i++)
		if (mask & (1ULL << i)) {
			out_text(&to, "%s%u", sep, i + 1);
			sep = ", ";
		}
	out_text(&to, " (%s%s ", s->cfg->proto == HOPSOCK_ICMP ? "echo id" : "source port",
		 __builtin_popcountll(mask) > 1 ? "s" : "");
	sep = "";
	out_arr(&jo, "source_ports");
	for (unsigned int i = 0; i < s->paths; i++)
		if (mask & (1ULL << i)) {
			out_u64(&jo, NULL, NULL, s->path[i].sport);
			out_text(&to, "%s%u", sep, s->path[i].sport);
			sep = ", ";
		}
	out_arr_end(&jo);
	out_text(&to, ")");
	out_arr(&jo, "paths");
	for (unsigned int i = 0; i < s->paths; i++)
		if (mask & (1ULL << i))
			out_u64(&jo, NULL, NULL, i + 1);
	out_arr_end(&jo);
}

static void finding(struct out *o, const struct hopsum *s, const struct hopdiag *d)
{
	struct out to = out_text_only(o), jo = out_json_only(o);
	const char *via = d->responder != HOPDIAG_NONE ? s->addr[d->responder] : NULL;
	unsigned int others = (unsigned int)__builtin_popcountll(d->others);

	out_obj(&jo, NULL);
	out_str(&jo, "kind", NULL, hopdiag_kind_name(d->kind));
	out_u64(&jo, "ttl", NULL, d->ttl);
	out_text(&to, "  ");
	paths_named(o, s, d->paths);
	out_str_or_null(&jo, "responder", NULL, via);
	if (via)
		out_text(&to, " via %s", via);
	out_u64(&jo, "other_paths", NULL, others);
	if (d->kind == HOPDIAG_LOSS_FROM) {
		out_dbl(&jo, "lost_share", NULL, d->lost);
		out_text(&to, ": %.0f%% of the probes unanswered from hop %u on (not a rate limit: the hops after lose too)",
			 d->lost * 100, d->ttl);
	} else {
		out_i64(&jo, "step_ns", NULL, d->step_ns);
		if (d->kind == HOPDIAG_DELAY_STEP)
			out_text(&to, ": +%.3f ms from hop %u on", (double)d->step_ns / 1e6, d->ttl);
		else
			out_text(&to, ": hop %u slow only in its own answers (+%.3f ms, gone at the next hop): the router's ICMP slow path, not the path's delay",
				 d->ttl, (double)d->step_ns / 1e6);
	}
	if (d->kind == HOPDIAG_DELAY_STEP && others)
		out_text(&to, "; the other %u flat", others);
	out_text(&to, "\n");
	out_obj_end(&jo);
}

static void header(struct out *o, const struct hopsum *s)
{
	const struct hops_cfg *c = s->cfg;
	struct out to = out_text_only(o), jo = out_json_only(o);

	out_str(&jo, "rant_version", NULL, RANT_VERSION);
	out_str(&jo, "mode", NULL, "trace");
	out_str(&jo, "interface", NULL, c->iface);
	out_str(&jo, "destination", NULL, s->dst);
	out_str(&jo, "protocol", NULL, hopsock_proto_name(c->proto));
	if (c->proto != HOPSOCK_ICMP)
		out_u64(&jo, "port", NULL, c->port);
	out_str(&jo, "timestamp_source", NULL, s->hw ? "hardware" : "kernel");
	out_u64(&jo, "probes_per_hop", NULL, c->count);
	out_i64(&jo, "interval_ns", NULL, c->interval_ns);
	out_u64(&jo, "max_hops", NULL, c->max_hops);
	out_text(&to, "rant trace to %s (%s", s->dst, hopsock_proto_name(c->proto));
	if (c->proto != HOPSOCK_ICMP)
		out_text(&to, " port %u", c->port);
	out_text(&to, ") on %s: %u path%s, %u probe%s a hop, %s stamps\n", c->iface, s->paths,
		 s->paths > 1 ? "s" : "", c->count, c->count > 1 ? "s" : "",
		 s->hw ? "NIC" : "kernel");
	out_obj(&jo, "counts");
	out_u64(&jo, "sent", NULL, s->sent);
	out_u64(&jo, "received", NULL, s->answered);
	out_u64(&jo, "unmatched", NULL, s->unmatched);
	out_obj_end(&jo);
}

void traceout_print(struct out *o, const struct hopsum *s)
{
	struct out to = out_text_only(o), jo = out_json_only(o);
	char line[512];

	out_obj(&jo, NULL);
	header(o, s);
	out_arr(&jo, "paths");
	for (unsigned int k = 0; k < s->paths; k++)
		path(o, s, s->order[k]);
	out_arr_end(&jo);
	out_text(&to, "\nverdict:\n");
	out_arr(&jo, "diagnosis");
	for (unsigned int i = 0; i < s->ndiag; i++)
		finding(o, s, &s->diag[i]);
	out_arr_end(&jo);
	if (!s->ndiag)
		out_text(&to, "  no hop stands out (no step of %d us or more that stays, no loss from a hop on)\n",
			 HOPDIAG_MIN_STEP_NS / 1000);
	out_obj(&jo, "end");
	traceout_end_line(s, line, sizeof(line));
	out_str(&jo, "text", NULL, line);
	out_obj_end(&jo);
	out_text(&to, "end: %s\n", line);
	out_obj_end(&jo);
	out_doc_end(&jo);
}

/* --metrics FILE: the exposition written whole (a temporary renamed). */
static int metrics_write(const struct hopsum *s, const char *path, bool follow_links)
{
	struct outfile f;
	char msg[512];
	int ret;

	ret = outfile_open(&f, path, follow_links ? OUTFILE_FOLLOW : 0, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "rant: --metrics: %s\n", msg);
		return ret;
	}
	ret = traceprom_render(outfile_stream(&f), s);
	if (!ret)
		ret = outfile_commit(&f);
	if (ret) {
		fprintf(stderr, "rant: --metrics: writing %s failed: %s\n", path, strerror(-ret));
		outfile_abort(&f);
	}
	return ret;
}

int traceout_write(const struct hopsum *s, const char *json_path, const char *metrics_path,
		   bool follow_links)
{
	struct out o = { .t = out_text_stream(json_path, NULL, NULL) };
	struct outfile f;
	struct json j;
	char msg[512];
	int ret = 0;

	if (json_path) {
		ret = outfile_open(&f, json_path, follow_links ? OUTFILE_FOLLOW : 0, msg,
				   sizeof(msg));
		if (ret) {
			fprintf(stderr, "rant: -j/--json: %s\n", msg);
			return ret;
		}
		json_init(&j, outfile_stream(&f));
		o.j = &j;
	}
	traceout_print(&o, s);
	fflush(o.t);
	if (json_path) {
		ret = outfile_commit(&f);
		if (ret) {
			fprintf(stderr, "rant: -j/--json: writing %s failed: %s\n", json_path,
				strerror(-ret));
			outfile_abort(&f);
		}
	}
	if (metrics_path) {
		int m = metrics_write(s, metrics_path, follow_links);

		ret = ret ? ret : m;
	}
	return ret;
}
