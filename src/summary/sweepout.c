// SPDX-License-Identifier: GPL-2.0-or-later
/* A sweep's part of the summary (see sweepout.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "statout.h"
#include "sweepout.h"

/* One regime of a sweep (sweep.h): its sizes, its line or its level. */
static void print_regime(struct out *o, const struct snap *s, const struct sweep_regime *g)
{
	const struct sweep_fit *f = &g->fit;
	char a[32];

	out_obj(o, NULL);
	out_u64(o, "from", "  %u", s->fitted_size[g->first]);
	out_u64(o, "to", "-%u bytes: ", s->fitted_size[g->last]);
	if (g->sloped) {
		out_us_dbl(o, "offset_ns", "%.3f us", f->offset_ns);
		out_dbl(o, "ns_per_byte", " + %.4f ns/byte", f->ns_per_byte);
		out_dbl(o, "bandwidth_bps", " (%.3g Gbit/s)", f->bandwidth_bps / 1e9);
		out_null(o, "level_ns");
	} else {
		out_text(o, "%s%s", statout_human_ns(g->level_ns, a, sizeof(a)),
			 g->first == g->last ? " (one size)" : " flat (no cost per byte)");
		out_null(o, "offset_ns");
		out_null(o, "ns_per_byte");
		out_null(o, "bandwidth_bps");
		out_i64(o, "level_ns", NULL, g->level_ns);
	}
	out_str(o, "then", g->ends == SWEEP_END ? "\n" : "; then %s\n",
		g->ends == SWEEP_END ? "" : sweep_break_name(g->ends));
	out_obj_end(o);
}

/* The line through the medians when one holds, else where it breaks. */
static void print_sweep_fit(struct out *o, const struct snap *s)
{
	bool one = s->nregimes == 1 && s->regime[0].sloped;

	if (!s->have_fit) {
		out_text(o, "  fit: needs the medians of two sizes or more\n");
		out_null(o, "fit");
	} else if (!one) {
		out_text(o, "  fit of p50: no one line holds (%s), by regime:\n",
			 s->nregimes > 1 ? "the sizes break" : "its slope is not positive");
		out_null(o, "fit");
	} else {
		out_text(o, "  fit of p50: %.3f us + %.4f ns/byte (%.3g Gbit/s)\n",
			 s->fit.offset_ns / NS_PER_US, s->fit.ns_per_byte,
			 s->fit.bandwidth_bps / 1e9);
		out_obj(o, "fit");
		out_dbl(o, "offset_ns", NULL, s->fit.offset_ns);
		out_dbl(o, "ns_per_byte", NULL, s->fit.ns_per_byte);
		out_dbl(o, "bandwidth_bps", NULL, s->fit.bandwidth_bps);
		out_obj_end(o);
	}
	if (s->frag_above)
		out_u64(o, "fragments_above", NULL, s->frag_above);
	else
		out_null(o, "fragments_above");
	if (one || !s->have_fit) {
		struct out jo = out_json_only(o);

		out_arr(&jo, "regimes");
		for (unsigned int i = 0; i < s->nregimes; i++)
			print_regime(&jo, s, &s->regime[i]);
		out_arr_end(&jo);
		return;
	}
	out_arr(o, "regimes");
	for (unsigned int i = 0; i < s->nregimes; i++)
		print_regime(o, s, &s->regime[i]);
	out_arr_end(o);
}

/* Text: the p50 of every metric the sweep has, a column each, a row a
 * size (the 2003 report's one-way latency against size), and the clocks'
 * verdict on those that cross them. The JSON has them in "sizes". */
static void print_sweep_metrics(struct out *o, const struct snap *s)
{
	int w[M_COUNT], n = 0;

	for (int m = 0; m < M_COUNT; m++) {
		w[m] = (int)strlen(metric_defs[m].name) + 1;
		w[m] = w[m] < 10 ? 10 : w[m];
		n += s->size_shown[m] && m != M_RTT;
	}
	if (!n)
		return;
	out_text(o, "\nSize sweep: p50 of each metric against message size, us\n  %8s", "bytes");
	for (int m = 0; m < M_COUNT; m++)
		if (s->size_shown[m])
			out_text(o, "%*s", w[m], metric_defs[m].name);
	for (unsigned int i = 0; i < s->nsizes; i++) {
		const struct snap_size *z = &s->sizes[i];

		out_text(o, "\n  %8u", z->size);
		for (int m = 0; m < M_COUNT; m++) {
			const struct snap_stats *st = m == M_RTT ? &z->rtt : &z->m[m];

			if (!s->size_shown[m])
				continue;
			if (st->st.samples)
				out_text(o, "%*.3f", w[m], (double)st->pct[0] / NS_PER_US);
			else
				out_text(o, "%*s", w[m], "-");
		}
	}
	out_text(o, "\n");
	for (int m = 0; m < M_COUNT; m++)
		for (unsigned int i = 0; i < s->nsizes; i++)
			if (s->sizes[i].have[m] && s->sizes[i].m[m].untrusted) {
				out_text(o, "  %s untrusted: %s\n", metric_defs[m].name,
					 s->sizes[i].m[m].untrusted);
				break;
			}
}

void sweepout_print(struct out *o, const struct snap *s)
{
	struct out jo = out_json_only(o);

	if (!s->nsizes)
		return;
	out_text(o, "\nSize sweep: round trip (rtt) against message size, us\n");
	out_text(o, "  %8s %9s %7s %10s %10s %10s\n", "bytes", "samples", "lost", "min", "p50", "p99");
	out_arr(o, "sizes");
	for (unsigned int i = 0; i < s->nsizes; i++) {
		const struct snap_size *z = &s->sizes[i];

		out_obj(&jo, NULL);
		out_u64(&jo, "size", NULL, z->size);
		out_u64(&jo, "sent", NULL, z->sent);
		out_u64(&jo, "lost", NULL, z->lost);
		out_bool(&jo, "delayed_ack", NULL, z->delack);
		out_obj(&jo, "metrics");
		statout_stats(&jo, &z->rtt);
		for (int m = 0; m < M_COUNT; m++)
			if (z->have[m])
				statout_stats(&jo, &z->m[m]);
		out_obj_end(&jo);
		out_obj_end(&jo);
		if (!z->rtt.st.samples)
			out_text(o, "  %8u %9d %7" PRIu64 "   (not measured)\n", z->size, 0, z->lost);
		else
			out_text(o, "  %8u %9" PRIu64 " %7" PRIu64 " %10.3f %10.3f %10.3f%s\n",
				 z->size, z->rtt.st.samples, z->lost,
				 (double)z->rtt.st.min / NS_PER_US,
				 (double)z->rtt.pct[0] / NS_PER_US,
				 (double)z->rtt.pct[SNAP_P99] / NS_PER_US,
				 z->delack ? "  delayed ACK (Nagle)" : "");
	}
	out_arr_end(o);
	print_sweep_fit(o, s);
	print_sweep_metrics(o, s);
}
