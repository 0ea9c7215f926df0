// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SO_TIMESTAMPING: socket and NIC set-up, control-message parsing.
 * The error-queue matching follows the kernel's txtimestamp.c: a report
 * is an IP(V6)_RECVERR with SO_EE_ORIGIN_TIMESTAMPING and ee_errno ENOMSG,
 * keyed by ee_data (OPT_ID), beside an SCM_TIMESTAMPING block.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "missing.h"
#include "timeutil.h"
#include "ts.h"

static bool cmsg_is_tstamp(const struct cmsghdr *c)
{
	return c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING;
}

static bool cmsg_is_recverr(const struct cmsghdr *c)
{
	return (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
	       (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
}

static int read_tstamp(const struct cmsghdr *c, struct ts_stamps *out)
{
	struct scm_timestamping tss;

	if (c->cmsg_len < CMSG_LEN(sizeof(tss)))
		return -EINVAL;
	memcpy(&tss, CMSG_DATA(c), sizeof(tss));
	out->kn_ns = timespec_to_ns(&tss.ts[0]);
	out->hw_ns = timespec_to_ns(&tss.ts[2]);
	return 0;
}

int ts_parse_rx(const struct msghdr *msg, struct ts_stamps *out)
{
	struct cmsghdr *c;

	if (msg->msg_flags & MSG_CTRUNC)
		return -EINVAL;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c))
		if (cmsg_is_tstamp(c))
			return read_tstamp(c, out);
	return -ENOENT;
}

int ts_parse_tx(const struct msghdr *msg, struct ts_tx *out)
{
	struct sock_extended_err ee;
	bool have_ts = false, have_ee = false;
	struct cmsghdr *c;
	int err;

	if (msg->msg_flags & MSG_CTRUNC)
		return -EINVAL;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (cmsg_is_tstamp(c)) {
			err = read_tstamp(c, &out->ts);
			if (err)
				return err;
			have_ts = true;
		} else if (cmsg_is_recverr(c)) {
			if (c->cmsg_len < CMSG_LEN(sizeof(ee)))
				return -EINVAL;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			have_ee = true;
		}
	}
	if (!have_ee || ee.ee_origin != SO_EE_ORIGIN_TIMESTAMPING ||
	    ee.ee_errno != ENOMSG)
		return -ENOMSG;
	if (!have_ts)
		return -EINVAL;
	out->key = ee.ee_data;
	out->type = ee.ee_info;
	return 0;
}

int ts_sock_enable(int fd, bool hw)
{
	unsigned int flags = SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY |
			     SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE;

	/* With TX_HARDWARE the driver suppresses the TX software stamp. */
	if (hw)
		flags |= SOF_TIMESTAMPING_RAW_HARDWARE |
			 SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_TX_HARDWARE;
	else
		flags |= SOF_TIMESTAMPING_TX_SOFTWARE;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
		return -errno;
	return 0;
}

static int hwts_ioctl(int fd, const char *iface, unsigned long req,
		      struct hwtstamp_config *cfg)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)cfg;
	return ioctl(fd, req, &ifr) ? -errno : 0;
}

int ts_hw_enable(int fd, const char *iface, char *err, size_t errlen)
{
	struct hwtstamp_config want = {
		.tx_type = HWTSTAMP_TX_ON,
		.rx_filter = HWTSTAMP_FILTER_ALL,
	}, cfg = want;
	int ret;

	ret = hwts_ioctl(fd, iface, SIOCSHWTSTAMP, &cfg);
	if (ret) {
		/* Someone (ptp4l) may have set it already: accept that. */
		struct hwtstamp_config cur = { 0 };

		if (!hwts_ioctl(fd, iface, SIOCGHWTSTAMP, &cur) &&
		    cur.tx_type == want.tx_type &&
		    cur.rx_filter == want.rx_filter)
			return 0;
		if (ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ERANGE)
			snprintf(err, errlen,
				 "%s: no hardware timestamping (ethtool -T %s lists none)",
				 iface, iface);
		else if (ret == -EPERM)
			snprintf(err, errlen,
				 "%s: SIOCSHWTSTAMP needs CAP_NET_ADMIN: run as root, or with -R for kernel stamps",
				 iface);
		else
			snprintf(err, errlen, "%s: ioctl SIOCSHWTSTAMP failed: %s",
				 iface, strerror(-ret));
		return ret == -EINVAL || ret == -ERANGE ? -EOPNOTSUPP : ret;
	}
	if (cfg.tx_type != want.tx_type || cfg.rx_filter != want.rx_filter) {
		snprintf(err, errlen,
			 "%s: driver applied tx_type %d rx_filter %d, not %d/%d (every packet)",
			 iface, cfg.tx_type, cfg.rx_filter, want.tx_type,
			 want.rx_filter);
		return -EOPNOTSUPP;
	}
	return 0;
}
