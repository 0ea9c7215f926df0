// SPDX-License-Identifier: GPL-2.0-or-later
/* The breakdown of a breach (breach.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "breach.h"
#include "txfmt.h"
#include "wire.h"

/* The name of a stamp as the log and breakdown show it (txfmt.h). */
static const char *stamp_name(const struct snap_breach_ctx *ctx, enum point p, char *buf,
			      size_t len)
{
	bool local = ctx->emit ? (p == P_T1_WIRE || p == P_T4_WIRE) : true;
	const char *w = (local ? ctx->hw : ctx->peer_hw) ? TXLOG_HW : TXLOG_KN;

	if (!local && ctx->peer_w3 && p == P_T3_WIRE)
		w = ctx->peer_w3;
	else if (!local && ctx->peer_w)
		w = ctx->peer_w;
	return txlog_stamp_name(p, w, buf, len);
}

/* Metrics in the order of the path, then the totals. */
static const enum metric_id path_order[] = {
	M_EMIT_QUEUE, M_EMIT_TX, M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_QUEUE,
	M_REFLECT_TX, M_EMIT_RX,
	M_NETWORK, M_RESPONSE, M_RTT, M_RTT_SW, M_EMIT_ACK,
};

/* A stamp: "    NAME     s.ns" and "NAME": ns. */
static void print_stamp(struct out *o, const char *name, int64_t t)
{
	if (t == TS_NONE)
		return;
	out_text(o, "    %-8s %" PRId64 ".%09" PRId64 "\n", name,
		 (int64_t)(t / NS_PER_SEC), (int64_t)(t % NS_PER_SEC));
	out_i64(o, name, NULL, t);
}

static void print_stamps(struct out *o, const struct snap_breach_ctx *ctx,
			 const struct txrec *rec)
{
	char name[16];

	out_text(o, "  stamps (s.ns):\n");
	out_obj(o, "stamps");
	for (int p = 0; p < P_COUNT; p++)
		print_stamp(o, stamp_name(ctx, p, name, sizeof(name)), txrec_stamp(rec, p));
	/* Over TCP: the ACK stamp, always the kernel's. */
	print_stamp(o, TXLOG_COL_T_ACK, txrec_stamp(rec, P_T_ACK));
	/* The side's SCHED stamp (its packet entered the qdisc), a kernel
	 * stamp known where the wire stamps are kernel ones too. */
	print_stamp(o, ctx->emit ? TXLOG_COL_T1_SCHED : TXLOG_COL_T3_SCHED,
		    txrec_sched(rec, ctx->emit, !ctx->hw));
	out_obj_end(o);
}

/* A probe's transaction: its metrics, no path (the server's side of it
 * is the packets', the summary's diagnosis). */
static void print_probe(struct out *o, const struct snap_breach_ctx *ctx,
			const struct breakdown *bd)
{
	static const enum metric_id order[] = { M_SYN_RTT, M_REQUEST, M_FIRST_BYTE, M_EMIT_ACK };

	out_obj(o, "components");
	out_text(o, "  totals (us):\n");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		/* --syn: the handshake alone; --http: the request's */
		if (!bd->have[order[i]] || (order[i] == M_SYN_RTT) != (ctx->primary == M_SYN_RTT))
			continue;
		out_text(o, "    %-44s", metric_defs[order[i]].label);
		out_us(o, metric_defs[order[i]].name, " %12.3f\n", bd->ns[order[i]]);
	}
	out_obj_end(o);
	out_arr(o, "outside");
	out_arr_end(o);
}

/* The path's steps (and their parts) in path order, then the totals; a
 * step outside the metric that breached marked so, the largest inside
 * it marked where the spike is. JSON: "components", "outside". */
static void print_components(struct out *o, const struct snap_breach_ctx *ctx,
			     const struct breakdown *bd)
{
	const char *name = metric_defs[bd->within].name;
	struct out jo = out_json_only(o);

	out_obj(o, "components");
	for (int pass = 0; pass < 2; pass++) {
		out_text(o, pass ? "  totals (us):\n" : "  path (us):\n");
		for (size_t i = 0; i < sizeof(path_order) / sizeof(path_order[0]); i++) {
			enum metric_id m = path_order[i];
			bool in_path = breakdown_is_step(bd, m, ctx->emit) ||
				       breakdown_is_part(m, ctx->emit);

			if (!bd->have[m] || in_path == pass)
				continue;
			out_text(o, "    %-44s", metric_defs[m].label);
			out_us(o, metric_defs[m].name, " %12.3f", bd->ns[m]);
			if ((int)m == bd->largest)
				out_text(o, "  <-- where the spike is\n");
			else if (in_path && !breakdown_inside(bd, m))
				out_text(o, "  (outside %s)\n", name);
			else
				out_text(o, "\n");
		}
	}
	out_obj_end(o);
	out_arr(&jo, "outside");
	for (size_t i = 0; i < sizeof(path_order) / sizeof(path_order[0]); i++) {
		enum metric_id m = path_order[i];

		if (bd->have[m] && (breakdown_is_step(bd, m, ctx->emit) ||
				    breakdown_is_part(m, ctx->emit)) && !breakdown_inside(bd, m))
			out_str(&jo, NULL, NULL, metric_defs[m].name);
	}
	out_arr_end(&jo);
}

void breach_print(struct out *o, const struct snap_breach_ctx *ctx,
		  const struct snap_breach *b)
{
	const struct breakdown *bd = &b->bd;

	out_str(o, "metric", "\n*** Threshold breach: %s", metric_defs[ctx->metric].name);
	out_u64(o, "seq", " of seq %" PRIu64, b->rec.seq);
	out_us(o, "latency", " is %.3f us", b->latency_ns);
	out_us(o, "threshold", " > threshold %.3f us\n", ctx->threshold_ns);
	print_stamps(o, ctx, &b->rec);
	if (ctx->probe) {
		print_probe(o, ctx, bd);
		return;
	}
	print_components(o, ctx, bd);
	if (bd->largest < 0)
		out_text(o, "  (no step inside %s is known: none marked)\n",
			 metric_defs[bd->within].name);
	if (bd->largest >= 0)
		out_str(o, "largest", NULL, metric_defs[bd->largest].name);
	if (ctx->emit && !bd->have[M_RESPONSE] && ctx->size >= WIRE_PONG_LEN)
		out_text(o, "  (the reflector's TX stamp of this pong never arrived: response and network unknown)\n");
}

/* After the first breach's breakdown: what became of the trace, and the
 * command that reads it. */
static void print_trace_note(FILE *f, const struct snap *s)
{
	const char *dir = s->trace.dir, *j = s->cfg->json_path;
	const char *side = s->emit ? "emit" : "reflect";
	int cpu = s->trace.cpu;

	if (s->trace.err == -EALREADY)
		fprintf(f, "  ftrace: the instance %s was already frozen (tracing_on 0), most likely by the other side's breach: its RANT_BREACH is the one in the trace; this side's breach (%s, CPU %d) is the one above\n",
			dir, side, cpu);
	else if (!s->trace.err)
		fprintf(f, "  ftrace: RANT_BREACH written (%s on CPU %d, trace_clock %s) and %s frozen\n",
			side, cpu, s->trace.clock, dir);
	else
		return;		/* main() says what failed */
	fprintf(f, "  what the kernel did: rant-trace --instance %s%s%s\n", dir,
		j && strcmp(j, "-") ? " --json " : "", j && strcmp(j, "-") ? j : "");
	fprintf(f, "  (or save it first: cp %s/trace breach.trace; rant-trace breach.trace%s%s)\n",
		dir, j && strcmp(j, "-") ? " --json " : "", j && strcmp(j, "-") ? j : "");
}

void breach_report(FILE *f, const struct snap *s)
{
	const char *j = s->cfg->json_path;
	struct out o = { .t = f };
	uint64_t shown = 0;

	if (!s->have_breach_first)
		return;
	breach_print(&o, &s->breach_ctx, &s->breach_first);
	if (s->have_trace)
		print_trace_note(f, s);
	shown++;
	for (unsigned int i = 0; i < s->nbreach && shown < BREACH_TEXT; i++) {
		if (s->breach[i].rec.seq == s->breach_first.rec.seq)
			continue;
		breach_print(&o, &s->breach_ctx, &s->breach[i]);
		shown++;
	}
	if (s->cnt.breaches > shown)
		fprintf(f, "\n%" PRIu64 " more breaches (%" PRIu64 " in all; above: the first, "
			"then the largest), the %u largest kept in the JSON's breaches%s%s%s\n",
			s->cnt.breaches - shown, s->cnt.breaches, s->nbreach,
			j ? " (" : " (-j FILE to keep them", j ? j : "", ", --breach-keep N)");
	fflush(f);
}
