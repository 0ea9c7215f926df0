// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NIC clock (see phc.h). The capabilities come from the SIOCETHTOOL
 * ioctl as linuxptp's sk_get_ts_info reads them; the offset readings follow
 * phc2sys: a cross timestamp where the driver has one, else the sample with
 * the shortest system-clock interval around the PHC read, its midpoint
 * taken as the system time of the PHC value.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/ptp_clock.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "missing.h"
#include "phc.h"
#include "timeutil.h"

/* ---- timestamping capabilities ---- */

int phc_ts_info(const char *iface, struct phc_ts_info *out)
{
	struct ethtool_ts_info info;
	struct ifreq ifr;
	int fd, ret = 0;

	if (strlen(iface) >= IF_NAMESIZE)
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GET_TS_INFO;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		ret = errno == EINVAL ? -EOPNOTSUPP : -errno;
		goto out;
	}
	out->so_timestamping = info.so_timestamping;
	out->phc_index = info.phc_index;
	out->tx_types = info.tx_types;
	out->rx_filters = info.rx_filters;
out:
	close(fd);
	return ret;
}

bool phc_ts_info_hw(const struct phc_ts_info *info)
{
	const uint32_t need = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
			      SOF_TIMESTAMPING_RAW_HARDWARE;

	return (info->so_timestamping & need) == need;
}

/* The filter for UDP PTPv2 event messages among rx_filters, or NONE. */
static int ptp_event_filter(uint32_t rx_filters)
{
	if (rx_filters & (1u << HWTSTAMP_FILTER_PTP_V2_L4_EVENT))
		return HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	if (rx_filters & (1u << HWTSTAMP_FILTER_PTP_V2_EVENT))
		return HWTSTAMP_FILTER_PTP_V2_EVENT;
	return HWTSTAMP_FILTER_NONE;
}

enum phc_hw_mode phc_ts_info_mode(const struct phc_ts_info *info, int *ptp_filter)
{
	int filter = HWTSTAMP_FILTER_NONE;
	enum phc_hw_mode mode = PHC_HW_NONE;

	if (phc_ts_info_hw(info) && (info->tx_types & (1u << HWTSTAMP_TX_ON))) {
		if (info->rx_filters & (1u << HWTSTAMP_FILTER_ALL)) {
			mode = PHC_HW_ALL;
			filter = HWTSTAMP_FILTER_ALL;
		} else {
			filter = ptp_event_filter(info->rx_filters);
			if (filter != HWTSTAMP_FILTER_NONE)
				mode = PHC_HW_PTP_ONLY;
		}
	}
	if (ptp_filter)
		*ptp_filter = filter;
	return mode;
}

static const char *const sof_names[] = {
	"hardware-transmit",	/* SOF_TIMESTAMPING_TX_HARDWARE */
	"software-transmit",	/* SOF_TIMESTAMPING_TX_SOFTWARE */
	"hardware-receive",	/* SOF_TIMESTAMPING_RX_HARDWARE */
	"software-receive",	/* SOF_TIMESTAMPING_RX_SOFTWARE */
	"software-system-clock", /* SOF_TIMESTAMPING_SOFTWARE */
	"hardware-legacy-clock", /* SOF_TIMESTAMPING_SYS_HARDWARE */
	"hardware-raw-clock",	/* SOF_TIMESTAMPING_RAW_HARDWARE */
	"option-id",		/* SOF_TIMESTAMPING_OPT_ID */
	"sched-transmit",	/* SOF_TIMESTAMPING_TX_SCHED */
	"ack-transmit",		/* SOF_TIMESTAMPING_TX_ACK */
	"option-cmsg",		/* SOF_TIMESTAMPING_OPT_CMSG */
	"option-tsonly",	/* SOF_TIMESTAMPING_OPT_TSONLY */
	"option-stats",		/* SOF_TIMESTAMPING_OPT_STATS */
	"option-pktinfo",	/* SOF_TIMESTAMPING_OPT_PKTINFO */
	"option-tx-swhw",	/* SOF_TIMESTAMPING_OPT_TX_SWHW */
	"bind-phc",		/* SOF_TIMESTAMPING_BIND_PHC */
	"option-id-tcp",	/* SOF_TIMESTAMPING_OPT_ID_TCP */
	"option-rx-filter",	/* SOF_TIMESTAMPING_OPT_RX_FILTER */
};

static const char *const tx_type_names[] = {
	"off",			/* HWTSTAMP_TX_OFF */
	"on",			/* HWTSTAMP_TX_ON */
	"onestep-sync",		/* HWTSTAMP_TX_ONESTEP_SYNC */
	"onestep-p2p",		/* HWTSTAMP_TX_ONESTEP_P2P */
};

static const char *const rx_filter_names[] = {
	"none",			/* HWTSTAMP_FILTER_NONE */
	"all",			/* HWTSTAMP_FILTER_ALL */
	"some",			/* HWTSTAMP_FILTER_SOME */
	"ptpv1-l4-event",	/* HWTSTAMP_FILTER_PTP_V1_L4_EVENT */
	"ptpv1-l4-sync",
	"ptpv1-l4-delay-req",
	"ptpv2-l4-event",	/* HWTSTAMP_FILTER_PTP_V2_L4_EVENT */
	"ptpv2-l4-sync",
	"ptpv2-l4-delay-req",
	"ptpv2-l2-event",	/* HWTSTAMP_FILTER_PTP_V2_L2_EVENT */
	"ptpv2-l2-sync",
	"ptpv2-l2-delay-req",
	"ptpv2-event",		/* HWTSTAMP_FILTER_PTP_V2_EVENT */
	"ptpv2-sync",
	"ptpv2-delay-req",
	"ntp-all",		/* HWTSTAMP_FILTER_NTP_ALL */
};

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof((table)[0]) ? (table)[i] : NULL)

const char *phc_sof_name(unsigned int bit)
{
	return NAME_OF(sof_names, bit);
}

const char *phc_tx_type_name(unsigned int type)
{
	return NAME_OF(tx_type_names, type);
}

const char *phc_rx_filter_name(unsigned int filter)
{
	return NAME_OF(rx_filter_names, filter);
}

/* snprintf at buf + used, however much of buf is left. */
static int append(char *buf, size_t len, size_t used, const char *sep,
		  const char *s, unsigned int bit)
{
	char *at = buf + (used < len ? used : len);
	size_t room = used < len ? len - used : 0;

	if (s)
		return snprintf(at, room, "%s%s", used ? sep : "", s);
	return snprintf(at, room, "%sbit-%u", used ? sep : "", bit);
}

int phc_names(char *buf, size_t len, uint32_t mask,
	      const char *(*name)(unsigned int), const char *sep)
{
	size_t used = 0;
	unsigned int bit;
	int n;

	if (len)
		buf[0] = '\0';
	if (!mask)
		return snprintf(buf, len, "none");
	for (bit = 0; bit < 32; bit++) {
		if (!(mask & (1u << bit)))
			continue;
		n = append(buf, len, used, sep, name(bit), bit);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}

/* ---- the PHC against the system clock ---- */

struct phc_point {
	int64_t sys_ns;
	int64_t offset_ns;
};

struct phc {
	int fd;
	char path[32];
	enum phc_method method;
	int64_t *kept_sys, *kept_off;	/* for the fit, max entries each */
	unsigned int max, n_kept;
	unsigned int stride;		/* keep every stride-th reading */
	unsigned int pending;		/* readings since the last kept one */
	unsigned int samples;		/* readings taken */
	struct phc_point first, last;
	int64_t max_abs_ns;
};

const char *phc_method_name(enum phc_method m)
{
	switch (m) {
	case PHC_METHOD_PRECISE:
		return "precise";
	case PHC_METHOD_EXTENDED:
		return "extended";
	case PHC_METHOD_BASIC:
		return "basic";
	default:
		return "none";
	}
}

int phc_create(struct phc **out, int phc_index, unsigned int max_samples)
{
	struct phc *p;
	int ret;

	if (phc_index < 0 || max_samples < 2)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->kept_sys = calloc(max_samples, sizeof(*p->kept_sys));
	p->kept_off = calloc(max_samples, sizeof(*p->kept_off));
	if (!p->kept_sys || !p->kept_off) {
		ret = -ENOMEM;
		goto failed;
	}
	p->max = max_samples;
	p->stride = 1;
	snprintf(p->path, sizeof(p->path), "/dev/ptp%d", phc_index);
	p->fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		ret = -errno;
		goto failed;
	}
	*out = p;
	return 0;
failed:
	free(p->kept_sys);
	free(p->kept_off);
	free(p);
	return ret;
}

void phc_destroy(struct phc *p)
{
	if (!p)
		return;
	close(p->fd);
	free(p->kept_sys);
	free(p->kept_off);
	free(p);
}

const char *phc_path(const struct phc *p)
{
	return p->path;
}

int phc_fd(const struct phc *p)
{
	return p->fd;
}

enum phc_method phc_method(const struct phc *p)
{
	return p->method;
}

static int64_t ptp_to_ns(const struct ptp_clock_time *t)
{
	return (int64_t)t->sec * NS_PER_SEC + t->nsec;
}

/* Of n (sys, phc, sys) triples, the one with the shortest interval. */
static void best_triple(struct phc_reading *out, int64_t t1, int64_t phc, int64_t t2)
{
	int64_t delay = t2 - t1;

	if (out->delay_ns >= 0 && delay >= out->delay_ns)
		return;
	out->delay_ns = delay;
	out->sys_ns = t1 + delay / 2;
	out->offset_ns = phc - out->sys_ns;
}

static int read_precise(int fd, struct phc_reading *out)
{
	struct ptp_sys_offset_precise o;

	memset(&o, 0, sizeof(o));
	if (ioctl(fd, PTP_SYS_OFFSET_PRECISE, &o))
		return -errno;
	out->sys_ns = ptp_to_ns(&o.sys_realtime);
	out->offset_ns = ptp_to_ns(&o.device) - out->sys_ns;
	out->delay_ns = 0;
	return 0;
}

static int read_extended(int fd, unsigned int n, struct phc_reading *out)
{
	struct ptp_sys_offset_extended o;
	unsigned int i;

	memset(&o, 0, sizeof(o));
	o.n_samples = n;
	if (ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &o))
		return -errno;
	out->delay_ns = -1;
	for (i = 0; i < n; i++)
		best_triple(out, ptp_to_ns(&o.ts[i][0]), ptp_to_ns(&o.ts[i][1]),
			    ptp_to_ns(&o.ts[i][2]));
	return 0;
}

static int read_basic(int fd, unsigned int n, struct phc_reading *out)
{
	struct ptp_sys_offset o;
	unsigned int i;

	memset(&o, 0, sizeof(o));
	o.n_samples = n;
	if (ioctl(fd, PTP_SYS_OFFSET, &o))
		return -errno;
	out->delay_ns = -1;
	for (i = 0; i < n; i++)
		best_triple(out, ptp_to_ns(&o.ts[2 * i]), ptp_to_ns(&o.ts[2 * i + 1]),
			    ptp_to_ns(&o.ts[2 * i + 2]));
	return 0;
}

static int read_with(int fd, enum phc_method m, unsigned int n, struct phc_reading *out)
{
	switch (m) {
	case PHC_METHOD_PRECISE:
		return read_precise(fd, out);
	case PHC_METHOD_EXTENDED:
		return read_extended(fd, n, out);
	case PHC_METHOD_BASIC:
		return read_basic(fd, n, out);
	default:
		return -EINVAL;
	}
}

/* An answer that means "this driver lacks the method": try the next. */
static bool method_missing(int err)
{
	return err == -EOPNOTSUPP || err == -ENOTTY || err == -EINVAL;
}

int phc_read(struct phc *p, unsigned int n, struct phc_reading *out)
{
	enum phc_method m;
	int ret;

	if (n < 1 || n > PTP_MAX_SAMPLES)
		return -EINVAL;
	if (p->method != PHC_METHOD_NONE) {
		ret = read_with(p->fd, p->method, n, out);
		out->method = p->method;
		return ret;
	}
	for (m = PHC_METHOD_PRECISE; m <= PHC_METHOD_BASIC; m++) {
		ret = read_with(p->fd, m, n, out);
		if (!ret) {
			p->method = m;
			out->method = m;
			return 0;
		}
		if (!method_missing(ret))
			return ret;
	}
	return -EOPNOTSUPP;
}

/* Full: keep every other sample, and from now on every other reading. */
static void decimate(struct phc *p)
{
	unsigned int i;

	for (i = 0; 2 * i < p->n_kept; i++) {
		p->kept_sys[i] = p->kept_sys[2 * i];
		p->kept_off[i] = p->kept_off[2 * i];
	}
	p->n_kept = i;
	p->stride *= 2;
}

static void keep(struct phc *p, const struct phc_reading *r)
{
	struct phc_point s = { .sys_ns = r->sys_ns, .offset_ns = r->offset_ns };
	int64_t a = s.offset_ns < 0 ? -s.offset_ns : s.offset_ns;

	if (!p->samples++)
		p->first = s;
	p->last = s;
	if (a > p->max_abs_ns)
		p->max_abs_ns = a;
	if (++p->pending < p->stride)
		return;
	p->pending = 0;
	if (p->n_kept == p->max)
		decimate(p);
	p->kept_sys[p->n_kept] = s.sys_ns;
	p->kept_off[p->n_kept] = s.offset_ns;
	p->n_kept++;
}

int phc_sample(struct phc *p, unsigned int n, struct phc_reading *out)
{
	struct phc_reading r;
	int ret;

	ret = phc_read(p, n, &r);
	if (ret)
		return ret;
	keep(p, &r);
	if (out)
		*out = r;
	return 0;
}

int phc_fit(const int64_t *t_ns, const int64_t *y_ns, unsigned int n,
	    double *slope_ppb, double *intercept_ns)
{
	double mt = 0, my = 0, sxx = 0, sxy = 0, x, y;
	unsigned int i;

	if (n < 2)
		return -EINVAL;
	/* Relative to the first point: doubles keep ns over days. */
	for (i = 0; i < n; i++) {
		mt += (double)(t_ns[i] - t_ns[0]) / 1e9;
		my += (double)(y_ns[i] - y_ns[0]);
	}
	mt /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		x = (double)(t_ns[i] - t_ns[0]) / 1e9 - mt;
		y = (double)(y_ns[i] - y_ns[0]) - my;
		sxx += x * x;
		sxy += x * y;
	}
	if (sxx <= 0)
		return -EINVAL;
	*slope_ppb = sxy / sxx;
	*intercept_ns = (double)y_ns[0] + my - *slope_ppb * mt;
	return 0;
}

int phc_summary(const struct phc *p, struct phc_summary *out)
{
	double intercept;
	int ret;

	memset(out, 0, sizeof(*out));
	out->method = p->method;
	if (!p->samples)
		return -ENODATA;
	out->samples = p->samples;
	out->fitted = p->n_kept;
	out->offset_start_ns = p->first.offset_ns;
	out->offset_end_ns = p->last.offset_ns;
	out->offset_max_abs_ns = p->max_abs_ns;
	ret = phc_fit(p->kept_sys, p->kept_off, p->n_kept, &out->drift_ppb, &intercept);
	out->drift_valid = !ret;
	if (ret)
		out->drift_ppb = 0;
	return 0;
}
