/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clocks during a run (doc/measurements.md, Clocks):
 *
 * - The NIC clock (PHC) against the system clock, where the run's wire
 *   stamps are the NIC's: one offset reading before the warm-up, one every
 *   --phc-interval (default 1 s) from a sampler thread, one at the end.
 *   The thread runs on the CPUs the measuring thread does not use (when
 *   there are any), at SCHED_OTHER; it only reads the PHC and stores the
 *   reading in memory phc.c allocated before the run. The packet loop
 *   never waits for it and takes no lock.
 * - Between the two hosts (emitter): from the four wire stamps of each
 *   transaction, theta = ((T2 - T1) - (T4 - T3)) / 2, the reflector's wire
 *   clock minus the emitter's if the paths are symmetric; its median (a
 *   log-linear histogram of the deviations from the first value, exact
 *   within +-2048 ns of it) and its drift (a running least-squares fit of
 *   theta against T1 through the least-delayed transaction of each bin of
 *   T1, see struct fit_bins in fit.h).
 * - The judgement at the end: which components can be trusted (those that
 *   subtract a system-clock stamp from a NIC stamp need the two clocks to
 *   agree; the one-way delays need the two hosts' clocks to agree), and the
 *   warnings, each with its fix.
 */
#ifndef RANT_CLOCK_H
#define RANT_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fit.h"
#include "metric.h"
#include "timeutil.h"
#include "phc.h"
#include "record.h"

#define CLOCK_PHC_READS 5		/* readings per sample, the best kept (phc2sys -N 5) */
#define CLOCK_PHC_SAMPLES 4096		/* kept for the drift fit (then decimated) */
#define CLOCK_MAX_WARNINGS 8
#define CLOCK_WARNING_LEN 480
#define CLOCK_WHY_LEN 160

struct clock_cfg {
	const char *iface;
	bool hw;			/* the wire stamps are the NIC's: check its PHC */
	bool emit;			/* emitter: theta from the four stamps */
	bool one_way;			/* --one-way: the hosts' clocks must agree */
	bool ack;			/* ACK stamps (--tcp): emit_ack crosses the clocks too */
	int64_t max_offset_ns;		/* --max-clock-offset */
	int64_t interval_ns;		/* --phc-interval; 0: at start and end only */
	bool hugepages;			/* -G: theta's histogram in hugepages */
	bool stream;			/* --tcp: a stamp is a segment's, not a message's */
	const char *theta_unusable;	/* why theta cannot be an offset (set-up
					 * knows: Nagle with --writes), or NULL */
	bool one_host;			/* the reflector's address is this host's:
					 * one clock on both ends */
	bool host_tag_known;		/* emitter: host_tag is this kernel's */
	uint64_t host_tag;		/* ... hostid_tag() of the session */
};

struct clock;

/*
 * Read iface's timestamping capabilities and, when cfg->hw, open its PHC;
 * allocate everything the run needs. A PHC that cannot be found or opened
 * is not an error here: the report says so. 0, or -ENOMEM (err says it).
 */
int clock_create(struct clock **out, const struct clock_cfg *cfg, char *err,
		 size_t len);
void clock_destroy(struct clock *c);

/*
 * Before the warm-up: the first PHC reading, then the sampler thread
 * (with a PHC and an interval). A thread that cannot start is reported
 * on stderr; the run goes on with the start and end readings.
 */
void clock_start(struct clock *c);

/* After the loop: stop the sampler, then the last reading. */
void clock_stop(struct clock *c);

/*
 * Reflector, per pong: does this side's last PHC reading differ from the
 * system clock by more than the bound (or was the PHC not readable)? The
 * pong says so (MSG_F_CLOCK_BAD). One relaxed atomic load.
 */
bool clock_bad_now(const struct clock *c);

/* Emitter, per pong with a body: count the reflector's MSG_F_CLOCK_BAD,
 * and its host tags (MSG_F_HOST, warm-up pongs) that are this kernel's. */
void clock_pong(struct clock *c, uint16_t flags, uint64_t host_tag);

/* Emitter: a measured transaction whose T3 arrived: theta into the median
 * and the fit (when all four wire stamps are there). Hot-path safe. */
void clock_peer_add(struct clock *c, const struct txrec *rec);

/* theta of rec, ns; false when a wire stamp is missing. */
bool clock_theta(const struct txrec *rec, int64_t *theta_ns);

/*
 * The shortest span theta's drift is told from, s: theta moves by a few
 * µs from one transaction to the next (the paths' own jitter), and over
 * 0.03 s that reads as a drift of 100 ppm (a run of 0.03 s reported
 * -112,962 ppb); over 1 s the same µs is 1 ppm, the size of a real
 * drift between two free-running clocks. Below it no drift is reported.
 */
#define CLOCK_DRIFT_MIN_S 1.0

/* Everything the summary says about the clocks (text and JSON). */
struct clock_report {
	char iface[32];
	bool emit, hw, one_way, ack;
	int64_t max_offset_ns;
	/* capabilities (ETHTOOL_GET_TS_INFO) */
	bool have_ts_info;
	struct phc_ts_info ts_info;
	/* the PHC against the system clock */
	bool have_phc;			/* opened */
	char phc[32];			/* "/dev/ptp0", or "" */
	char phc_error[CLOCK_WHY_LEN];	/* why not opened or not read, or "" */
	bool have_phc_samples;
	struct phc_summary phc_sum;
	double phc_span_s;		/* first to last reading */
	unsigned int phc_read_errors;
	uint64_t sampler_cpus;		/* bit n: the thread read on CPU n (< 64) */
	int64_t interval_ns;
	/* between the hosts (emitter) */
	uint64_t peer_samples;
	unsigned int peer_fitted;	/* bins in theta's fit */
	int64_t peer_offset_ns;		/* median theta */
	int64_t peer_min_ns, peer_max_ns;
	bool peer_drift_valid;		/* a slope, over CLOCK_DRIFT_MIN_S or more */
	double peer_drift_ppb;
	double peer_span_s;		/* the fit's first to last pick */
	uint64_t pongs, pongs_clock_bad;	/* pongs with a body; of them flagged */
	/* the judgement */
	bool local_trusted;		/* this host's SW-to-HW components */
	bool peer_trusted;		/* emitter: the reflector's */
	bool hosts_trusted;		/* emitter: one-way delays */
	char local_why[CLOCK_WHY_LEN], peer_why[CLOCK_WHY_LEN], hosts_why[CLOCK_WHY_LEN];
	bool stream, one_host;		/* as clock_cfg, or host_same */
	uint64_t host_tags;		/* pongs that carried the reflector's host tag */
	bool host_same;			/* ... all of them this kernel's: one clock */
	char theta_why[CLOCK_WHY_LEN];	/* theta is no offset: why; "" usable */
	unsigned int nwarn;
	char warn[CLOCK_MAX_WARNINGS][CLOCK_WARNING_LEN];
	const char *warn_code[CLOCK_MAX_WARNINGS];	/* stable, as warn.h's */
	const char *warn_fix[CLOCK_MAX_WARNINGS];
};

/*
 * What the clocks read now, for the live metrics' gauges: safe from any
 * thread while the loop and the sampler run (the sampler publishes each
 * reading and the drift fitted through the readings so far in atomics;
 * theta's median is its histogram read as the snapshot reads the
 * metrics'). After clock_stop(), the values of clock_report().
 */
struct clock_live {
	bool have_phc;			/* a PHC reading succeeded */
	int64_t phc_offset_ns;		/* the last: PHC - system */
	bool phc_drift_valid;
	double phc_drift_ppb;		/* fitted through the readings so far */
	uint64_t peer_samples;		/* emitter: thetas so far */
	int64_t peer_offset_ns;		/* their median */
};

void clock_live(const struct clock *c, struct clock_live *out);

/* The report at the end of the run (after clock_stop). */
void clock_report(const struct clock *c, struct clock_report *out);

/*
 * The judgement from the numbers in cr (trusted flags, reasons,
 * warnings): clock_report() calls it; apart for the tests.
 */
void clock_judge(struct clock_report *cr);

/* Why metric d (of this side) cannot be trusted, or NULL when it can. */
const char *clock_metric_untrusted(const struct clock_report *cr,
				   const struct metric_def *d);

#endif
