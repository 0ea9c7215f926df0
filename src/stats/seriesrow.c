// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An interval's -I line and JSON object (seriesrow.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "seriesrow.h"
#include "timeutil.h"

void series_format_header(const char *metric, char *buf, size_t len)
{
	snprintf(buf, len, "%-15s %9s %9s %7s %7s %7s %6s %9s %9s %9s %9s  (%s, us)",
		 "interval s", "sent", "received", "lost", "flight", "loss %", "late",
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
	snprintf(buf, len, "%-15s %9llu %9llu %7llu %7llu %7.2f %6llu %9s %9s %9s %9s",
		 when, (unsigned long long)r->sent, (unsigned long long)r->received,
		 (unsigned long long)r->lost, (unsigned long long)r->in_flight, loss,
		 (unsigned long long)r->late, v[0], v[1], v[2], v[3]);
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
	out_u64(o, "in_flight", NULL, r->in_flight);
	out_u64(o, "late", NULL, r->late);
	out_dbl(o, "received_per_second", NULL,
		r->duration_ns > 0 ? (double)r->received * 1e9 / (double)r->duration_ns : 0);
	out_u64(o, "samples", NULL, r->samples);
	out_i64_or_null(o, "min", NULL, r->samples, r->min);
	out_i64_or_null(o, "p50", NULL, r->samples, r->p50);
	out_i64_or_null(o, "p99", NULL, r->samples, r->p99);
	out_i64_or_null(o, "max", NULL, r->samples, r->max);
	out_obj_end(o);
}
