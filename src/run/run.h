/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of one run, shared by the packet loops (emit.c, reflect.c),
 * the set-up and the reports. Everything here is allocated and touched
 * by run_setup(), before the first packet; run_teardown() undoes it.
 */
#ifndef RANT_RUN_H
#define RANT_RUN_H

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>

#include "bkeep.h"
#include "clock.h"
#include "counts.h"
#include "fleetset.h"
#include "hist.h"
#include "jitter.h"
#include "metric.h"
#include "msgfmt.h"
#include "openloop.h"
#include "opts.h"
#include "output.h"
#include "probecount.h"
#include "segdiag.h"
#include "record.h"
#include "sock.h"
#include "stamppeer.h"
#include "sweepstat.h"
#include "transport.h"
#include "txlog.h"
#include "warn.h"

struct pairdiag;
struct xdp_report;
struct xdprefl;
struct srv_view;

/* One size of a sweep (-m LIST or RANGE). */
struct sweep_point {
	uint32_t size;		/* bytes */
	struct hist *rtt;	/* this size's round trips */
	struct sweepstat *m[M_COUNT];	/* its other metrics; NULL: not in the run */
	uint64_t first_seq;	/* its first measured ping (pings ascend by size) */
	uint64_t sent, lost;	/* measured pings of this size */
	bool done;		/* measured (not cut short before it) */
};

struct run {
	const struct rant_cfg *cfg;
	const struct transport *tp;	/* how messages travel (transport.h) */
	struct sk sk;			/* its socket */
	struct msgfmt_ctx fmt;		/* how messages are laid out (msgfmt.h) */
	uint32_t session;		/* emitter: this run's id */
	struct hist *hist[M_COUNT];	/* NULL: metric not in this run */
	struct txlog *log;
	struct sessions *sessions;	/* reflector: one per emitter run */
	struct auth *auth;		/* --key, or NULL */
	bool peer_no_key;		/* emitter: a pong came without a MAC */
	struct output out[OUTPUTS_MAX];	/* -l, -j, --metrics: the rows run_setup() got */
	FILE *text;			/* where the text goes (out_text_stream()) */
	struct counts cnt;
	struct xdp_report *xdp;		/* reflect --xdp: what the program did (xdpmap.h) */
	struct xdprefl *xdp_prog;	/* ... the program, attached (reflect's xdprefl.h) */
	bool peer_body;			/* emitter: pongs carried a body */
	bool peer_hw;			/* emitter: reflector's stamps are HW */
	struct msg_report peer_report;	/* emitter: the reflector's side (its pongs'
					 * reports), the latest */
	uint64_t peer_reports;		/* ... pongs that carried one */
	struct stamppeer stamp_peer;	/* emitter, --stamp: what the reflector says */
	const char *stop_reason;	/* why the loop ended, for the report */
	char failure[256];		/* why nothing was measured (exit 2) */
	int trace_err;			/* -errno of the marker/freeze at a breach */
	int64_t start_ns, end_ns;	/* CLOCK_REALTIME of measuring start/end */
	int dma_fd;			/* /dev/cpu_dma_latency held at 0 */
	struct breach *breach;		/* -t: the largest (bkeep.h), allocated at set-up */
	unsigned int nbreach, breach_cap;	/* kept in breach[], its room */
	struct breach breach_first;	/* the first (the trace's), if cnt.breaches */
	bool breach_by_t3;		/* a breach found when its follow-up T3 came
					 * (measure_t3): the next transaction stops */
	struct warnings warn;		/* printed at set-up, kept for the summary */
	struct trace *trace;		/* -T */
	struct capture *capture;	/* --pcap */
	struct series *series;		/* -I: the interval reports, or NULL */
	struct metrics *metrics;	/* --metrics(-listen): its thread, or NULL */
	struct clock *clock;		/* PHC checks, theta (clock.h) */
	struct sweep_point sweep[RANT_MAX_SIZES];
	unsigned int nsweep;		/* sizes of a sweep; 0 without one */
	unsigned int sweep_idx;		/* the size being measured */
	uint32_t frag_above;		/* UDP payload the path MTU allows; 0 unknown */
	struct hist *rtt_intended;	/* emitter with --interval: RTT from the slot's time */
	int64_t prev_tx_wire, prev_rx_wire;	/* this side's wire stamps of the last
					 * measured transaction (measure.c) */
	struct jitter *jitter;		/* emitter: IPDV and RFC 3550's jitter (jitter.h) */
	struct ol_table flight;		/* --open-loop: the pings in flight */
	struct probe_counts probe;	/* --syn, --http: the probe's own counts */
	struct segdiag_result diag;	/* --http, --tcp: what the packets said (after the run) */
	struct srv_view *server;	/* --server-pid: the server's side (srvview.h), or NULL */
	struct srv_view *client;	/* --client-pid: another client's side, or NULL */
	struct pairdiag *pair;		/* --tcp: the pair's capture and analysis */
	/* a fleet's (--targets, --paths): its targets and sockets, fleetset.h */
	struct fleetset fs;
	struct fleet *fleet;		/* fs.fleet: its targets, or NULL: not a fleet */
};

extern volatile sig_atomic_t run_stop;
/* SIGHUP came: a fleet reads --targets again (fleetreload.c takes it). */
extern atomic_int run_reload;

/*
 * Everything before the first packet: socket, memory (touched and
 * locked), output files (one a row of rows[0..nrows): the printing
 * layer's table, outputs.h), idle-state hold, signals, trace files.
 * Returns 0, or prints one line (problem and fix) and returns -errno.
 */
int run_setup(struct run *r, const struct rant_cfg *cfg, const struct output_def *rows,
	      size_t nrows);
void run_teardown(struct run *r);

/* The primary metric: RTT emitting, response reflecting. */
static inline enum metric_id run_primary(const struct run *r)
{
	return metric_primary(r->cfg);
}

/* The metric -t watches: --threshold-metric's, else the primary. */
static inline enum metric_id run_threshold_metric(const struct run *r)
{
	return r->cfg->threshold_metric ? (enum metric_id)r->cfg->threshold_metric_id :
					  run_primary(r);
}

#endif
