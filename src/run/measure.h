/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the loops do around measured transactions: mark the start of
 * measuring, and take each transaction through one fan-out
 * (measure_tx()): counts, histograms, series, capture, log (a copy into
 * the log's memory: its writer thread does the I/O), threshold and
 * breach (writing the trace marker and freezing the trace at the first).
 * Only memory writes, except at a breach.
 */
#ifndef RANT_MEASURE_H
#define RANT_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"

/* Measuring starts now: r->start_ns, the log's columns (the peer's
 * stamps are known after the warm-up), and RANT_TEST_START with -T. */
void measure_start(struct run *r);

/* The log's columns for this run, as known now, in *f; returns f. */
const struct txlog_fmt *measure_log_format(const struct run *r,
					   struct txlog_fmt *f);

enum measure_next {
	MEASURE_GO_ON,
	MEASURE_STOP,		/* writing the log failed */
	MEASURE_BREACH,		/* a breach without -C */
};

struct session;

/* Which loop hands a transaction over, and so what its record holds. */
enum measure_side {
	MEASURE_EMIT,		/* a ping and its pong (emit/): the peer's stamps */
	MEASURE_REFLECT,	/* a ping answered (reflect/) */
	MEASURE_PROBE,		/* a TCP service's handshake or request (probe/) */
	MEASURE_FLEET,		/* a ping of a fleet's target and its pong (fleet/):
				 * the targets' retired in no common order */
};

/*
 * A measured transaction as each loop hands it to measure_tx(): its
 * record and, as data, what only the loop knows of it.
 */
struct measure_tx {
	enum measure_side side;
	struct txrec *rec;
	unsigned int which;	/* the metrics to sample now (metric.h: METRIC_NO_T3,
				 * METRIC_T3); the emitter's T3 ones wait for a
				 * follow-up that has not come (measure_t3()) */
	bool lost;		/* emitter: no pong within --timeout: rec is the
				 * stamps the ping has, logged LOST, never a breach */
	bool sent;		/* reflector: its pong left (counted sent here; the
				 * emitter counts each ping as it leaves) */
	bool no_tx, no_rx;	/* this side's TX, RX wire stamp missing: counted */
	int64_t late_ns;	/* emitter, probe, --interval: how late the ping left
				 * its slot (rtt_intended) */
	int64_t came_mono;	/* reflector: when the ping came (its -I interval);
				 * the emitter's and the probe's are found by seq */
	struct session *s;	/* reflector: the ping's session, NULL when it was
				 * evicted meanwhile */
};

/*
 * Everything a measured transaction goes through, from every loop and in
 * this order: the counts (the run's and the session's), wire stamps
 * earlier than the last transaction's (emitter, reflector), the
 * histograms (metrics, the sweep's size, rtt_intended, the session's
 * response times) and the peer's clock (emitter), the -I series, the
 * --pcap capture's expectation (emitter, reflector), the log (-l; its
 * writer checked), the threshold (-t: the breach kept, the trace marked
 * and frozen at the first). Memory writes only, but at the first breach.
 * A feature that sees every transaction is a step here.
 */
enum measure_next measure_tx(struct run *r, const struct measure_tx *t);

/*
 * The T3 wire stamp of the measured transaction seq came after it was
 * measured (the emitter's follow-up): into the breaches kept of seq and,
 * rec being its record awaiting T3 (NULL: none awaits it), into rec, the
 * log's row, the T3 metrics and the peer's clock.
 */
void measure_t3(struct run *r, uint64_t seq, struct txrec *rec, int64_t t3_wire);

/*
 * An emitting loop ended (the emitter's, the probe's) with ret: the end's
 * time, why (a signal when nothing else said), the start when measuring
 * never began; a warm-up stopped by a signal is said, and is no failure
 * (0). Returns what the loop returns.
 */
int measure_end(struct run *r, int ret);

/* True once the CLOCK_MONOTONIC deadline end_mono (0: none) has passed. */
static inline bool measure_time_up(int64_t end_mono)
{
	return end_mono && monotonic_ns() >= end_mono;
}

#endif
