// SPDX-License-Identifier: GPL-2.0-or-later
/* Jitter and loss by direction, printed (see pathout.h). */
#include <inttypes.h>

#include "pathout.h"

/* ns as us, as the tables print them (three decimals). */
static double us(int64_t ns)
{
	return (double)ns / 1e3;
}

static void print_way(struct out *o, enum jitter_way w, const struct jitter_stats *j)
{
	out_obj(o, jitter_way_name(w));
	out_text(o, "  %-5s", jitter_way_name(w));
	out_u64(o, "pairs", " pairs %9" PRIu64, j->pairs);
	out_i64(o, "ipdv_abs_p50_ns", NULL, j->abs_p50);
	out_i64(o, "ipdv_abs_p99_ns", NULL, j->abs_p99);
	out_i64(o, "ipdv_abs_max_ns", NULL, j->abs_max);
	out_i64(o, "ipdv_min_ns", NULL, j->min);
	out_i64(o, "ipdv_max_ns", NULL, j->max);
	out_dbl(o, "rfc3550_ns", NULL, j->rfc3550);
	out_text(o, "  |IPDV| p50 %10.3f  p99 %10.3f  max %10.3f  IPDV %+.3f to %+.3f  RFC 3550 %10.3f\n",
		 us(j->abs_p50), us(j->abs_p99), us(j->abs_max), us(j->min), us(j->max),
		 j->rfc3550 / 1e3);
	out_obj_end(o);
}

/*
 * Jitter: a line a way that has pairs (fwd and back need the reflector's
 * stamps; back its T3 too), us in the text, ns in the JSON.
 */
static void print_jitter(struct out *o, const struct snap *s)
{
	bool any = false;

	for (int w = 0; w < JITTER_NWAYS; w++)
		any |= s->jitter[w].pairs > 0;
	if (!any) {
		out_null(o, "jitter");
		return;
	}
	out_text(o, "\njitter, us: IPDV (RFC 5481): a packet's delay less the one before's, of consecutive\n"
		 "packets both measured; RFC 3550's J: |IPDV| smoothed by 1/16. fwd T2 - T1, back T4 - T3\n"
		 "(the hosts' clock offset cancels):\n");
	out_obj(o, "jitter");
	for (int w = 0; w < JITTER_NWAYS; w++)
		if (s->jitter[w].pairs)
			print_way(o, (enum jitter_way)w, &s->jitter[w]);
	out_obj_end(o);
}

void pathout_print(struct out *o, const struct snap *s)
{
	if (!s->emit)
		return;
	if (s->have_jitter)
		print_jitter(o, s);
	if (s->cfg->stamp && s->kind == SNAP_FINAL) {
		out_text(o, "\n");
		stamppeer_loss_print(o, &s->stamp_peer, s->cnt.lost, s->cnt.late);
	}
}
