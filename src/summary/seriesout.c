// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The interval reports' part of the summary (seriesout.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "seriesout.h"
#include "timeutil.h"

static double loss_of(uint64_t lost, uint64_t sent)
{
	return sent ? 100.0 * (double)lost / (double)sent : 0.0;
}

/*
 * Text: a line "over time" when an interval's median is at least twice
 * the run's, and one when an interval lost 1% or more, twice the run's;
 * the lines themselves were printed during the run.
 */
static void print_over_time(struct out *o, const struct series_snap *ss, int64_t run_p50,
			    double run_loss_pct)
{
	const struct series_row *hi = NULL, *lossy = NULL;
	double loss, worst_loss = 0;

	for (size_t i = 0; i < ss->n; i++) {
		const struct series_row *sr = &ss->rows[i];

		if (sr->samples && (!hi || sr->p50 > hi->p50))
			hi = sr;
		loss = loss_of(sr->lost, sr->sent);
		if (loss > worst_loss) {
			worst_loss = loss;
			lossy = sr;
		}
	}
	if (hi && run_p50 > 0 && hi->p50 >= 2 * run_p50)
		out_text(o, "over time: p50 %.1f us in %.2f-%.2f s, %.1f times the run's %.1f us (-I lines, JSON series)\n",
			 (double)hi->p50 / NS_PER_US, (double)hi->t_ns / NS_PER_SEC,
			 (double)(hi->t_ns + hi->duration_ns) / NS_PER_SEC,
			 (double)hi->p50 / (double)run_p50, (double)run_p50 / NS_PER_US);
	if (lossy && worst_loss >= 1.0 && worst_loss >= 2 * run_loss_pct)
		out_text(o, "over time: loss %.2f%% in %.2f-%.2f s, against %.2f%% over the run\n",
			 worst_loss, (double)lossy->t_ns / NS_PER_SEC,
			 (double)(lossy->t_ns + lossy->duration_ns) / NS_PER_SEC, run_loss_pct);
}

void series_print(struct out *o, const struct series_snap *ss, int64_t run_p50,
		  double run_loss_pct)
{
	struct out jo = out_json_only(o);

	print_over_time(o, ss, run_p50, run_loss_pct);
	if (ss->missed)
		out_text(o, "interval reports: %" PRIu64 " events are not in any interval: the reporter thread fell behind (is it starved on the measuring CPU?)\n",
			 ss->missed);
	if (ss->rows_dropped)
		out_text(o, "interval reports: %" PRIu64 " intervals printed but not kept for the JSON (out of memory, or the first %u kept: SERIES_ROWS_MAX)\n",
			 ss->rows_dropped, SERIES_ROWS_MAX);
	out_u64(o, "series_missed", NULL, ss->missed);
	out_arr(&jo, "series");
	for (size_t i = 0; i < ss->n; i++)
		series_row_print(&jo, &ss->rows[i]);	/* the lines were printed during the run */
	out_arr_end(&jo);
}
