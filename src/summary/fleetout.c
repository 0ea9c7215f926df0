// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's part of the summary (see fleetout.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fleetout.h"
#include "fleetsnap.h"
#include "icmpwire.h"
#include "statout.h"

static void counts(struct out *jo, const struct fleet_counts *c)
{
	out_obj(jo, "counts");
	out_u64(jo, "sent", NULL, c->sent);
	out_u64(jo, "received", NULL, c->received);
	out_u64(jo, "lost", NULL, c->lost);
	out_u64(jo, "late", NULL, c->late);
	out_u64(jo, "duplicate", NULL, c->duplicate);
	out_u64(jo, "warmup", NULL, c->warmup);
	out_u64(jo, "missing_tx_ts", NULL, c->missing_tx_ts);
	out_u64(jo, "missing_rx_ts", NULL, c->missing_rx_ts);
	out_u64(jo, "send_errors", NULL, c->send_errors);
	out_u64(jo, "breaches", NULL, c->breaches);
	out_u64(jo, "missed_slots", NULL, c->missed_slots);
	out_u64(jo, "refused", NULL, c->refused);
	for (int k = 0; k < ICMPWIRE_E_N; k++)
		out_u64(jo, icmpwire_err_name((enum icmpwire_err)k), NULL, c->icmp_errors[k]);
	out_obj_end(jo);
}

static uint64_t errors(const struct fleet_counts *c)
{
	uint64_t n = 0;

	for (int k = 0; k < ICMPWIRE_E_N; k++)
		n += c->icmp_errors[k];
	return n;
}

static void metrics(struct out *jo, const struct snap_stats *rtt)
{
	out_obj(jo, "metrics");
	statout_stats(jo, rtt);
	out_obj_end(jo);
}

static const char *path_key(const struct snap_fleet *f)
{
	return f->flow_label ? "flow_label" : "source_port";
}

static void json_path(struct out *jo, const struct snap_fleet *f, const struct snap_path *p)
{
	out_obj(jo, NULL);
	out_u64(jo, path_key(f), NULL, p->id);
	counts(jo, &p->cnt);
	metrics(jo, &p->rtt);
	out_arr(jo, "named");
	for (int k = PATHDIAG_LATENCY; k <= PATHDIAG_LOSS; k++)
		if (p->named & (1u << k))
			out_str(jo, NULL, NULL, pathdiag_kind_name(k));
	out_arr_end(jo);
	out_obj_end(jo);
}

static void json_target(struct out *jo, const struct snap_fleet *f, const struct snap_target *t)
{
	out_obj(jo, NULL);
	out_str(jo, "address", NULL, t->addr);
	out_u64(jo, "port", NULL, t->port);
	out_str(jo, "peer", NULL, t->name);
	out_str(jo, "name", NULL, t->label);
	out_str(jo, "kind", NULL, t->kind);
	out_i64(jo, "interval_ns", NULL, t->interval_ns);
	out_u64(jo, "dscp", NULL, (uint64_t)t->dscp);
	out_u64(jo, "line", NULL, t->line);
	out_u64(jo, "session", NULL, t->session);
	out_i64(jo, "since_ns", NULL, t->added_ns);
	counts(jo, &t->cnt);
	metrics(jo, &t->rtt);
	if (t->path) {
		out_arr(jo, "paths");
		for (unsigned int p = 0; p < f->npaths; p++)
			json_path(jo, f, &t->path[p]);
		out_arr_end(jo);
	}
	out_obj_end(jo);
}

/* One finding: the text's line, the JSON's object. */
static void finding(struct out *o, const struct snap_fleet *f, const struct snap_finding *d)
{
	const struct snap_target *t = &f->t[d->target];
	struct out jo = out_json_only(o);
	char a[32], b[32];

	out_obj(&jo, NULL);
	out_str(o, "kind", "  %-13s", pathdiag_kind_name(d->d.kind));
	out_str(o, "target", " %s", t->label);
	out_text(o, ", %s", f->flow_label ? "flow labels" : "source ports");
	out_arr(&jo, f->flow_label ? "flow_labels" : "source_ports");
	for (unsigned int p = 0; p < f->npaths; p++)
		if (d->d.paths & (1ULL << p)) {
			out_text(o, " %u", t->path[p].id);
			out_u64(&jo, NULL, NULL, t->path[p].id);
		}
	out_arr_end(&jo);
	if (d->d.kind == PATHDIAG_LATENCY) {
		out_text(o, ": p50 up to %s, the target's reference %s (the lower quartile of its paths' p50s)\n",
			 statout_human_ns(d->d.worst_ns, a, sizeof(a)),
			 statout_human_ns(d->d.ref_ns, b, sizeof(b)));
		out_i64(&jo, "worst_p50_ns", NULL, d->d.worst_ns);
		out_i64(&jo, "reference_p50_ns", NULL, d->d.ref_ns);
	} else {
		out_text(o, ": loss up to %.2f%%, the other paths' %.2f%%\n", 100 * d->d.worst_loss,
			 100 * d->d.ref_loss);
		out_dbl(&jo, "worst_loss", NULL, d->d.worst_loss);
		out_dbl(&jo, "reference_loss", NULL, d->d.ref_loss);
	}
	out_str(o, "fix", "                fix: %s\n", pathdiag_fix(d->d.kind));
	out_obj_end(&jo);
}

static void row(struct out *to, const char *what, const struct fleet_counts *c,
		const struct snap_stats *st, const char *note)
{
	char p50[32], p99[32], max[32];
	double loss = c->sent ? 100.0 * (double)c->lost / (double)c->sent : 0;

	out_text(to, "%-30s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6.2f %10s %10s %10s%s\n",
		 what, c->sent, c->received, c->lost, errors(c), loss,
		 st->st.samples ? statout_human_ns(st->pct[0], p50, sizeof(p50)) : "-",
		 st->st.samples ? statout_human_ns(st->pct[SNAP_P99], p99, sizeof(p99)) : "-",
		 st->st.samples ? statout_human_ns(st->st.max, max, sizeof(max)) : "-", note);
}

/* A target's note: the ICMP errors that answered it, by kind (where its
 * pings went instead of a pong), else nothing answered, else none. */
static const char *target_note(const struct fleet_counts *c, char *buf, size_t len)
{
	size_t n = 0;

	if (!errors(c))
		return c->sent && !c->received ? "  <-- no pong" : "";
	n += (size_t)snprintf(buf, len, "  <-- ICMP errors:");
	for (int k = 0; k < ICMPWIRE_E_N && n < len; k++)
		if (c->icmp_errors[k])
			n += (size_t)snprintf(buf + n, len - n, " %s %" PRIu64,
					      icmpwire_err_name((enum icmpwire_err)k),
					      c->icmp_errors[k]);
	return buf;
}

static bool has_named(const struct snap_fleet *f, const struct snap_target *t)
{
	for (unsigned int p = 0; t->path && p < f->npaths; p++)
		if (t->path[p].named)
			return true;
	return false;
}

/* The table: the worst targets, each with its paths. */
static void table(struct out *o, const struct snap_fleet *f)
{
	struct out to = out_text_only(o);
	size_t shown = 0;
	char what[64], note[128];

	out_text(&to, "\ntargets: %zu measured, worst first%s\n", f->n,
		 f->n > FLEETOUT_TEXT_TARGETS ? " (the worst and those with a path named; the JSON's targets has every one)" : "");
	out_text(&to, "%-30s %8s %8s %6s %6s %6s %10s %10s %10s\n", "target / path", "sent",
		 "received", "lost", "errors", "loss%", "p50", "p99", "max");
	for (size_t i = 0; i < f->n; i++) {
		const struct snap_target *t = &f->t[f->order[i]];

		if (shown >= FLEETOUT_TEXT_TARGETS && !has_named(f, t))
			continue;
		shown++;
		row(&to, t->label, &t->cnt, &t->rtt, target_note(&t->cnt, note, sizeof(note)));
		for (unsigned int p = 0; t->path && p < f->npaths; p++) {
			const struct snap_path *sp = &t->path[p];

			snprintf(what, sizeof(what), "  %s %u", f->flow_label ? "label" : "port",
				 sp->id);
			row(&to, what, &sp->cnt, &sp->rtt, sp->named & (1u << PATHDIAG_LATENCY) ?
			    "  <-- path_latency" : sp->named ? "  <-- path_loss" : "");
		}
	}
	if (shown < f->n)
		out_text(&to, "(%zu more)\n", f->n - shown);
}

/*
 * The sockets: how many a port, their buffer, and each one's drops
 * (text: by port; JSON: fleet.sockets[]).
 */
static void sockets(struct out *o, const struct snap_fleet *f)
{
	struct out jo = out_json_only(o), to = out_text_only(o);

	out_u64(&jo, "sockets_per_port", NULL, f->share);
	out_u64(&jo, "rcvbuf", NULL, (uint64_t)f->rcvbuf);
	out_u64(&jo, "rcvbuf_asked", NULL, (uint64_t)f->rcvbuf_asked);
	out_text(&to, "\nsockets: %u a source port%s, receive buffer %d KiB each (%d asked); datagrams the kernel dropped at each:",
		 f->share, f->share > 1 ? " (SO_REUSEPORT)" : "", f->rcvbuf / 1024,
		 f->rcvbuf_asked / 1024);
	out_arr(&jo, "sockets");
	for (unsigned int i = 0; i < f->nsk; i++) {
		if (i % f->share == 0)
			out_text(&to, "%s port %u:", i ? "," : "", f->sock[i].port);
		out_text(&to, " %" PRIu64, f->sock[i].drops);
		out_obj(&jo, NULL);
		out_u64(&jo, "port", NULL, f->sock[i].port);
		out_u64(&jo, "drops", NULL, f->sock[i].drops);
		out_obj_end(&jo);
	}
	out_arr_end(&jo);
	out_text(&to, "\n");
}

void fleetout_print(struct out *o, const struct snap *s)
{
	const struct snap_fleet *f = s->fleet;
	struct out jo = out_json_only(o);

	if (!f)
		return;
	out_obj(&jo, "fleet");
	out_u64(&jo, "targets", NULL, f->n);
	out_u64(&jo, "paths", NULL, f->npaths);
	out_u64(&jo, "slots", NULL, f->cap);
	out_u64(&jo, "bytes_per_target", NULL, f->target_bytes);
	sockets(o, f);
	out_obj_end(&jo);
	out_arr(&jo, "targets");
	for (size_t i = 0; i < f->n; i++)
		json_target(&jo, f, &f->t[f->order[i]]);
	out_arr_end(&jo);
	out_text(o, "\ndiagnosis: %s\n", f->nfind ? "paths that stand out from their target's others" :
		 f->npaths > 1 ? "no path stands out from its target's others" :
		 "(one path a target: --paths N compares N)");
	out_arr(&jo, "diagnosis");
	for (size_t i = 0; i < f->nfind; i++)
		finding(o, f, &f->find[i]);
	out_arr_end(&jo);
	table(o, f);
}
