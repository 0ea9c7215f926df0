// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text and JSON of the interval reports (series.h): a row's -I line
 * and JSON object, from one place, and the summary's part.
 */
#include <inttypes.h>
#include <stdio.h>

#include "series.h"
#include "timeutil.h"

void series_format_header(const char *metric, char *buf, size_t len)
{
	snprintf(buf, len, "%-15s %9s %9s %7s %7s %6s %9s %9s %9s %9s  (%s, us)",
		 "interval s", "sent", "received", "lost", "loss %", "late",
		 "min", "p50", "p99", "max", metric);
}

/* ns as microseconds with one decimal, or "-". */
static void fmt_us(char *buf, size_t len, bool have, int64_t ns)
{
	if (have)
		snprintf(buf, len, "%.1f", (double)ns / NS_PER_US);
	else
		snprintf(buf, len, "-");
}

void series_format_row(const struct series_row *r, char *buf, size_t len)
{
	char when[32], v[4][24];
	bool have = r->samples > 0;
	double loss = r->sent ? 100.0 * (double)r->lost / (double)r->sent : 0.0;

	snprintf(when, sizeof(when), "%.2f-%.2f", (double)r->t_ns / NS_PER_SEC,
		 (double)(r->t_ns + r->duration_ns) / NS_PER_SEC);
	fmt_us(v[0], sizeof(v[0]), have, r->min);
	fmt_us(v[1], sizeof(v[1]), have, r->p50);
	fmt_us(v[2], sizeof(v[2]), have, r->p99);
	fmt_us(v[3], sizeof(v[3]), have, r->max);
	snprintf(buf, len, "%-15s %9llu %9llu %7llu %7.2f %6llu %9s %9s %9s %9s",
		 when, (unsigned long long)r->sent, (unsigned long long)r->received,
		 (unsigned long long)r->lost, loss, (unsigned long long)r->late,
		 v[0], v[1], v[2], v[3]);
}

void series_row_print(struct out *o, const struct series_row *r)
{
	char line[256];

	if (o->t) {
		series_format_row(r, line, sizeof(line));
		fprintf(o->t, "%s\n", line);
	}
	out_obj(o, NULL);
	out_i64(o, "t_ns", NULL, r->t_ns);
	out_i64(o, "duration_ns", NULL, r->duration_ns);
	out_u64(o, "sent", NULL, r->sent);
	out_u64(o, "received", NULL, r->received);
	out_u64(o, "lost", NULL, r->lost);
	out_u64(o, "late", NULL, r->late);
	out_u64(o, "samples", NULL, r->samples);
	out_i64_or_null(o, "min", NULL, r->samples, r->min);
	out_i64_or_null(o, "p50", NULL, r->samples, r->p50);
	out_i64_or_null(o, "p99", NULL, r->samples, r->p99);
	out_i64_or_null(o, "max", NULL, r->samples, r->max);
	out_obj_end(o);
}

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
