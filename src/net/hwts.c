// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hardware timestamping set-up (see hwts.h). The ioctls are linuxptp's
 * (sk_get_ts_info, hwts_init), the policy is rant's: decide before any
 * packet, never take another process's setting away, and say what was
 * found and done.
 */
#include <errno.h>
#include <stdarg.h>
#include <linux/if.h>
#include <linux/sockios.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hwts.h"
#include "out.h"
#include "missing.h"

/* ---- what a filter stamps ---- */

/* Classes of packets, for comparing RX filters. */
enum {
	C_V1_SYNC = 1 << 0,
	C_V1_DREQ = 1 << 1,
	C_V2L4_SYNC = 1 << 2,
	C_V2L4_DREQ = 1 << 3,
	C_V2L4_PEER = 1 << 4,	/* Pdelay_Req, Pdelay_Resp */
	C_V2L2_SYNC = 1 << 5,
	C_V2L2_DREQ = 1 << 6,
	C_V2L2_PEER = 1 << 7,
	C_NTP = 1 << 8,
	C_OTHER = 1 << 9,	/* everything else */
	C_V2L4 = C_V2L4_SYNC | C_V2L4_DREQ | C_V2L4_PEER,
	C_V2L2 = C_V2L2_SYNC | C_V2L2_DREQ | C_V2L2_PEER,
	C_ALL = (1 << 10) - 1,
};

/* The packets filter f is sure to stamp ("some": none for sure). */
static unsigned int filter_set(int f)
{
	switch (f) {
	case HWTSTAMP_FILTER_ALL:
		return C_ALL;
	case HWTSTAMP_FILTER_PTP_V1_L4_EVENT:
		return C_V1_SYNC | C_V1_DREQ;
	case HWTSTAMP_FILTER_PTP_V1_L4_SYNC:
		return C_V1_SYNC;
	case HWTSTAMP_FILTER_PTP_V1_L4_DELAY_REQ:
		return C_V1_DREQ;
	case HWTSTAMP_FILTER_PTP_V2_L4_EVENT:
		return C_V2L4;
	case HWTSTAMP_FILTER_PTP_V2_L4_SYNC:
		return C_V2L4_SYNC;
	case HWTSTAMP_FILTER_PTP_V2_L4_DELAY_REQ:
		return C_V2L4_DREQ;
	case HWTSTAMP_FILTER_PTP_V2_L2_EVENT:
		return C_V2L2;
	case HWTSTAMP_FILTER_PTP_V2_L2_SYNC:
		return C_V2L2_SYNC;
	case HWTSTAMP_FILTER_PTP_V2_L2_DELAY_REQ:
		return C_V2L2_DREQ;
	case HWTSTAMP_FILTER_PTP_V2_EVENT:
		return C_V2L4 | C_V2L2;
	case HWTSTAMP_FILTER_PTP_V2_SYNC:
		return C_V2L4_SYNC | C_V2L2_SYNC;
	case HWTSTAMP_FILTER_PTP_V2_DELAY_REQ:
		return C_V2L4_DREQ | C_V2L2_DREQ;
	case HWTSTAMP_FILTER_NTP_ALL:
		return C_NTP;
	default:
		return 0;	/* none, some, unknown */
	}
}

bool hwts_filter_covers(int granted, int wanted)
{
	if (wanted == HWTSTAMP_FILTER_NONE || granted == HWTSTAMP_FILTER_ALL)
		return true;
	if (wanted == HWTSTAMP_FILTER_SOME)
		return false;	/* what "some" wanted is not known */
	return !(filter_set(wanted) & ~filter_set(granted));
}

/* ---- the decision ---- */

static const char *tx_name(int tx)
{
	const char *n = tx >= 0 ? phc_tx_type_name((unsigned int)tx) : NULL;

	return n ? n : "unknown";
}

static const char *rx_name(int rx)
{
	const char *n = rx >= 0 ? phc_rx_filter_name((unsigned int)rx) : NULL;

	return n ? n : "unknown";
}

/* What the run's packets are, for the lines. */
static const char *need_what(const struct hwts_facts *f)
{
	return f->ptp_mode ? "rant's PTP messages" : "every packet";
}

/* The filter to ask for: all, or with --ptp-mode the narrowest PTP
 * filter the NIC lists that covers rant's messages. */
static int filter_to_ask(const struct hwts_facts *f)
{
	uint32_t rx = f->info.rx_filters;

	if (!f->ptp_mode)
		return HWTSTAMP_FILTER_ALL;
	if (f->info_ret)
		return HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	if (rx & (1u << HWTSTAMP_FILTER_PTP_V2_L4_EVENT))
		return HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	if (rx & (1u << HWTSTAMP_FILTER_PTP_V2_EVENT))
		return HWTSTAMP_FILTER_PTP_V2_EVENT;
	return HWTSTAMP_FILTER_ALL;
}

static void verdict(struct hwts_decision *d, enum hwts_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verdict(struct hwts_decision *d, enum hwts_verdict v, const char *fmt, ...)
{
	va_list ap;

	d->verdict = v;
	va_start(ap, fmt);
	vsnprintf(d->line, sizeof(d->line), fmt, ap);
	va_end(ap);
}

/* The one line for a NIC that stamps only PTP packets: known from its
 * capabilities, or from an ERANGE for filter all. */
static void refuse_ptp_only(const char *iface, const struct hwts_facts *f,
			    struct hwts_decision *d, bool erange)
{
	const char *fix = "give --ptp-mode on both sides for hardware stamps, or -R for kernel stamps";
	char filters[160];

	d->err = -EOPNOTSUPP;
	if (erange) {
		verdict(d, HWTS_REFUSE, "%s refused hardware stamps for every packet (rx filter all: ERANGE), as NICs that stamp only PTP event packets do: %s",
			iface, fix);
		return;
	}
	phc_names(filters, sizeof(filters), f->info.rx_filters, phc_rx_filter_name, ", ");
	verdict(d, HWTS_REFUSE, "%s stamps only PTP event packets in hardware (ethtool -T %s: rx filters %s): %s",
		iface, iface, filters, fix);
}

/* The capabilities rule the NIC out, or are PTP-only without --ptp-mode:
 * false with the verdict; true to go on. */
static bool decide_caps(const char *iface, const struct hwts_facts *f,
			struct hwts_decision *d)
{
	const uint32_t hw = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
			    SOF_TIMESTAMPING_RAW_HARDWARE;
	const struct phc_ts_info *i = &f->info;
	char names[200];

	switch (phc_ts_info_mode(i, NULL)) {
	case PHC_HW_ALL:
		return true;
	case PHC_HW_PTP_ONLY:
		if (f->ptp_mode)
			return true;
		refuse_ptp_only(iface, f, d, false);
		return false;
	case PHC_HW_NONE:
		break;
	}
	if (!(i->so_timestamping & hw)) {
		verdict(d, HWTS_KERNEL, "%s has no hardware timestamping (ethtool -T %s: software stamps only)",
			iface, iface);
	} else if (!phc_ts_info_hw(i)) {
		phc_names(names, sizeof(names), i->so_timestamping & hw, phc_sof_name, ", ");
		verdict(d, HWTS_KERNEL, "%s has only part of hardware timestamping (ethtool -T %s: %s; rant needs hardware-transmit, hardware-receive and hardware-raw-clock)",
			iface, iface, names);
	} else if (!(i->tx_types & (1u << HWTSTAMP_TX_ON))) {
		phc_names(names, sizeof(names), i->tx_types, phc_tx_type_name, ", ");
		verdict(d, HWTS_KERNEL, "%s cannot stamp sent packets in hardware (ethtool -T %s: transmit modes %s)",
			iface, iface, names);
	} else {
		phc_names(names, sizeof(names), i->rx_filters, phc_rx_filter_name, ", ");
		verdict(d, HWTS_KERNEL, "%s has no hardware receive filter rant can use (ethtool -T %s: %s)",
			iface, iface, names);
	}
	return false;
}

static bool cfg_default(const struct hwtstamp_config *c)
{
	return c->tx_type == HWTSTAMP_TX_OFF && c->rx_filter == HWTSTAMP_FILTER_NONE;
}

static bool cfg_covers(const struct hwtstamp_config *c, int need)
{
	return c->tx_type == HWTSTAMP_TX_ON && hwts_filter_covers(c->rx_filter, need);
}

/* Setting want keeps stamping every packet cur stamped. */
static bool widens(const struct hwtstamp_config *want, const struct hwtstamp_config *cur)
{
	return (cur->tx_type == HWTSTAMP_TX_OFF || cur->tx_type == HWTSTAMP_TX_ON) &&
	       hwts_filter_covers(want->rx_filter, cur->rx_filter);
}

/* "; --ptp-mode ... would use it" when cur stamps rant's PTP messages. */
static const char *ptp_hint(const struct hwts_facts *f, const struct hwtstamp_config *cur)
{
	return !f->ptp_mode && cfg_covers(cur, HWTSTAMP_FILTER_PTP_V2_L4_EVENT) ?
	       "; --ptp-mode on both sides would use it" : "";
}

/* Before any set: use what is in force, set, or leave it alone. */
static void decide_current(const char *iface, const struct hwts_facts *f,
			   struct hwts_decision *d)
{
	const struct hwtstamp_config *cur = &f->cur;

	if (f->get_ret || cfg_default(cur)) {
		d->verdict = HWTS_SET;
		return;
	}
	if (cfg_covers(cur, d->need)) {
		d->use = *cur;
		d->other = cur->rx_filter != d->want.rx_filter;
		if (d->other)
			verdict(d, HWTS_HW, "%s: hardware timestamping is already set (tx on, rx %s: by another process such as ptp4l, or an earlier run); it stamps %s, so rant uses it as it is",
				iface, rx_name(cur->rx_filter), need_what(f));
		else
			d->verdict = HWTS_HW;
		return;
	}
	if (widens(&d->want, cur)) {
		d->verdict = HWTS_SET;
		return;
	}
	d->other = true;
	verdict(d, HWTS_KERNEL, "%s: hardware timestamping is set to tx %s, rx %s by another process (ptp4l?), which does not stamp %s; rant leaves it as it is%s",
		iface, tx_name(cur->tx_type), rx_name(cur->rx_filter), need_what(f),
		ptp_hint(f, cur));
}

/* After SIOCSHWTSTAMP with d->want. */
static void judge_set(const char *iface, const struct hwts_facts *f,
		      struct hwts_decision *d)
{
	const struct hwtstamp_config *cur = &f->cur, *got = &f->got;
	int ret = f->set_ret;

	if (!ret && cfg_covers(got, d->need)) {
		d->use = *got;
		d->verdict = HWTS_HW;
		d->other = !f->get_ret && !cfg_default(cur) &&
			   (cur->tx_type != got->tx_type || cur->rx_filter != got->rx_filter);
		if (d->other)
			verdict(d, HWTS_HW, "%s: hardware timestamping was tx %s, rx %s (set by another process, ptp4l?); rant set tx on, rx %s, which still stamps every packet it stamped",
				iface, tx_name(cur->tx_type), rx_name(cur->rx_filter),
				rx_name(got->rx_filter));
	} else if (!ret) {
		verdict(d, HWTS_KERNEL, "%s: asked for tx on, rx %s, the driver applied tx %s, rx %s, which does not stamp %s",
			iface, rx_name(d->want.rx_filter), tx_name(got->tx_type),
			rx_name(got->rx_filter), need_what(f));
	} else if (ret == -EBUSY && !f->get_ret) {
		d->other = true;
		verdict(d, HWTS_KERNEL, "%s: another process (ptp4l?) holds the hardware timestamping setting (SIOCSHWTSTAMP: EBUSY) at tx %s, rx %s, which does not stamp %s; rant leaves it as it is%s",
			iface, tx_name(cur->tx_type), rx_name(cur->rx_filter), need_what(f),
			ptp_hint(f, cur));
	} else if (ret == -EBUSY) {
		d->other = true;
		verdict(d, HWTS_KERNEL, "%s: another process (ptp4l?) holds the hardware timestamping setting (SIOCSHWTSTAMP: EBUSY), and SIOCGHWTSTAMP cannot read it: %s",
			iface, strerror(-f->get_ret));
	} else if (ret == -ERANGE && !f->ptp_mode &&
		   (f->info_ret || phc_ts_info_mode(&f->info, NULL) != PHC_HW_NONE)) {
		refuse_ptp_only(iface, f, d, true);
	} else if (ret == -ERANGE) {
		verdict(d, HWTS_KERNEL, "%s: the driver refused tx on, rx %s (ERANGE)",
			iface, rx_name(d->want.rx_filter));
	} else if (ret == -EPERM || ret == -EACCES) {
		d->err = ret;
		verdict(d, HWTS_REFUSE, "%s: setting hardware timestamping (SIOCSHWTSTAMP) needs CAP_NET_ADMIN: run as root, or give -R for kernel stamps",
			iface);
	} else if (ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ENOTTY) {
		verdict(d, HWTS_KERNEL, "%s has no hardware timestamping (SIOCSHWTSTAMP: %s)",
			iface, strerror(-ret));
	} else {
		d->err = ret;
		verdict(d, HWTS_REFUSE, "%s: ioctl SIOCSHWTSTAMP failed: %s (-R uses kernel stamps)",
			iface, strerror(-ret));
	}
}

void hwts_decide(const char *iface, const struct hwts_facts *f,
		 struct hwts_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->need = f->ptp_mode ? HWTSTAMP_FILTER_PTP_V2_L4_EVENT : HWTSTAMP_FILTER_ALL;
	d->want.tx_type = HWTSTAMP_TX_ON;
	d->want.rx_filter = filter_to_ask(f);
	if (!f->info_ret && !decide_caps(iface, f, d))
		return;
	if (f->set_done)
		judge_set(iface, f, d);
	else
		decide_current(iface, f, d);
}

/* ---- asking the interface ---- */

static int hwts_ioctl(int fd, const char *iface, unsigned long req,
		      struct hwtstamp_config *cfg)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)cfg;
	return ioctl(fd, req, &ifr) ? -errno : 0;
}

int hwts_setup(int fd, const char *iface, bool no_hw, bool ptp_mode,
	       struct hwts *h, char *note, size_t note_len, char *err,
	       size_t err_len)
{
	struct hwts_facts f = { .ptp_mode = ptp_mode };
	struct hwts_decision d;

	memset(h, 0, sizeof(*h));
	f.info_ret = phc_ts_info(iface, &f.info);
	h->info_ret = f.info_ret;
	h->info = f.info;
	if (no_hw) {
		snprintf(note, note_len, "-R/--no-hw-ts given");
		return 0;
	}
	f.get_ret = hwts_ioctl(fd, iface, SIOCGHWTSTAMP, &f.cur);
	hwts_decide(iface, &f, &d);
	if (d.verdict == HWTS_SET) {
		f.got = d.want;
		f.set_ret = hwts_ioctl(fd, iface, SIOCSHWTSTAMP, &f.got);
		f.set_done = true;
		hwts_decide(iface, &f, &d);
	}
	switch (d.verdict) {
	case HWTS_HW:
		h->hw = true;
		h->use_known = true;
		h->use = d.use;
		h->other = d.other;
		snprintf(h->notice, sizeof(h->notice), "%s", d.line);
		return 0;
	case HWTS_KERNEL:
		h->other = d.other;
		if (d.other && !f.get_ret) {
			h->use_known = true;
			h->use = f.cur;
		}
		snprintf(note, note_len, "%s", d.line);
		return 0;
	default:
		snprintf(err, err_len, "%s", d.line);
		return d.err ? d.err : -EIO;
	}
}

/* ---- reports ---- */

/* The names of the bits of mask: a line each, and the JSON array key. */
static void print_names(struct out *o, const char *key, uint32_t mask,
			const char *(*name)(unsigned int))
{
	char buf[16];

	out_arr(o, key);
	for (unsigned int bit = 0; bit < 32; bit++) {
		const char *n;

		if (!(mask & (1u << bit)))
			continue;
		n = name(bit);
		if (!n) {
			snprintf(buf, sizeof(buf), "bit-%u", bit);
			n = buf;
		}
		out_str(o, NULL, "\t%s\n", n);	/* text: ethtool -T's lines */
	}
	out_arr_end(o);
}

void hwts_print_caps(FILE *f, const char *iface, const struct hwts *h)
{
	const struct phc_ts_info *i = &h->info;
	struct out o = { .t = f };

	if (h->info_ret) {
		fprintf(f, "%s: timestamping capabilities not readable (ETHTOOL_GET_TS_INFO: %s)\n",
			iface, strerror(-h->info_ret));
		return;
	}
	fprintf(f, "Time stamping parameters for %s:\nCapabilities:\n", iface);
	print_names(&o, NULL, i->so_timestamping, phc_sof_name);
	if (i->phc_index < 0)
		fprintf(f, "PTP Hardware Clock: none\n");
	else
		fprintf(f, "PTP Hardware Clock: %d\n", i->phc_index);
	fprintf(f, "Hardware Transmit Timestamp Modes:%s\n", i->tx_types ? "" : " none");
	print_names(&o, NULL, i->tx_types, phc_tx_type_name);
	fprintf(f, "Hardware Receive Filter Modes:%s\n", i->rx_filters ? "" : " none");
	print_names(&o, NULL, i->rx_filters, phc_rx_filter_name);
	if (h->use_known)
		fprintf(f, "In force: tx %s, rx %s%s\n", tx_name(h->use.tx_type),
			rx_name(h->use.rx_filter), h->other ? " (another process's setting)" : "");
}

void hwts_print(struct out *to, const struct hwts *h)
{
	struct out jo = out_json_only(to), *o = &jo;	/* the lines are -v's */

	if (h->info_ret) {
		out_null(o, "ts_info");
	} else {
		out_obj(o, "ts_info");
		print_names(o, "so_timestamping", h->info.so_timestamping, phc_sof_name);
		out_i64(o, "phc_index", NULL, h->info.phc_index);
		print_names(o, "tx_types", h->info.tx_types, phc_tx_type_name);
		print_names(o, "rx_filters", h->info.rx_filters, phc_rx_filter_name);
		out_obj_end(o);
	}
	if (!h->use_known) {
		out_null(o, "hwtstamp");
		return;
	}
	out_obj(o, "hwtstamp");
	out_str(o, "tx_type", NULL, tx_name(h->use.tx_type));
	out_str(o, "rx_filter", NULL, rx_name(h->use.rx_filter));
	out_bool(o, "other_process", NULL, h->other);
	out_bool(o, "used", NULL, h->hw);
	if (h->notice[0])
		out_str(o, "notice", NULL, h->notice);
	out_obj_end(o);
}
