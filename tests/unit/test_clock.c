// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clock.c: theta from the four wire stamps (its fit: test_fit.c), the
 * judgement (trusted components, warnings) and which metrics it
 * marks; then, under the simulated PHC NIC (tests/sim/libsimnic.so, on
 * "lo"), the sampler thread itself: readings at start, every interval and
 * at the end, the drift found, the bound applied.
 *
 * As test_phc.c, the program re-executes itself under the shim for the
 * last part ("--sim RUN FAILED" passes the TAP count on).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "simexec.h"
#include "tap.h"
#include "timeutil.h"
#include "wire.h"

#define SIM_OFFSET_NS 250000
#define SIM_DRIFT_PPB 50000
#define BASE (1700000000LL * NS_PER_SEC)

static void rec_of(struct txrec *r, int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
	txrec_clear(r);
	r->seq = 1;
	r->t1_wire = t1;
	r->t2_wire = t2;
	txrec_set_t3_wire(r, t3);
	txrec_set_t4_wire(r, t4);
}

static void test_theta(void)
{
	struct txrec r;
	int64_t th = 0;

	/* 10 us each way, reflector 3 ms ahead: T2 = T1 + 10 us + 3 ms */
	rec_of(&r, BASE, BASE + 3010000, BASE + 3012000, BASE + 22000);
	ok(clock_theta(&r, &th), "theta of a full record");
	is_i64(th, 3000000, "theta = ((T2 - T1) - (T4 - T3)) / 2 = 3 ms");
	/* reflector behind, asymmetric path: fwd 14 us, back 6 us, offset -500 */
	rec_of(&r, BASE, BASE + 14000 - 500, BASE + 20000 - 500, BASE + 26000);
	clock_theta(&r, &th);
	is_i64(th, -500 + 4000, "asymmetry shows as offset: -500 + (14000 - 6000) / 2");
	rec_of(&r, BASE, BASE + 1000, TS_NONE, BASE + 3000);
	ok(!clock_theta(&r, &th), "no theta without T3 (the follow-up never came)");
	rec_of(&r, BASE, TS_NONE, BASE + 2000, BASE + 3000);
	ok(!clock_theta(&r, &th), "no theta without T2");
	/* T3 is kept as an offset from T2 (record.h): at the top of int64 */
	rec_of(&r, BASE, INT64_MAX, INT64_MAX - 1000, BASE + 3000);
	/* (T2 - T1) - (T4 - T3) is about 2 MAX: it saturates at INT64_MAX */
	ok(clock_theta(&r, &th) && th == INT64_MAX / 2, "hostile stamps saturate, never overflow");
}

/* A report of an emitter with a PHC whose readings were all within 200 ns. */
static void good_report(struct clock_report *cr)
{
	memset(cr, 0, sizeof(*cr));
	snprintf(cr->iface, sizeof(cr->iface), "eth3");
	cr->emit = true;
	cr->hw = true;
	cr->max_offset_ns = 1000;
	cr->interval_ns = NS_PER_SEC;
	cr->have_phc = true;
	snprintf(cr->phc, sizeof(cr->phc), "/dev/ptp2");
	cr->have_phc_samples = true;
	cr->phc_sum = (struct phc_summary){
		.samples = 11, .fitted = 11, .method = PHC_METHOD_PRECISE,
		.offset_start_ns = 120, .offset_end_ns = -80, .offset_max_abs_ns = 200,
		.drift_ppb = -20, .drift_valid = true,
	};
	cr->phc_span_s = 10;
	cr->peer_samples = 1000;
	cr->peer_offset_ns = 300;
	cr->peer_drift_valid = true;
	cr->peer_drift_ppb = 5;
	cr->peer_span_s = 10;
	cr->pongs = 1100;
}

static bool any_warning(const struct clock_report *cr, const char *needle)
{
	for (unsigned int i = 0; i < cr->nwarn; i++)
		if (strstr(cr->warn[i], needle))
			return true;
	return false;
}

static void test_judge_phc(void)
{
	struct clock_report cr;

	good_report(&cr);
	clock_judge(&cr);
	ok(cr.local_trusted && cr.peer_trusted && cr.hosts_trusted && cr.nwarn == 0,
	   "in step: trusted, no warning (%u)", cr.nwarn);

	good_report(&cr);
	cr.phc_sum.offset_max_abs_ns = 1001;
	clock_judge(&cr);
	ok(!cr.local_trusted && cr.nwarn == 1, "|offset| 1001 > 1000: untrusted, one warning");
	is_str(cr.local_why, "PHC and system clock differ by up to 1.001 us", "the reason");
	ok(any_warning(&cr, "emit_tx and emit_rx are untrusted") &&
	   any_warning(&cr, "`config.sh eth3 --ip A --remote-ip B --cpu N --irq-cpu M` starts it") &&
	   any_warning(&cr, "phc2sys -s eth3 -c CLOCK_REALTIME"),
	   "the warning names the components and the fix: %s", cr.warn[0]);

	good_report(&cr);
	cr.phc_sum.drift_ppb = 101;	/* 1010 ns over 10 s */
	clock_judge(&cr);
	ok(!cr.local_trusted && any_warning(&cr, "drifts +101 ppb from the system clock: +1.010 us"),
	   "101 ppb over 10 s carries it past 1000 ns: %s", cr.nwarn ? cr.warn[0] : "-");
	good_report(&cr);
	cr.phc_sum.drift_ppb = -99;
	clock_judge(&cr);
	ok(cr.local_trusted && cr.nwarn == 0, "-99 ppb over 10 s stays within");

	good_report(&cr);
	cr.have_phc_samples = false;
	snprintf(cr.phc_error, sizeof(cr.phc_error), "cannot open /dev/ptp2: Permission denied");
	clock_judge(&cr);
	ok(!cr.local_trusted && any_warning(&cr, "cannot compare the NIC clock with the system clock: cannot open /dev/ptp2"),
	   "not read: untrusted, said why");

	good_report(&cr);
	cr.hw = false;
	cr.have_phc = cr.have_phc_samples = false;
	clock_judge(&cr);
	ok(cr.local_trusted && cr.nwarn == 0, "kernel stamps: one clock, nothing to judge");

	good_report(&cr);
	cr.emit = false;
	cr.ack = false;
	cr.phc_sum.offset_max_abs_ns = 5000;
	clock_judge(&cr);
	ok(!cr.local_trusted && any_warning(&cr, "reflect_rx and reflect_tx are untrusted"),
	   "reflector: its own components named");

	good_report(&cr);
	cr.ack = true;
	cr.phc_sum.offset_max_abs_ns = 5000;
	clock_judge(&cr);
	ok(any_warning(&cr, "emit_tx, emit_rx and emit_ack are untrusted"), "TCP: emit_ack too");

	good_report(&cr);
	cr.phc_sum.samples = 3;		/* of about 11 */
	clock_judge(&cr);
	ok(cr.local_trusted && any_warning(&cr, "only 3 PHC readings in 10.0 s"),
	   "a starved sampler is reported, not distrusted");
	good_report(&cr);
	cr.phc_read_errors = 2;
	clock_judge(&cr);
	ok(any_warning(&cr, "2 of 13 PHC readings of /dev/ptp2 failed"), "read errors counted");
}

static void test_judge_hosts(void)
{
	struct clock_report cr;

	good_report(&cr);
	cr.pongs_clock_bad = 7;
	clock_judge(&cr);
	ok(!cr.peer_trusted && cr.local_trusted &&
	   any_warning(&cr, "the reflector found its PHC and system clock apart"),
	   "flagged pongs: the reflector's components untrusted");

	good_report(&cr);
	cr.one_way = true;
	clock_judge(&cr);
	ok(cr.hosts_trusted && cr.nwarn == 0, "--one-way, theta 300 ns: trusted");
	cr.peer_offset_ns = -1500;
	clock_judge(&cr);
	ok(!cr.hosts_trusted && any_warning(&cr, "--one-way: the reflector's clock is -1.500 us"),
	   "--one-way, theta -1500 ns: warned");
	is_str(cr.hosts_why, "the hosts' clocks differ by theta = -1.500 us", "its reason");
	good_report(&cr);
	cr.one_way = true;
	cr.peer_drift_ppb = 150;
	clock_judge(&cr);
	ok(!cr.hosts_trusted && any_warning(&cr, "drift +150 ppb apart"),
	   "--one-way, hosts drifting 1500 ns over the run: warned");
	good_report(&cr);
	cr.one_way = true;
	cr.peer_samples = 0;
	clock_judge(&cr);
	ok(!cr.hosts_trusted && any_warning(&cr, "no transaction carried all four"),
	   "--one-way without theta: unknown, untrusted");
	good_report(&cr);
	cr.peer_offset_ns = 50000;
	clock_judge(&cr);
	ok(cr.hosts_trusted && cr.nwarn == 0, "without --one-way theta is information only");
}

static void test_metric_marks(void)
{
	struct clock_report cr;

	good_report(&cr);
	cr.local_trusted = cr.peer_trusted = cr.hosts_trusted = false;
	snprintf(cr.local_why, sizeof(cr.local_why), "L");
	snprintf(cr.peer_why, sizeof(cr.peer_why), "P");
	snprintf(cr.hosts_why, sizeof(cr.hosts_why), "H");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_EMIT_TX]), "L", "emit: emit_tx local");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_EMIT_RX]), "L", "emit: emit_rx local");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_EMIT_ACK]), "L",
	       "emit: emit_ack (kernel ACK stamp - NIC stamp) local");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_REFLECT_RX]), "P",
	       "emit: reflect_rx the reflector's");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_REFLECT_TX]), "P",
	       "emit: reflect_tx the reflector's");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_OWD_FWD]), "H", "owd_fwd: the hosts'");
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_OWD_BACK]), "H", "owd_back: the hosts'");
	ok(!clock_metric_untrusted(&cr, &metric_defs[M_RTT]) &&
	   !clock_metric_untrusted(&cr, &metric_defs[M_RESPONSE]) &&
	   !clock_metric_untrusted(&cr, &metric_defs[M_NETWORK]) &&
	   !clock_metric_untrusted(&cr, &metric_defs[M_RTT_SW]) &&
	   !clock_metric_untrusted(&cr, &metric_defs[M_REFLECT_PROC]),
	   "one clock each: rtt, response, network, rtt_sw, reflect_proc never marked");
	cr.emit = false;
	is_str(clock_metric_untrusted(&cr, &metric_defs[M_REFLECT_RX]), "L",
	       "reflect: reflect_rx its own");
	cr.local_trusted = true;
	ok(!clock_metric_untrusted(&cr, &metric_defs[M_REFLECT_TX]), "reflect: trusted when in step");
}

/* ---- under the simulated NIC ---- */

static void test_sim_sampler(void)
{
	struct clock_cfg cfg = {
		.iface = "lo", .hw = true, .emit = false,
		.max_offset_ns = NS_PER_SEC, .interval_ns = 20 * NS_PER_MS,
	};
	struct timespec run = { .tv_sec = 0, .tv_nsec = 300 * NS_PER_MS };
	struct clock_report cr;
	struct clock *c;
	char err[256];

	if (!ok(!clock_create(&c, &cfg, err, sizeof(err)), "sim: clock on lo")) {
		skip(6, "no clock");
		return;
	}
	clock_start(c);
	nanosleep(&run, NULL);
	clock_stop(c);
	clock_report(c, &cr);
	is_str(cr.phc, "/dev/ptp0", "sim: the PHC of lo");
	ok(cr.phc_sum.samples >= 8 && cr.phc_sum.samples <= 18,
	   "sim: start, about 15 by the thread, end: %u readings", cr.phc_sum.samples);
	ok(cr.phc_sum.drift_valid &&
	   fabs(cr.phc_sum.drift_ppb - SIM_DRIFT_PPB) < SIM_DRIFT_PPB / 10,
	   "sim: drift %.0f ppb, 50000 within 10%%", cr.phc_sum.drift_ppb);
	ok(cr.phc_sum.offset_start_ns >= SIM_OFFSET_NS &&
	   cr.phc_sum.offset_start_ns < SIM_OFFSET_NS + 100000,
	   "sim: start offset %lld, 250 us plus the drift since load",
	   (long long)cr.phc_sum.offset_start_ns);
	ok(cr.local_trusted && cr.nwarn == 0 && !clock_bad_now(c), "sim: within a 1 s bound");
	clock_destroy(c);

	cfg.max_offset_ns = 10000;
	cfg.interval_ns = 0;
	if (!ok(!clock_create(&c, &cfg, err, sizeof(err)), "sim: clock on lo, 10 us bound")) {
		skip(2, "no clock");
		return;
	}
	clock_start(c);
	ok(clock_bad_now(c), "sim: 250 us off: the pong flag is up from the first reading");
	clock_stop(c);
	clock_report(c, &cr);
	ok(cr.phc_sum.samples == 2 && !cr.local_trusted &&
	   any_warning(&cr, "reflect_rx and reflect_tx are untrusted"),
	   "sim: --phc-interval 0: start and end only (%u), warned", cr.phc_sum.samples);
	clock_destroy(c);
}

static void run_sim(void)
{
	test_sim_sampler();
}

/* The simulated NIC's clock: 250 us ahead of the system clock, 50 ppm fast. */
static void sim_env(void)
{
	setenv("SIMNIC_IFACES", "lo", 1);
	setenv("SIMNIC_OFFSET_NS", "250000", 1);
	setenv("SIMNIC_DRIFT_PPB", "50000", 1);
}

/* Over TCP theta spread wide is no offset; one host trusts --one-way. */
static void test_judge_theta(void)
{
	struct clock_report cr;

	good_report(&cr);
	cr.one_way = true;
	cr.stream = true;
	cr.peer_min_ns = -100;
	cr.peer_max_ns = 23936696;
	clock_judge(&cr);
	ok(strstr(cr.theta_why, "over TCP a stamp is a segment's") && !cr.hosts_trusted &&
	   any_warning(&cr, "theta is no offset"),
	   "tcp, theta spread 24 ms: unusable, --one-way untrusted, warned");
	good_report(&cr);
	cr.peer_min_ns = -100;
	cr.peer_max_ns = 23936696;
	clock_judge(&cr);
	ok(!cr.theta_why[0], "udp, the same spread: theta stands (a stamp is a packet's)");
	good_report(&cr);
	cr.one_way = true;
	cr.hw = false;
	cr.one_host = true;
	cr.peer_offset_ns = 5000000;
	clock_judge(&cr);
	ok(cr.hosts_trusted && !any_warning(&cr, "--one-way"),
	   "one host, kernel stamps: --one-way trusted whatever theta");
}

int main(int argc, char **argv)
{
	if (sim_child(argc, argv)) {
		run_sim();
		return done_testing();
	}
	test_theta();
	test_judge_phc();
	test_judge_hosts();
	test_judge_theta();
	test_metric_marks();
	sim_env();
	sim_exec(argv);
	skip(1, SIM_NOT_BUILT);
	return done_testing();
}
