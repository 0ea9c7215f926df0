// SPDX-License-Identifier: GPL-2.0-or-later
/* One metric's statistics, printed (see statout.h). */
#include <inttypes.h>
#include <stdio.h>

#include "statout.h"

const char *statout_human_ns(int64_t ns, char *buf, size_t len)
{
	return statout_human_ns_in(ns, ns, buf, len);
}

const char *statout_human_ns_in(int64_t ns, int64_t scale_ns, char *buf, size_t len)
{
	double a = (double)(scale_ns < 0 ? -scale_ns : scale_ns);
	double v = (double)(ns < 0 ? -ns : ns);

	/* a figure under the unit keeps three decimals (6.8 us: 0.007 ms) */
	if (a < 10e6)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (a < 10e9)
		snprintf(buf, len, v < 1e6 ? "%.3f ms" : "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, v < 1e9 ? "%.3f s" : "%.2f s", (double)ns / 1e9);
	return buf;
}

/* JSON only: the non-empty log-linear buckets, [lo, hi, count] each. */
static void print_hdr(struct out *o, const struct snap_stats *st)
{
	struct out jo = out_json_only(o);

	out_obj(&jo, "hdr");
	out_u64(&jo, "significant_digits", NULL, HIST_SIGNIFICANT_DIGITS);
	out_arr(&jo, "buckets");
	for (size_t i = 0; i < st->nhdr; i++) {
		out_arr(&jo, NULL);
		out_i64(&jo, NULL, NULL, st->hdr[i].lo);
		out_i64(&jo, NULL, NULL, st->hdr[i].hi);
		out_u64(&jo, NULL, NULL, st->hdr[i].count);
		out_arr_end(&jo);
	}
	out_arr_end(&jo);
	out_obj_end(&jo);
}

void statout_stats(struct out *o, const struct snap_stats *st)
{
	out_text(o, "%-13s", st->key);
	out_obj(o, st->key);
	out_u64(o, "samples", " %9" PRIu64, st->st.samples);
	out_us(o, "min", " %10.3f", st->st.min);
	out_u64(o, "min_seq", NULL, st->st.min_seq);
	out_us_dbl(o, "avg", " %10.3f", st->st.avg);
	out_us_dbl(o, "stddev", " %10.3f", st->st.stddev);
	out_obj(o, "percentiles");
	for (size_t i = 0; i < SNAP_NPCT; i++)
		out_us(o, snap_pct_keys[i], " %10.3f", st->pct[i]);
	out_obj_end(o);
	out_us(o, "max", " %10.3f\n", st->st.max);
	out_u64(o, "max_seq", NULL, st->st.max_seq);
	out_str(o, "label", NULL, st->label);
	out_bool(o, "trusted", NULL, !st->untrusted);
	if (st->untrusted)
		out_str(o, "untrusted", NULL, st->untrusted);
	if (st->precision)
		out_str(o, "percentile_precision", NULL, st->precision);
	else
		print_hdr(o, st);
	out_obj_end(o);
}
