/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware timestamping of an interface, decided at start-up before any
 * packet: which wire stamps a run uses (the NIC's, or the kernel's) and
 * why, from what the interface says it can do (ETHTOOL_GET_TS_INFO), what
 * is set on it already (SIOCGHWTSTAMP) and what the driver applies when
 * asked (SIOCSHWTSTAMP, read back).
 *
 * The decision is a pure function of those answers (hwts_decide), so each
 * case is unit-tested without a NIC; hwts_setup() asks the interface and
 * acts on it. Rules:
 *   - rant needs TX on and an RX filter that covers its packets: all of
 *     them (filter all), or with --ptp-mode PTPv2 Sync and Delay_Req over
 *     UDP (ptpv2-l4-event covers them; a broader filter answered by the
 *     driver is accepted);
 *   - a setting already in force that covers them is used as it is; one
 *     set by another process (ptp4l) that does not is widened only when
 *     rant's filter still stamps everything it stamped, and never
 *     silently; else rant leaves it and uses kernel stamps, saying so;
 *   - a NIC that stamps only PTP event packets, without --ptp-mode, is a
 *     set-up error whose line names --ptp-mode and -R.
 */
#ifndef RANT_HWTS_H
#define RANT_HWTS_H

#include <linux/net_tstamp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "phc.h"

struct out;

/* What the interface answered. */
struct hwts_facts {
	bool ptp_mode;			/* --ptp-mode */
	int info_ret;			/* phc_ts_info(): 0 or -errno */
	struct phc_ts_info info;
	int get_ret;			/* SIOCGHWTSTAMP before any set: 0 or -errno */
	struct hwtstamp_config cur;
	bool set_done;			/* SIOCSHWTSTAMP was tried (with want) */
	int set_ret;			/* its result: 0 or -errno */
	struct hwtstamp_config got;	/* what the driver applied (set_ret 0) */
};

enum hwts_verdict {
	HWTS_SET,	/* ask the driver for want, then decide again */
	HWTS_HW,	/* hardware stamps with the setting in use */
	HWTS_KERNEL,	/* kernel stamps: line says why */
	HWTS_REFUSE,	/* a set-up error (exit 1): line says what to do */
};

struct hwts_decision {
	enum hwts_verdict verdict;
	struct hwtstamp_config want;	/* HWTS_SET: what to ask for */
	struct hwtstamp_config use;	/* HWTS_HW: the setting in force */
	int need;			/* the RX filter rant's packets need */
	int err;			/* HWTS_REFUSE: -errno to return */
	bool other;			/* the setting was another process's */
	char line[320];			/* KERNEL, REFUSE: why; HW: a notice or "" */
};

/* Decide from the facts gathered so far (iface names the interface in
 * the line). */
void hwts_decide(const char *iface, const struct hwts_facts *f,
		 struct hwts_decision *d);

/*
 * True when RX filter granted stamps every packet that filter wanted
 * stamps (ptpv2-event covers ptpv2-l4-event, all covers everything;
 * "some" guarantees nothing).
 */
bool hwts_filter_covers(int granted, int wanted);

/* What a run knows of its interface's timestamping. */
struct hwts {
	int info_ret;			/* phc_ts_info(), for -v and the JSON */
	struct phc_ts_info info;
	bool hw;			/* the wire stamps are the NIC's */
	bool use_known;			/* use holds the setting in force */
	struct hwtstamp_config use;
	bool other;			/* set by another process, used as it is */
	char notice[320];		/* said at start-up, when not empty */
};

/*
 * Read iface's capabilities and, unless no_hw (-R), decide and set up its
 * hardware stamps on socket fd. 0 with h filled (h->hw false: the line
 * why is in note); or -errno with the line for the user in err (a NIC
 * that stamps only PTP packets without --ptp-mode, no permission).
 */
int hwts_setup(int fd, const char *iface, bool no_hw, bool ptp_mode,
	       struct hwts *h, char *note, size_t note_len, char *err,
	       size_t err_len);

/* The capabilities as `ethtool -T IFACE` prints them (rant -v). */
void hwts_print_caps(FILE *f, const char *iface, const struct hwts *h);

/* JSON only (clock): "ts_info" (so_timestamping, phc_index, tx_types,
 * rx_filters as names; null when unread) and "hwtstamp" (the setting in
 * force, when known). */
void hwts_print(struct out *o, const struct hwts *h);

#endif
