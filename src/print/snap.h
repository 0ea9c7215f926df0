/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The numbers of a run, taken once (chrony's RPT_* reports): data only,
 * filled by the modules that own them (hist.c the statistics, clock.c the
 * clock report, session.c the sessions, series.c the intervals,
 * capture.c the capture check) and formatted by a renderer that computes
 * nothing: summary_print() for the text and the JSON, and any later
 * format (the Prometheus text) from the same struct.
 *
 * What a snapshot may read while the loop runs (SNAP_LIVE, from another
 * thread, without stopping the loop):
 *   - the counts (struct counts) and the histograms of the metrics, of
 *     rtt_intended and of the sweep's sizes: 64-bit words each written by
 *     the loop alone and read whole on the 64-bit targets rant builds for.
 *     They are not read at one instant: a count and a histogram may be a
 *     few pings apart, and a percentile is of the counts as the scan found
 *     them. Counters never go backwards between two snapshots.
 * What only a final snapshot (SNAP_FINAL: after the loop, the log's
 * writer, the capture and the clock's sampler stopped) holds, because a
 * thread rewrites it without a lock: the sessions (the loop evicts and
 * reuses entries), the breaches (the loop fills them), the series' rows
 * (the reporter thread grows the array), the capture result, the log's
 * counts, the clock report (the sampler's readings), the warnings and the
 * diagnosis.
 * A live snapshot has them absent (have_* false, n* 0), but for two
 * read with care: the sessions (sessions_snapshot_live: a consistent
 * table or none) and what the clocks read now (clock_live).
 */
#ifndef RANT_SNAP_H
#define RANT_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "breakdown.h"
#include "capture.h"
#include "clock.h"
#include "counts.h"
#include "fleettab.h"
#include "hist.h"
#include "hwts.h"
#include "jitter.h"
#include "metric.h"
#include "pathdiag.h"
#include "probecount.h"
#include "pairdiag.h"
#include "segdiag.h"
#include "srvjudge.h"
#include "cfg.h"
#include "record.h"
#include "series.h"
#include "session.h"
#include "stamppeer.h"
#include "sweep.h"
#include "sweepstat.h"
#include "transport.h"
#include "warn.h"

/* The percentiles every metric reports, and their JSON keys. */
#define SNAP_NPCT 7
extern const double snap_pcts[SNAP_NPCT];
extern const char *const snap_pct_keys[SNAP_NPCT];
#define SNAP_P99 3	/* snap_pcts[SNAP_P99] is 99 */

/* One metric's statistics (a histogram read once). */
struct xdp_report;
struct snap_stats {
	const char *key;		/* "rtt", "rtt_intended", ... */
	const char *label;
	const char *untrusted;		/* why its clocks disagree (in the snapshot's
					 * clock report), or NULL */
	struct hist_stats st;
	int64_t pct[SNAP_NPCT];		/* ns, at snap_pcts */
	size_t nhdr;
	struct hist_bucket *hdr;	/* the non-empty log-linear buckets */
	const char *precision;		/* a sweepstat's percentiles (no hdr), or
					 * NULL: a full histogram's */
};

/* The primary metric's linear histogram (-H; always in the JSON). */
struct snap_linear {
	const char *metric;
	int64_t bucket_ns, overflow_ns;
	uint64_t overflow, underflow;
	size_t n;
	struct snap_bucket {
		int64_t lo_ns;
		uint64_t count;
	} *b;				/* the non-empty buckets, in order */
};

/* One size of a sweep. */
struct snap_size {
	uint32_t size;
	uint64_t sent, lost;
	struct snap_stats rtt;
	bool have[M_COUNT];		/* its other metrics (not rtt) with samples */
	struct snap_stats m[M_COUNT];	/* ... their statistics (sweepstat.h) */
	bool delack;			/* its round trips wait on a delayed ACK
					 * (diagnose.h) */
};

/* What a breach's breakdown needs besides the transaction. */
struct snap_breach_ctx {
	bool emit;
	enum metric_id primary;		/* the run's main metric */
	enum metric_id metric;		/* the metric -t watches (the breaches'), and
					 * the one their spike is looked for in */
	bool probe;			/* --syn, --http: a service's, no path to break down */
	bool hw, peer_hw;		/* this side's wire stamps, the reflector's */
	const char *peer_w;		/* the reflector's suffix, or NULL (txlog.h) */
	const char *peer_w3;		/* its T3's, or NULL: peer_w's */
	int64_t threshold_ns;
	uint32_t size;
};

struct snap_breach {
	struct txrec rec;
	int64_t latency_ns;
	struct breakdown bd;
};

/* A fleet's (--targets, --paths): each target, each of its paths, and
 * the paths that stand out (fleetsnap.c takes them, fleetout.c prints
 * them, prom.c renders their metrics). */
struct snap_path {
	uint32_t id;			/* its source port, or flow label */
	struct fleet_counts cnt;
	struct snap_stats rtt;		/* percentiles alone (no buckets) */
	unsigned int named;		/* bit k: a finding of kind k names it */
};

struct snap_target {
	char name[TARGET_NAME_LEN];	/* ADDR:PORT, its peer */
	char label[TARGET_LABEL_LEN];	/* name=, else its peer */
	const char *kind;		/* targets_kind_name() */
	int64_t interval_ns;		/* its pings' */
	char addr[TARGET_NAME_LEN];
	uint16_t port;
	int dscp;			/* of its pings */
	unsigned int line;		/* in --targets */
	uint32_t session;
	int64_t added_ns;		/* measured from, CLOCK_REALTIME */
	struct fleet_counts cnt;
	struct snap_stats rtt;		/* with its buckets (its histogram series) */
	struct snap_path *path;		/* the fleet's npaths, or NULL */
};

struct snap_finding {
	size_t target;			/* index into snap_fleet.t */
	struct pathdiag d;
};

/* One of a fleet's sockets (fleetset.h). */
struct snap_sock {
	uint16_t port;			/* its source port (its group's) */
	uint64_t drops;			/* datagrams the kernel dropped at its queue */
};

struct snap_fleet {
	size_t n;			/* targets measured (the table's active ones) */
	struct snap_target *t;
	size_t *order;			/* t's indices, worst first */
	unsigned int npaths;
	bool flow_label;		/* path ids are flow labels, not ports */
	size_t cap;			/* the table's slots */
	size_t target_bytes;		/* a target's memory (fleettab_target_bytes) */
	unsigned int nsk, share;	/* its sockets, and how many share a port */
	int rcvbuf, rcvbuf_asked;	/* each one's receive buffer, bytes */
	struct snap_sock *sock;		/* nsk of them */
	size_t nfind;
	struct snap_finding *find;	/* the paths that stand out, by target */
};

/* -T: what became of the trace at the first breach. */
struct snap_trace {
	const char *dir;		/* the instance */
	const char *clock;		/* its trace_clock */
	int cpu;			/* where the marker was written */
	int err;			/* 0: marked and frozen; -EALREADY: frozen before
					 * (the other side's breach); else failed */
};

enum snap_kind {
	SNAP_FINAL,			/* after the run: everything */
	SNAP_LIVE,			/* during it: counts and histograms only */
};

struct snap {
	enum snap_kind kind;
	const struct rant_cfg *cfg;	/* read-only for the whole run */
	/* the run */
	bool emit;
	bool hw;			/* this side's wire stamps are the NIC's */
	const char *hw_note;		/* why not */
	unsigned int ts_flags;		/* SO_TIMESTAMPING asked for (sk_ts_flags) */
	bool peer_body, peer_hw;	/* emitter: pongs carried the reflector's
					 * stamps; they are the NIC's */
	bool have_peer_report;		/* emitter of a format with the reflector's
					 * report (rant's own, --ptp-mode) */
	struct msg_report peer_report;	/* ... what it reported (.have: it did) */
	uint32_t session;
	struct probe_counts probe;	/* --syn, --http: the probe's own counts */
	struct segdiag_result diag;	/* --http, --tcp, final only: the packets said */
	struct pairdiag_left diag_left;	/* --tcp: the capture given up (.left_out) */
	const struct srv_view *server;	/* --server-pid, final only: the server's side */
	struct srvjudge server_judge;	/* ... the packets' verdict held against it */
	const struct srv_view *client;	/* --client-pid, final only */
	int64_t start_ns, end_ns;	/* CLOCK_REALTIME; end: when taken, live */
	const char *stop_reason;	/* NULL: still running */
	struct counts cnt;
	const struct xdp_report *xdp;	/* reflect --xdp (xdpmap.h), NULL: not asked */
	/* the log (-l) */
	bool have_log;
	uint64_t logged, log_overwritten, log_dropped;
	/* --tcp */
	struct tcp_stats tcp;
	/* the metrics in metric_defs order, those with a row in the summary */
	enum metric_id primary;
	bool shown[M_COUNT];
	bool unknown[M_COUNT];		/* in the run, but not one sample: the
					 * stamps it needs never came */
	struct snap_stats metric[M_COUNT];
	bool have_rtt_intended;
	struct snap_stats rtt_intended;
	bool network_stack;		/* --stamp: network holds the reflector's host
					 * stack (its stamps are software ones) */
	bool have_jitter;		/* emitter: IPDV and RFC 3550's (jitter.h) */
	struct jitter_stats jitter[JITTER_NWAYS];
	struct snap_linear hist;	/* the primary metric's */
	/* -m LIST or RANGE */
	unsigned int nsizes;
	struct snap_size sizes[RANT_MAX_SIZES];
	bool size_shown[M_COUNT];	/* metrics some size has (rtt: any size) */
	bool have_fit;
	struct sweep_fit fit;		/* through the medians of the measured sizes */
	unsigned int nfitted;		/* sizes with samples */
	uint32_t fitted_size[RANT_MAX_SIZES];	/* those sizes, their p50s */
	int64_t fitted_p50[RANT_MAX_SIZES];
	unsigned int nregimes;		/* where one line does not hold (sweep.h),
					 * indices into fitted_size */
	struct sweep_regime regime[RANT_MAX_SIZES];
	uint32_t frag_above;		/* UDP payload above which IP fragments; 0 */
	/* final only */
	bool have_diagnosis;
	char diagnosis[512];
	bool have_sessions;
	struct sessions_snap sessions;
	bool have_series;
	struct series_snap series;
	bool have_capture;
	struct capture_result capture;
	struct snap_breach_ctx breach_ctx;
	unsigned int nbreach;
	struct snap_breach *breach;	/* the largest kept, largest first */
	bool have_breach_first;		/* cnt.breaches > 0 */
	struct snap_breach breach_first;	/* the first: the trace's */
	bool have_trace;		/* -T */
	struct snap_trace trace;
	const struct warnings *warn;	/* printed at set-up (warn.h); NULL live */
	bool have_clock;
	struct clock_report clock;
	/* live and final: the clocks now (the final's as clock_report's) */
	bool have_clock_live;
	struct clock_live clock_live;
	struct hwts hwts;
	struct stamppeer stamp_peer;	/* --stamp, emitter: what the reflector said */
	struct snap_fleet *fleet;	/* a fleet's, live and final; NULL: not one */
};

struct run;

/*
 * Take the numbers of r: the whole of them (SNAP_FINAL, after the run,
 * with the socket's drops read into r's counts), or those safe to read
 * while the loop runs (SNAP_LIVE, see above). NULL with errno ENOMEM.
 */
struct snap *snap_build(struct run *r, enum snap_kind kind);
void snap_free(struct snap *s);

/* A histogram's statistics into st (its buckets allocated): 0 or -ENOMEM. */
int snap_stats_fill(struct snap_stats *st, const struct hist *h, const char *key,
		    const char *label, const char *untrusted);
void snap_stats_free(struct snap_stats *st);
/* A latstat's (latstat.h) into st, its buckets allocated when buckets
 * (they are for a histogram's series): 0 or -ENOMEM. */
int snap_stats_lat(struct snap_stats *st, const struct latstat *l, const char *key,
		   const char *label, bool buckets);
/* A fleet's part of a snapshot, freed (NULL is fine). */
void snap_fleet_free(struct snap_fleet *f);
/* A sweepstat's statistics into st (nothing allocated). */
void snap_stats_small(struct snap_stats *st, const struct sweepstat *s, const char *key,
		      const char *label, const char *untrusted);

#endif
