// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwts.c: the start-up decision on hardware stamps, case by case, from
 * the answers an interface gives (capabilities, the setting in force,
 * what the driver applied): HW, kernel stamps with the reason, or a
 * refusal with the line to act on. Then hwts_setup() on the loopback
 * interface (software stamps only) and on an interface that is not there.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hwts.h"
#include "tap.h"

#define IFACE "eth9"
#define HW_SOF (SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE | \
		SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_TX_SOFTWARE | \
		SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE)
#define BIT(x) (1u << (x))
#define TX_OFF_ON (BIT(HWTSTAMP_TX_OFF) | BIT(HWTSTAMP_TX_ON))
#define RX_ALL (BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_ALL))
#define RX_PTP (BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_PTP_V1_L4_EVENT) | \
		BIT(HWTSTAMP_FILTER_PTP_V2_L4_EVENT) | BIT(HWTSTAMP_FILTER_PTP_V2_EVENT))

/* A NIC's answers: capabilities, nothing set yet (tx off, rx none). */
static struct hwts_facts nic(uint32_t sof, uint32_t tx, uint32_t rx, bool ptp_mode)
{
	struct hwts_facts f = {
		.ptp_mode = ptp_mode,
		.info = { .so_timestamping = sof, .phc_index = 0, .tx_types = tx,
			  .rx_filters = rx },
	};

	return f;
}

static void set_answer(struct hwts_facts *f, int ret, int tx, int rx)
{
	f->set_done = true;
	f->set_ret = ret;
	f->got.tx_type = tx;
	f->got.rx_filter = rx;
}

static void test_covers(void)
{
	ok(hwts_filter_covers(HWTSTAMP_FILTER_ALL, HWTSTAMP_FILTER_ALL), "all covers all");
	ok(hwts_filter_covers(HWTSTAMP_FILTER_ALL, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "all covers ptpv2-l4-event");
	ok(hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_EVENT, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "ptpv2-event (L2 and L4) covers ptpv2-l4-event");
	ok(hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_L4_EVENT, HWTSTAMP_FILTER_PTP_V2_L4_SYNC),
	   "ptpv2-l4-event covers ptpv2-l4-sync");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_L4_SYNC, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "ptpv2-l4-sync does not cover ptpv2-l4-event (no Delay_Req)");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_L4_EVENT, HWTSTAMP_FILTER_ALL),
	   "ptpv2-l4-event does not cover all");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_L2_EVENT, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "ptpv2-l2-event does not cover UDP");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_PTP_V1_L4_EVENT, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "ptpv1 does not cover ptpv2");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_SOME, HWTSTAMP_FILTER_PTP_V2_L4_SYNC),
	   "some guarantees nothing");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_PTP_V2_EVENT, HWTSTAMP_FILTER_SOME),
	   "what some wanted is unknown: only all covers it");
	ok(!hwts_filter_covers(HWTSTAMP_FILTER_NTP_ALL, HWTSTAMP_FILTER_PTP_V2_L4_EVENT),
	   "ntp-all does not cover PTP");
	ok(hwts_filter_covers(HWTSTAMP_FILTER_NONE, HWTSTAMP_FILTER_NONE), "none wanted: covered");
}

/* A NIC that stamps everything: set, read back, HW. */
static void test_all_nic(void)
{
	struct hwts_facts f = nic(HW_SOF, TX_OFF_ON, RX_ALL, false);
	struct hwts_decision d;

	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_SET, "all NIC, nothing set: set");
	ok(d.want.tx_type == HWTSTAMP_TX_ON && d.want.rx_filter == HWTSTAMP_FILTER_ALL,
	   "... asks tx on, rx all");
	set_answer(&f, 0, HWTSTAMP_TX_ON, HWTSTAMP_FILTER_ALL);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_HW, "the driver applied tx on, rx all: HW");
	is_str(d.line, "", "... and nothing to say");
	ok(!d.other, "... rant's own setting");

	set_answer(&f, 0, HWTSTAMP_TX_ON, HWTSTAMP_FILTER_PTP_V2_L4_EVENT);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "read back rx ptpv2-l4-event for all: kernel stamps");
	ok(strstr(d.line, "the driver applied tx on, rx ptpv2-l4-event") != NULL,
	   "... saying what the driver applied: %s", d.line);
	set_answer(&f, 0, HWTSTAMP_TX_OFF, HWTSTAMP_FILTER_ALL);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "read back tx off: kernel stamps");

	f.get_ret = -EOPNOTSUPP;
	f.set_done = false;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_SET, "SIOCGHWTSTAMP unsupported: set all the same");
}

/* Software stamps only, or part of what rant needs. */
static void test_no_hw(void)
{
	struct hwts_facts f = nic(SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
				  SOF_TIMESTAMPING_SOFTWARE, 0, 0, false);
	struct hwts_decision d;

	f.info.phc_index = -1;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "software only (veth): kernel stamps, no set");
	is_str(d.line, IFACE " has no hardware timestamping (ethtool -T " IFACE ": software stamps only)",
	       "... with the reason");
	f.ptp_mode = true;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "software only with --ptp-mode: kernel stamps");

	f = nic(SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE, TX_OFF_ON, RX_ALL,
		false);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "RX hardware only: kernel stamps");
	ok(strstr(d.line, "only part of hardware timestamping") &&
	   strstr(d.line, "hardware-receive, hardware-raw-clock"), "... naming what it has: %s", d.line);

	f = nic(HW_SOF, BIT(HWTSTAMP_TX_OFF), RX_ALL, false);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "no TX on: kernel stamps");
	ok(strstr(d.line, "cannot stamp sent packets") && strstr(d.line, "transmit modes off"),
	   "... saying so: %s", d.line);

	f = nic(HW_SOF, TX_OFF_ON, BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_NTP_ALL), false);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "RX filter ntp-all only: kernel stamps");
	ok(strstr(d.line, "no hardware receive filter rant can use") && strstr(d.line, "ntp-all"),
	   "... naming the filters: %s", d.line);
}

/* A NIC that stamps only PTP event packets. */
static void test_ptp_only(void)
{
	struct hwts_facts f = nic(HW_SOF, TX_OFF_ON, RX_PTP, false);
	struct hwts_decision d;

	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_REFUSE, "PTP-only NIC without --ptp-mode: refused before any set");
	ok(strstr(d.line, "--ptp-mode") && strstr(d.line, "-R") &&
	   strstr(d.line, "stamps only PTP event packets"),
	   "... one line naming --ptp-mode and -R: %s", d.line);
	ok(d.err < 0, "... an error to return (exit 1)");

	f.ptp_mode = true;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_SET, "with --ptp-mode: set");
	is_int(d.want.rx_filter, HWTSTAMP_FILTER_PTP_V2_L4_EVENT, "... rx ptpv2-l4-event");
	set_answer(&f, 0, HWTSTAMP_TX_ON, HWTSTAMP_FILTER_PTP_V2_EVENT);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_HW, "the driver answered the broader ptpv2-event: HW");
	is_int(d.use.rx_filter, HWTSTAMP_FILTER_PTP_V2_EVENT, "... in use as answered");
	set_answer(&f, 0, HWTSTAMP_TX_ON, HWTSTAMP_FILTER_PTP_V2_L4_SYNC);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "answered ptpv2-l4-sync (no Delay_Req): kernel stamps");
	set_answer(&f, -ERANGE, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "--ptp-mode, the PTP filter refused (ERANGE): kernel stamps");
	ok(strstr(d.line, "ERANGE") != NULL, "... saying so: %s", d.line);

	/* --ptp-mode on a NIC that lists ptpv2-event only, or all only */
	f = nic(HW_SOF, TX_OFF_ON, BIT(HWTSTAMP_FILTER_PTP_V2_EVENT), true);
	hwts_decide(IFACE, &f, &d);
	is_int(d.want.rx_filter, HWTSTAMP_FILTER_PTP_V2_EVENT, "only ptpv2-event listed: asks it");
	f = nic(HW_SOF, TX_OFF_ON, RX_ALL, true);
	hwts_decide(IFACE, &f, &d);
	is_int(d.want.rx_filter, HWTSTAMP_FILTER_ALL, "--ptp-mode on an all-only NIC: asks all");
	f = nic(HW_SOF, TX_OFF_ON, RX_ALL | RX_PTP, true);
	hwts_decide(IFACE, &f, &d);
	is_int(d.want.rx_filter, HWTSTAMP_FILTER_PTP_V2_L4_EVENT,
	       "--ptp-mode where both are listed: the narrower ptpv2-l4-event");
}

/* ERANGE for all where the capabilities could not be read. */
static void test_unknown_caps(void)
{
	struct hwts_facts f = { .info_ret = -EOPNOTSUPP, .get_ret = -EOPNOTSUPP };
	struct hwts_decision d;

	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_SET, "capabilities unknown: try the set");
	set_answer(&f, -ERANGE, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_REFUSE, "all refused with ERANGE: refused");
	ok(strstr(d.line, "--ptp-mode") && strstr(d.line, "-R") && strstr(d.line, "ERANGE"),
	   "... naming --ptp-mode and -R: %s", d.line);
	set_answer(&f, -EOPNOTSUPP, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "set unsupported: kernel stamps");
	set_answer(&f, -EPERM, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_REFUSE, "set not permitted: refused");
	ok(strstr(d.line, "CAP_NET_ADMIN") && strstr(d.line, "-R"), "... saying what to do: %s",
	   d.line);
	is_int(d.err, -EPERM, "... returning -EPERM");
	set_answer(&f, -EIO, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_REFUSE, "any other set failure: refused");
}

/* A setting in force that another process (ptp4l) made. */
static void test_other_process(void)
{
	struct hwts_facts f = nic(HW_SOF, TX_OFF_ON, RX_ALL | RX_PTP, true);
	struct hwts_decision d;

	f.cur.tx_type = HWTSTAMP_TX_ON;
	f.cur.rx_filter = HWTSTAMP_FILTER_ALL;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_HW, "--ptp-mode, all in force: used as it is, no set");
	ok(d.other && strstr(d.line, "already set (tx on, rx all") &&
	   strstr(d.line, "uses it as it is"), "... saying so: %s", d.line);

	f.ptp_mode = false;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_HW, "all in force, all wanted: used");
	is_str(d.line, "", "... nothing to say: it is what rant asks");

	f.cur.rx_filter = HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_SET, "ptpv2-l4-event in force, all wanted: widened (a superset)");
	set_answer(&f, 0, HWTSTAMP_TX_ON, HWTSTAMP_FILTER_ALL);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_HW, "... then HW");
	ok(d.other && strstr(d.line, "was tx on, rx ptpv2-l4-event") &&
	   strstr(d.line, "still stamps every packet it stamped"), "... saying it: %s", d.line);

	set_answer(&f, -EBUSY, 0, 0);
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "the set refused with EBUSY: kernel stamps");
	ok(d.other && strstr(d.line, "EBUSY") && strstr(d.line, "tx on, rx ptpv2-l4-event") &&
	   strstr(d.line, "--ptp-mode on both sides would use it"),
	   "... saying what it found and what would use it: %s", d.line);
	f.get_ret = -EOPNOTSUPP;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "EBUSY, setting unreadable: kernel stamps");
	ok(strstr(d.line, "cannot read it") != NULL, "... saying so: %s", d.line);

	/* rant's filter would take stamps away: leave it */
	f = nic(HW_SOF, TX_OFF_ON, RX_ALL | RX_PTP, true);
	f.cur.tx_type = HWTSTAMP_TX_ON;
	f.cur.rx_filter = HWTSTAMP_FILTER_NTP_ALL;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "--ptp-mode, ntp-all in force: left alone, kernel stamps");
	ok(d.other && strstr(d.line, "rx ntp-all") && strstr(d.line, "leaves it as it is"),
	   "... saying so: %s", d.line);
	f.ptp_mode = false;
	f.cur.tx_type = HWTSTAMP_TX_ONESTEP_SYNC;
	f.cur.rx_filter = HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	hwts_decide(IFACE, &f, &d);
	is_int(d.verdict, HWTS_KERNEL, "one-step TX in force: not taken away");
	ok(strstr(d.line, "tx onestep-sync") != NULL, "... named: %s", d.line);
}

static void test_setup_lo(void)
{
	char note[320] = "", err[320] = "";
	struct hwts h;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int r;

	if (fd < 0) {
		skip(6, "no UDP socket here");
		return;
	}
	r = hwts_setup(fd, "lo", false, false, &h, note, sizeof(note), err, sizeof(err));
	is_int(r, 0, "hwts_setup(lo) -> 0");
	ok(!h.hw && strstr(note, "lo has no hardware timestamping"), "... kernel stamps: %s", note);
	ok(h.info_ret == 0 && h.info.phc_index == -1, "... capabilities read, no PHC");
	note[0] = '\0';
	r = hwts_setup(fd, "lo", true, false, &h, note, sizeof(note), err, sizeof(err));
	ok(r == 0 && !h.hw && !strcmp(note, "-R/--no-hw-ts given"), "-R: %s", note);
	r = hwts_setup(fd, "rantnoif0", false, false, &h, note, sizeof(note), err, sizeof(err));
	ok(r < 0 && strstr(err, "rantnoif0"), "no such interface: fails naming it (%d): %s", r, err);
	is_int(h.info_ret, -ENODEV, "... ETHTOOL_GET_TS_INFO said ENODEV");
	close(fd);
}

int main(void)
{
	test_covers();
	test_all_nic();
	test_no_hw();
	test_ptp_only();
	test_unknown_caps();
	test_other_process();
	test_setup_lo();
	return done_testing();
}
