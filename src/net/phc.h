/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NIC clock: an interface's timestamping capabilities
 * (ETHTOOL_GET_TS_INFO) and their names as `ethtool -T` prints them, and
 * the PTP hardware clock (/dev/ptpN) against the system clock
 * (CLOCK_REALTIME): offset readings with PTP_SYS_OFFSET_PRECISE, else
 * _EXTENDED, else PTP_SYS_OFFSET (the best of several by the shortest
 * system-clock interval, as phc2sys does), kept in a bounded array and
 * fitted for drift.
 *
 * Neither reading nor fitting allocates: the samples are allocated at
 * phc_create(). One thread samples a struct phc at a time.
 */
#ifndef RANT_PHC_H
#define RANT_PHC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- timestamping capabilities ---- */

struct phc_ts_info {
	uint32_t so_timestamping;	/* SOF_TIMESTAMPING_* bits */
	int phc_index;			/* -1: the interface has no PHC */
	uint32_t tx_types;		/* bit n set: HWTSTAMP_TX_* value n */
	uint32_t rx_filters;		/* bit n set: HWTSTAMP_FILTER_* value n */
};

/*
 * Read iface's capabilities (SIOCETHTOOL ETHTOOL_GET_TS_INFO on a socket of
 * its own). 0, -ENODEV (no such interface here), -EOPNOTSUPP (the driver
 * does not answer), or another -errno.
 */
int phc_ts_info(const char *iface, struct phc_ts_info *out);

/* True when info allows HW TX and RX stamps in PHC time (raw clock). */
bool phc_ts_info_hw(const struct phc_ts_info *info);

/* What a NIC's hardware stamps can cover. */
enum phc_hw_mode {
	PHC_HW_NONE,		/* no HW TX/RX stamps in PHC time, or TX cannot be on */
	PHC_HW_ALL,		/* RX filter "all": every packet */
	PHC_HW_PTP_ONLY,	/* only PTP event packets (UDP port 319): --ptp-mode */
};

/*
 * Classify info. For PHC_HW_PTP_ONLY, *ptp_filter (if not NULL) is the
 * HWTSTAMP_FILTER_ to ask for UDP PTPv2 event messages: ptpv2-l4-event,
 * else ptpv2-event (L2 and L4); for the other modes it is
 * HWTSTAMP_FILTER_ALL or HWTSTAMP_FILTER_NONE.
 */
enum phc_hw_mode phc_ts_info_mode(const struct phc_ts_info *info, int *ptp_filter);

/*
 * Names as `ethtool -T` prints them: SOF_TIMESTAMPING_ bit number bit
 * ("hardware-transmit", "software-receive", ...), HWTSTAMP_TX_ value
 * ("off", "on", "onestep-sync", ...), HWTSTAMP_FILTER_ value ("none",
 * "all", "ptpv2-l4-event", ...). NULL for a value without a name.
 */
const char *phc_sof_name(unsigned int bit);
const char *phc_tx_type_name(unsigned int type);
const char *phc_rx_filter_name(unsigned int filter);

/*
 * Write the names of the set bits of mask, separated by sep, into buf
 * (an unnamed bit as "bit-N"; "none" for an empty mask). Returns the
 * length it needed, as snprintf does.
 */
int phc_names(char *buf, size_t len, uint32_t mask,
	      const char *(*name)(unsigned int), const char *sep);

/* ---- the PHC against the system clock ---- */

enum phc_method {
	PHC_METHOD_NONE,	/* not read yet */
	PHC_METHOD_PRECISE,	/* PTP_SYS_OFFSET_PRECISE: a cross timestamp */
	PHC_METHOD_EXTENDED,	/* PTP_SYS_OFFSET_EXTENDED: sys, phc, sys */
	PHC_METHOD_BASIC,	/* PTP_SYS_OFFSET: sys, phc, sys, ... */
};

/* "precise", "extended", "basic" (the JSON's phc_method), or "none". */
const char *phc_method_name(enum phc_method m);

/* One offset reading. */
struct phc_reading {
	int64_t sys_ns;		/* system time of the reading (CLOCK_REALTIME) */
	int64_t offset_ns;	/* PHC - system */
	int64_t delay_ns;	/* system interval around the PHC read; 0: precise */
	enum phc_method method;
};

struct phc;

/*
 * Open /dev/ptp<phc_index> and keep room for max_samples samples (at
 * least 2). *out is set on success. 0, or -errno: -ENOENT no such device,
 * -EACCES not allowed (run as root), -ENOMEM.
 */
int phc_create(struct phc **out, int phc_index, unsigned int max_samples);
void phc_destroy(struct phc *p);

const char *phc_path(const struct phc *p);	/* "/dev/ptp0" */
int phc_fd(const struct phc *p);

/* The method in use (fixed by the first successful phc_read()). */
enum phc_method phc_method(const struct phc *p);

/*
 * Read the offset once: the best of n (1 to 25) readings by the shortest
 * system-clock interval. The first call tries PRECISE, then EXTENDED, then
 * BASIC and keeps the first that works. 0, or -errno (-EOPNOTSUPP: the
 * device answers none of the three).
 */
int phc_read(struct phc *p, unsigned int n, struct phc_reading *out);

/*
 * phc_read() and keep the reading for the fit. When the array is full,
 * every other kept sample is dropped and from then on only every other
 * reading is kept (so the fit spans the whole run in bounded memory); the
 * last reading is always the end offset.
 */
int phc_sample(struct phc *p, unsigned int n, struct phc_reading *out);

struct phc_summary {
	unsigned int samples;		/* readings taken by phc_sample() */
	unsigned int fitted;		/* of which kept for the fit */
	enum phc_method method;
	int64_t offset_start_ns;	/* first reading */
	int64_t offset_end_ns;		/* last reading */
	int64_t offset_max_abs_ns;	/* largest |offset| seen */
	double drift_ppb;		/* fitted slope; 0 when !drift_valid */
	bool drift_valid;		/* at least 2 kept samples over > 0 s */
};

/* Summary of the samples so far; -ENODATA when there are none. */
int phc_summary(const struct phc *p, struct phc_summary *out);

/*
 * Least-squares line through (t_ns[i], y_ns[i]): slope in ns per s (for an
 * offset: ppb), intercept at t_ns[0]. 0, or -EINVAL for fewer than 2
 * points or no spread in time.
 */
int phc_fit(const int64_t *t_ns, const int64_t *y_ns, unsigned int n,
	    double *slope_ppb, double *intercept_ns);

#endif
