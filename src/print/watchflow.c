// SPDX-License-Identifier: GPL-2.0-or-later
/* A flow of --read/--watch's report, printed (watchflow.h). */
#include <inttypes.h>
#include <stdio.h>

#include "statout.h"
#include "watchflow.h"

_Static_assert(WATCH_NPCT == SNAP_NPCT, "a flow's percentiles are the summary's");

static const char *const unknown_names[] = {
	"no_client", "no_server", "cut", "no_client_acks",
};

static const char *const unknown_texts[] = {
	"no segment from the client captured (one direction only: capture where both pass)",
	"no segment from the server captured (one direction only: capture where both pass)",
	"TCP headers cut by the capture's snaplen (capture with -s 128 or more)",
	"the client's ACKs not seen: Nagle verdicts from the tail's delay alone",
};

const char *watchflow_unknown_name(unsigned int bit)
{
	return bit < 4 ? unknown_names[bit] : "?";
}

const char *watchflow_unknown_text(unsigned int bit)
{
	return bit < 4 ? unknown_texts[bit] : "?";
}

void watchflow_diag(struct out *o, const char *key, const struct tcpana_diag *d, size_t n,
		    const uint64_t *flows)
{
	struct out jo = out_json_only(o);

	out_arr(&jo, key);
	for (size_t i = 0; i < n; i++) {
		out_obj(&jo, NULL);
		out_str(&jo, "kind", NULL, tcpana_kind_name(d[i].kind));
		out_u64(&jo, "exchanges", NULL, d[i].exchanges);
		out_dbl(&jo, "share", NULL, d[i].share);
		out_i64(&jo, "typical_ns", NULL, d[i].typical_ns);
		out_i64(&jo, "max_ns", NULL, d[i].max_ns);
		if (flows)
			out_u64(&jo, "flows", NULL, flows[d[i].kind]);
		out_str_or_null(&jo, "fix", NULL, d[i].fix);
		out_obj_end(&jo);
	}
	out_arr_end(&jo);
}

void watchflow_stats(struct snap_stats *st, const struct watch_flow *f, enum watch_metric m)
{
	const struct flowstat_sum *s = &f->m[m];

	*st = (struct snap_stats){ .key = watch_metric_keys[m], .label = watch_metric_labels[m],
				   .st = s->st };
	st->precision = s->partial ? FLOWSTAT_PARTIAL : FLOWSTAT_PRECISION;
	for (int i = 0; i < SNAP_NPCT; i++)
		st->pct[i] = s->pct[i];
}

void watchflow_head(struct out *o)
{
	out_text(o, "  %-24s %-24s %7s %9s %9s %9s  %s\n", "server", "client", "exch", "p50",
		 "p99", "max", "held by (share of its exchanges, typical)");
}

void watchflow_row(struct out *o, const struct watch_flow *f)
{
	const struct flowstat_sum *x = &f->m[WM_EXCHANGE];
	char s[WATCH_ADDR_LEN], c[WATCH_ADDR_LEN], a[24], b[24], m[24];

	out_text(o, "  %-24s %-24s %7" PRIu64, watch_addr_str(&f->server, s, sizeof(s)),
		 watch_addr_str(&f->client, c, sizeof(c)), f->exchanges);
	if (x->st.samples)
		out_text(o, " %9s %9s %9s ", statout_human_ns(x->pct[0], a, sizeof(a)),
			 statout_human_ns(x->pct[SNAP_P99], b, sizeof(b)),
			 statout_human_ns(x->st.max, m, sizeof(m)));
	else
		out_text(o, " %9s %9s %9s ", "-", "-", "-");
	for (size_t i = 0; i < f->ndiag; i++)
		out_text(o, "%s %s %.0f%% (%s)", i ? "," : "", tcpana_kind_name(f->diag[i].kind),
			 100 * f->diag[i].share,
			 statout_human_ns(f->diag[i].typical_ns, a, sizeof(a)));
	if (!f->ndiag && f->exchanges)
		out_text(o, " nothing");
	for (unsigned int i = 0; i < 4; i++)
		if (f->unknowns & (1u << i) && i != 3)
			out_text(o, " [%s]", unknown_names[i]);
	out_text(o, "\n");
}

/* "SA", "FPA", ".": a segment's flags as tcpdump shows them. */
static const char *flag_str(uint16_t fl, char *buf)
{
	char *p = buf;

	if (fl & TCPSEG_F_SYN)
		*p++ = 'S';
	if (fl & TCPSEG_F_FIN)
		*p++ = 'F';
	if (fl & TCPSEG_F_RST)
		*p++ = 'R';
	if (fl & TCPSEG_F_PSH)
		*p++ = 'P';
	if (fl & TCPSEG_F_ACK)
		*p++ = '.';
	*p = '\0';
	return buf;
}

/* The segments of the flow's most held exchange, for tools/rant-plot. */
static void timeline_json(struct out *jo, const struct watch_timeline *tl)
{
	char fl[8];

	out_obj(jo, "timeline");
	out_u64(jo, "exchange", NULL, tl->x.n);
	out_str(jo, "held", NULL, tcpana_kind_name(tl->x.held));
	out_i64(jo, "held_ns", NULL, tl->x.held_ns);
	out_i64(jo, "req_first_ns", NULL, tl->x.req_first_ns);
	out_i64(jo, "req_last_ns", NULL, tl->x.req_last_ns);
	out_i64(jo, "resp_first_ns", NULL, tl->x.resp_first_ns);
	out_i64(jo, "resp_last_ns", NULL, tl->x.resp_last_ns);
	out_i64(jo, "latency_ns", NULL, tl->x.latency_ns);
	out_bool(jo, "partial", NULL, tl->partial);
	out_arr(jo, "segments");
	for (unsigned int i = 0; i < tl->n; i++) {
		const struct watch_seg *s = &tl->seg[i];

		out_obj(jo, NULL);
		out_i64(jo, "t_ns", NULL, s->t_ns);
		out_str(jo, "dir", NULL, s->dir == TCPSEG_C2S ? "c2s" : "s2c");
		out_str(jo, "flags", NULL, flag_str(s->flags, fl));
		out_u64(jo, "seq", NULL, s->seq);
		out_u64(jo, "ack", NULL, s->ack);
		out_u64(jo, "len", NULL, s->len);
		out_u64(jo, "win", NULL, s->win);
		out_obj_end(jo);
	}
	out_arr_end(jo);
	out_obj_end(jo);
}

void watchflow_json(struct out *o, const struct watch_flow *f)
{
	struct out jo = out_json_only(o);
	char buf[WATCH_ADDR_LEN];
	const char *unk[4];
	size_t nunk = 0;

	out_obj(&jo, NULL);
	out_str(&jo, "server", NULL, watch_addr_str(&f->server, buf, sizeof(buf)));
	out_str(&jo, "client", NULL, watch_addr_str(&f->client, buf, sizeof(buf)));
	out_str(&jo, "roles_from", NULL, f->by_syn ? "handshake" : "ports");
	out_i64(&jo, "first_ns", NULL, f->first_ns);
	out_i64(&jo, "last_ns", NULL, f->last_ns);
	out_str(&jo, "end", NULL, watch_end_names[f->end]);
	out_u64(&jo, "packets", NULL, f->packets[0] + f->packets[1]);
	out_u64(&jo, "packets_c2s", NULL, f->packets[TCPSEG_C2S]);
	out_u64(&jo, "packets_s2c", NULL, f->packets[TCPSEG_S2C]);
	out_u64(&jo, "bytes_c2s", NULL, f->bytes[TCPSEG_C2S]);
	out_u64(&jo, "bytes_s2c", NULL, f->bytes[TCPSEG_S2C]);
	out_u64(&jo, "retransmits", NULL, f->retransmits);
	out_u64(&jo, "exchanges", NULL, f->exchanges);
	out_i64_or_null(&jo, "handshake_ns", NULL, f->handshake_ns >= 0, f->handshake_ns);
	out_i64(&jo, "held_ns", NULL, f->held_ns);
	out_obj(&jo, "metrics");
	for (int m = 0; m < WM_FLOW_COUNT; m++) {
		struct snap_stats st;

		watchflow_stats(&st, f, m);
		statout_stats(&jo, &st);
	}
	out_obj_end(&jo);
	watchflow_diag(&jo, "diagnosis", f->diag, f->ndiag, NULL);
	for (unsigned int i = 0; i < 4; i++)
		if (f->unknowns & (1u << i))
			unk[nunk++] = unknown_names[i];
	out_strs(&jo, "unknown", unk, nunk);
	out_u64(&jo, "cut_segments", NULL, f->cut_segments);
	if (f->have_timeline)
		timeline_json(&jo, &f->tl);
	out_obj_end(&jo);
}
