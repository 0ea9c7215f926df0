// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The summary's "clock:" block and the JSON's "clock" object, from a
 * clock report (clock.h: clock_report() fills it; clockout.h), in one
 * pass of out.h's printers.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clockout.h"
#include "out.h"
#include "timeutil.h"

/* Where the sampler thread read the PHC: text " (during the run by a
 * thread on CPU 1,2)" and JSON "sampler_cpus": [1, 2] (empty without one). */
static void print_sampler_cpus(struct out *o, uint64_t cpus)
{
	const char *sep = " (during the run by a thread on CPU ";

	out_arr(o, "sampler_cpus");
	for (int i = 0; i < 64; i++) {
		if (!(cpus & (1ULL << i)))
			continue;
		out_text(o, "%s", sep);
		out_i64(o, NULL, "%" PRId64, i);
		sep = ",";
	}
	if (cpus)
		out_text(o, ")");
	out_arr_end(o);
}

/* The NIC clock against the system clock: one text line, the phc_* fields. */
static void print_phc(struct out *o, const struct clock_report *cr)
{
	const struct phc_summary *s = &cr->phc_sum;
	bool have = cr->have_phc_samples;

	if (!cr->hw)
		out_text(o, "  PHC: none: the wire stamps are the kernel's, in the system clock (nothing to compare)\n");
	else if (!have)
		out_text(o, "  PHC: not compared: %s\n", cr->phc_error);
	out_str_or_null(o, "phc", NULL, cr->have_phc ? cr->phc : NULL);
	out_i64_or_null(o, "phc_index", NULL, cr->have_ts_info, cr->ts_info.phc_index);
	out_str_or_null(o, "phc_method", NULL, have ? phc_method_name(s->method) : NULL);
	if (have)
		out_text(o, "  PHC %s (%s): NIC - system clock", cr->phc, phc_method_name(s->method));
	out_us_or_null(o, "phc_offset_ns", " %+.3f us at start", have, s->offset_start_ns);
	out_us_or_null(o, "phc_offset_end_ns", ", %+.3f us at end", have, s->offset_end_ns);
	out_us_or_null(o, "phc_offset_max_abs_ns", " (|max| %.3f us)", have,
		       s->offset_max_abs_ns);
	out_dbl_or_null(o, "phc_drift_ppb", ", drift %+.1f ppb", have && s->drift_valid, s->drift_ppb);
	if (have && s->drift_valid)
		out_text(o, " over %.1f s", cr->phc_span_s);
	if (have)
		out_text(o, ", %u readings", s->samples);
	print_sampler_cpus(o, cr->sampler_cpus);
	if (have)
		out_text(o, "\n");
	out_u64(o, "phc_samples", NULL, s->samples);
	out_u64(o, "phc_read_errors", NULL, cr->phc_read_errors);
	if (cr->phc_error[0])
		out_str(o, "phc_error", NULL, cr->phc_error);
	out_bool(o, "trusted", NULL, cr->local_trusted);
}

/* Between the hosts (emitter): theta's median and drift. */
static void print_peer(struct out *o, const struct clock_report *cr)
{
	bool have = cr->peer_samples > 0 && !cr->theta_why[0], text = cr->emit && have;

	if (cr->emit && cr->one_host)
		out_text(o, "  peer: the reflector is on this host (%s): %s\n", cr->host_same ?
			 "its kernel's boot id is this one's" : "its address is local", cr->hw ?
			 "its NIC clock may still be another port's" :
			 "the same clock stamps both ends, so one-way delays need no offset");
	else if (cr->emit && cr->host_tags)
		out_text(o, "  peer: the reflector runs on another kernel (its boot id differs)\n");
	out_bool(o, "one_host", NULL, cr->one_host);
	if (cr->emit)
		out_str(o, "one_host_by", NULL, cr->host_same ? "boot_id" :
			cr->one_host ? "address" : cr->host_tags ? "other_boot_id" : "unknown");
	if (cr->emit && cr->theta_why[0])
		out_text(o, "  peer: theta unusable, not an offset: %s\n", cr->theta_why);
	if (cr->theta_why[0])
		out_str(o, "theta_unusable", NULL, cr->theta_why);
	else
		out_null(o, "theta_unusable");
	if (text)
		out_text(o, "  peer: reflector's wire clock - emitter's (theta, if the paths are symmetric)");
	else if (cr->emit && !cr->peer_samples && !cr->theta_why[0])
		out_text(o, "  peer: no transaction carried all four wire stamps (the reflector's travel in pongs of 72 bytes or more)\n");
	out_us_or_null(o, "peer_offset_ns", text ? " %+.3f us" : NULL, have, cr->peer_offset_ns);
	if (text)
		out_text(o, ", median of %" PRIu64, cr->peer_samples);
	out_us_or_null(o, "peer_offset_min_ns", text ? " (%+.3f" : NULL, have, cr->peer_min_ns);
	out_us_or_null(o, "peer_offset_max_ns", text ? " to %+.3f)" : NULL, have, cr->peer_max_ns);
	out_dbl_or_null(o, "peer_drift_ppb", text ? ", drift %+.1f ppb" : NULL,
			have && cr->peer_drift_valid, cr->peer_drift_ppb);
	if (text && cr->peer_drift_valid)
		out_text(o, " over %.1f s", cr->peer_span_s);
	else if (text)
		out_text(o, ", no drift (%.2f s of stamps, under the %.0f s a drift needs)",
			 cr->peer_span_s, CLOCK_DRIFT_MIN_S);
	out_dbl_or_null(o, "peer_drift_span_s", NULL, have, cr->peer_span_s);
	if (cr->emit)
		out_dbl(o, "peer_drift_min_span_s", NULL, CLOCK_DRIFT_MIN_S);
	if (text)
		out_text(o, "\n");
	out_u64(o, "peer_samples", NULL, cr->peer_samples);
	out_u64(o, "peer_drift_bins", NULL, cr->peer_fitted);
	if (!cr->emit)
		return;
	out_u64(o, "pongs", NULL, cr->pongs);
	out_u64(o, "pongs_clock_bad", NULL, cr->pongs_clock_bad);
	out_bool(o, "peer_trusted", NULL, cr->peer_trusted);
	out_bool(o, "one_way_trusted", NULL, cr->hosts_trusted);
}

void clock_print(struct out *o, const struct clock_report *cr, bool local_hw,
		 const struct hwts *h)
{
	out_text(o, "\nclock:\n");
	out_obj(o, "clock");
	out_str(o, "local_source", NULL, local_hw ? "hardware" : "kernel");
	out_i64(o, "max_offset_ns", NULL, cr->max_offset_ns);
	print_phc(o, cr);
	print_peer(o, cr);
	out_arr(o, "warnings");
	for (unsigned int i = 0; i < cr->nwarn; i++)
		out_str(o, NULL, "  warning: %s\n", cr->warn[i]);
	out_arr_end(o);
	hwts_print(o, h);
	out_obj_end(o);
}
