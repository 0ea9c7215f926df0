// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * phc.c: the names of timestamping capabilities, the drift fit, and, under
 * the simulated PHC NIC (tests/sim/libsimnic.so), the whole device path:
 * capabilities of a simulated interface, the PRECISE -> EXTENDED -> BASIC
 * fallbacks, a 50 ppm drift and a known offset recovered.
 *
 * The program runs its plain tests, then re-executes itself with the shim
 * in LD_PRELOAD and the simulation's settings in the environment, passing
 * on its TAP count ("--sim RUN FAILED"), and goes on there.
 */
#include <errno.h>
#include <limits.h>
#include <linux/net_tstamp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "phc.h"
#include "simexec.h"
#include "tap.h"
#include "timeutil.h"

#define SIM_OFFSET_NS 250000
#define SIM_DRIFT_PPB 50000
#define SIM_JITTER_NS 100
#define CLOCKFD 3
#define FD_TO_CLOCKID(fd) ((clockid_t)((((unsigned int)~(fd)) << 3) | CLOCKFD))

static void test_names(void)
{
	char buf[256];
	int n;

	is_str(phc_sof_name(0), "hardware-transmit", "SOF bit 0");
	is_str(phc_sof_name(3), "software-receive", "SOF bit 3");
	is_str(phc_sof_name(4), "software-system-clock", "SOF bit 4");
	is_str(phc_sof_name(6), "hardware-raw-clock", "SOF bit 6");
	ok(phc_sof_name(31) == NULL, "SOF bit 31 has no name");
	is_str(phc_tx_type_name(HWTSTAMP_TX_ON), "on", "tx type on");
	is_str(phc_tx_type_name(HWTSTAMP_TX_ONESTEP_SYNC), "onestep-sync", "tx type onestep-sync");
	is_str(phc_rx_filter_name(HWTSTAMP_FILTER_ALL), "all", "rx filter all");
	is_str(phc_rx_filter_name(HWTSTAMP_FILTER_PTP_V2_L4_EVENT), "ptpv2-l4-event",
	       "rx filter ptpv2-l4-event");
	is_str(phc_rx_filter_name(HWTSTAMP_FILTER_PTP_V2_EVENT), "ptpv2-event",
	       "rx filter ptpv2-event");
	is_str(phc_rx_filter_name(HWTSTAMP_FILTER_NTP_ALL), "ntp-all", "rx filter ntp-all");
	ok(phc_rx_filter_name(16) == NULL, "rx filter 16 has no name");

	phc_names(buf, sizeof(buf), SOF_TIMESTAMPING_TX_HARDWARE |
		  SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE,
		  phc_sof_name, ", ");
	is_str(buf, "hardware-transmit, hardware-receive, hardware-raw-clock", "names of a mask");
	phc_names(buf, sizeof(buf), 0, phc_tx_type_name, ", ");
	is_str(buf, "none", "an empty mask is none");
	phc_names(buf, sizeof(buf), (1u << 1) | (1u << 30), phc_tx_type_name, " ");
	is_str(buf, "on bit-30", "an unnamed bit");
	n = phc_names(buf, 8, (1u << 0) | (1u << 1), phc_rx_filter_name, ", ");
	is_int(n, strlen("none, all"), "truncated: returns the length needed");
	is_str(buf, "none, a", "truncated: terminated");
}

static void test_mode(void)
{
	const uint32_t hw = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
			    SOF_TIMESTAMPING_RAW_HARDWARE;
	struct phc_ts_info info = {
		.so_timestamping = hw, .phc_index = 0,
		.tx_types = (1u << HWTSTAMP_TX_OFF) | (1u << HWTSTAMP_TX_ON),
		.rx_filters = (1u << HWTSTAMP_FILTER_NONE) | (1u << HWTSTAMP_FILTER_ALL),
	};
	int filter = -1;

	is_int(phc_ts_info_mode(&info, &filter), PHC_HW_ALL, "filter all: every packet");
	is_int(filter, HWTSTAMP_FILTER_ALL, "asks for all");
	info.rx_filters = (1u << HWTSTAMP_FILTER_NONE) | (1u << HWTSTAMP_FILTER_PTP_V2_EVENT) |
			  (1u << HWTSTAMP_FILTER_PTP_V2_L4_EVENT);
	is_int(phc_ts_info_mode(&info, &filter), PHC_HW_PTP_ONLY, "PTP filters only: PTP-only");
	is_int(filter, HWTSTAMP_FILTER_PTP_V2_L4_EVENT, "asks for ptpv2-l4-event first");
	info.rx_filters = (1u << HWTSTAMP_FILTER_PTP_V2_EVENT);
	phc_ts_info_mode(&info, &filter);
	is_int(filter, HWTSTAMP_FILTER_PTP_V2_EVENT, "else ptpv2-event");
	info.rx_filters = (1u << HWTSTAMP_FILTER_PTP_V1_L4_EVENT);
	is_int(phc_ts_info_mode(&info, &filter), PHC_HW_NONE, "PTPv1 only: no use to rant");
	info.rx_filters = (1u << HWTSTAMP_FILTER_ALL);
	info.tx_types = 1u << HWTSTAMP_TX_OFF;
	is_int(phc_ts_info_mode(&info, NULL), PHC_HW_NONE, "TX cannot be on: none");
	info.tx_types = 1u << HWTSTAMP_TX_ON;
	info.so_timestamping = hw & ~SOF_TIMESTAMPING_RAW_HARDWARE;
	is_int(phc_ts_info_mode(&info, &filter), PHC_HW_NONE, "no raw clock: none");
	is_int(filter, HWTSTAMP_FILTER_NONE, "asks for nothing");
}

static void test_fit(void)
{
	int64_t t[100], y[100];
	double slope, icpt;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		t[i] = 1700000000000000000LL + (int64_t)i * NS_PER_SEC;
		y[i] = 1000 + (int64_t)i * 50000;
	}
	ok(!phc_fit(t, y, 10, &slope, &icpt), "fit of a line");
	is_dbl(slope, 50000, 1e-6, "slope 50000 ppb");
	is_dbl(icpt, 1000, 1e-6, "intercept at the first point");

	/* 100 points 10 ms apart, -20 ppm, +-100 ns of noise. */
	for (i = 0; i < 100; i++) {
		t[i] = 1700000000000000000LL + (int64_t)i * 10 * NS_PER_MS;
		y[i] = -5000 - (int64_t)i * 200 + ((i * 7919) % 201) - 100;
	}
	ok(!phc_fit(t, y, 100, &slope, &icpt), "fit with noise");
	is_dbl(slope, -20000, 2000, "slope -20 ppm within 10%%");
	is_int(phc_fit(t, y, 1, &slope, &icpt), -EINVAL, "one point: no fit");
	for (i = 0; i < 3; i++)
		t[i] = 5;
	is_int(phc_fit(t, y, 3, &slope, &icpt), -EINVAL, "no spread in time: no fit");
}

static void test_plain_device(void)
{
	struct phc_ts_info info;
	struct phc *p = NULL;
	char buf[256];

	is_int(phc_ts_info("rant-nosuch0", &info), -ENODEV, "ts_info of a missing interface");
	if (ok(!phc_ts_info("lo", &info), "ts_info of lo")) {
		phc_names(buf, sizeof(buf), info.so_timestamping, phc_sof_name, ",");
		note("lo: %s, phc %d", buf, info.phc_index);
		is_int(info.phc_index, -1, "lo has no PHC");
		ok(!phc_ts_info_hw(&info), "lo has no HW stamps");
		ok(info.so_timestamping & SOF_TIMESTAMPING_RX_SOFTWARE, "lo has RX software stamps");
	} else {
		skip(3, "no ts_info for lo");
	}
	is_int(phc_create(&p, -1, 10), -EINVAL, "no PHC index -1");
	is_int(phc_create(&p, 0, 1), -EINVAL, "room for fewer than 2 samples");
	if (access("/dev/ptp99", F_OK))
		is_int(phc_create(&p, 99, 10), -ENOENT, "a missing /dev/ptp99: -ENOENT");
	else
		skip(1, "this machine has a /dev/ptp99");
}

/* ---- under the shim ---- */

static int64_t sim_t0;

static int64_t expected_offset(int64_t sys_ns)
{
	return SIM_OFFSET_NS + (sys_ns - sim_t0) * SIM_DRIFT_PPB / NS_PER_SEC;
}

static void test_sim_ts_info(void)
{
	struct phc_ts_info info;
	char buf[256];

	if (!ok(!phc_ts_info("lo", &info), "sim: ts_info of lo")) {
		skip(5, "no ts_info");
		return;
	}
	ok(phc_ts_info_hw(&info), "sim: lo has HW TX, RX and raw clock");
	is_int(phc_ts_info_mode(&info, NULL), PHC_HW_ALL, "sim: lo stamps every packet");
	is_int(info.phc_index, 0, "sim: PHC index 0");
	phc_names(buf, sizeof(buf), info.tx_types, phc_tx_type_name, ", ");
	is_str(buf, "off, on", "sim: tx types");
	phc_names(buf, sizeof(buf), info.rx_filters, phc_rx_filter_name, ", ");
	is_str(buf, "none, all", "sim: rx filters");
}

static void test_sim_methods(void)
{
	static const enum phc_method want[] = {
		PHC_METHOD_PRECISE, PHC_METHOD_EXTENDED, PHC_METHOD_BASIC,
	};
	struct phc_reading r;
	struct phc *p;
	int i, ret;

	for (i = 0; i < 3; i++) {
		if (!ok(!phc_create(&p, i, 8), "sim: open /dev/ptp%d", i)) {
			skip(3, "no device");
			continue;
		}
		ret = phc_read(p, 5, &r);
		is_int(ret, 0, "sim: /dev/ptp%d read", i);
		is_str(phc_method_name(phc_method(p)), phc_method_name(want[i]),
		       "sim: /dev/ptp%d method", i);
		ok(!ret && llabs(r.offset_ns - expected_offset(r.sys_ns)) <=
			   SIM_JITTER_NS + r.delay_ns / 2 + 2,
		   "sim: /dev/ptp%d offset %lld within jitter of %lld", i,
		   (long long)r.offset_ns, (long long)expected_offset(r.sys_ns));
		phc_destroy(p);
	}
	if (ok(!phc_create(&p, 3, 8), "sim: open /dev/ptp3 (no method)")) {
		is_int(phc_read(p, 5, &r), -EOPNOTSUPP, "sim: no method: -EOPNOTSUPP");
		phc_destroy(p);
	} else {
		skip(1, "no device");
	}
}

/* 11 samples 20 ms apart: the 50 ppm drift and the start offset. */
static void test_sim_drift(int index, unsigned int room)
{
	struct timespec gap = { .tv_sec = 0, .tv_nsec = 20 * NS_PER_MS };
	struct phc_reading first = { 0 }, r;
	struct phc_summary s;
	struct phc *p;
	int i, ret = 0;

	if (!ok(!phc_create(&p, index, room), "sim: open /dev/ptp%d, room %u", index, room)) {
		skip(5, "no device");
		return;
	}
	for (i = 0; i < 11 && !ret; i++) {
		ret = phc_sample(p, 5, i ? &r : &first);
		nanosleep(&gap, NULL);
	}
	is_int(ret, 0, "sim: 11 samples");
	phc_summary(p, &s);
	is_int(s.samples, 11, "sim: summary counts 11");
	ok(s.fitted <= room && s.fitted >= 2, "sim: %u kept for the fit (room %u)", s.fitted, room);
	ok(s.drift_valid && s.drift_ppb > SIM_DRIFT_PPB * 0.9 && s.drift_ppb < SIM_DRIFT_PPB * 1.1,
	   "sim: /dev/ptp%d drift %.0f ppb, 50000 within 10%%", index, s.drift_ppb);
	ok(llabs(s.offset_start_ns - expected_offset(first.sys_ns)) <=
		   SIM_JITTER_NS + first.delay_ns / 2 + 2,
	   "sim: start offset %lld within jitter of %lld", (long long)s.offset_start_ns,
	   (long long)expected_offset(first.sys_ns));
	phc_destroy(p);
}

static void test_sim_clock(void)
{
	struct timespec ts;
	int64_t before, phc, after;
	struct phc *p;

	if (!ok(!phc_create(&p, 0, 2), "sim: open /dev/ptp0 for its clock")) {
		skip(1, "no device");
		return;
	}
	before = realtime_ns();
	ok(!clock_gettime(FD_TO_CLOCKID(phc_fd(p)), &ts), "sim: clock_gettime on the PHC");
	after = realtime_ns();
	phc = timespec_to_ns(&ts);
	ok(phc - after <= expected_offset(after) + SIM_JITTER_NS &&
		   phc - before >= expected_offset(before) - SIM_JITTER_NS,
	   "sim: PHC time is system time + offset (%lld ns)", (long long)(phc - before));
	phc_destroy(p);
}

static void run_sim(void)
{
	sim_t0 = atoll(getenv("SIMNIC_T0_NS"));
	test_sim_ts_info();
	test_sim_methods();
	test_sim_drift(0, 32);		/* precise */
	test_sim_drift(2, 4);		/* basic, decimated */
	test_sim_clock();
}

/* The simulated NICs: lo and simx1-3, each lacking more of the reading
 * methods; their clock 250 us ahead of the system clock from now, 50 ppm
 * fast, 100 ns of jitter. */
static void sim_env(void)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", (long long)realtime_ns());
	setenv("SIMNIC_IFACES", "lo,simx1,simx2,simx3", 1);
	setenv("SIMNIC_T0_NS", num, 1);
	setenv("SIMNIC_OFFSET_NS", "250000", 1);
	setenv("SIMNIC_DRIFT_PPB", "50000", 1);
	setenv("SIMNIC_JITTER_NS", "100", 1);
	setenv("SIMNIC_NO_PRECISE_simx1", "1", 1);
	setenv("SIMNIC_NO_PRECISE_simx2", "1", 1);
	setenv("SIMNIC_NO_EXTENDED_simx2", "1", 1);
	setenv("SIMNIC_NO_PRECISE_simx3", "1", 1);
	setenv("SIMNIC_NO_EXTENDED_simx3", "1", 1);
	setenv("SIMNIC_NO_BASIC_simx3", "1", 1);
}

int main(int argc, char **argv)
{
	if (sim_child(argc, argv)) {
		run_sim();
		return done_testing();
	}
	test_names();
	test_mode();
	test_fit();
	test_plain_device();
	sim_env();
	sim_exec(argv);
	skip(1, SIM_NOT_BUILT);
	return done_testing();
}
