/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metrics rant derives from a transaction's stamps: the round trip,
 * the reflector's response time and the components of the path. Each is
 * a difference of two points, or (network) of two such differences.
 * The same table names them in the summary, the JSON and the breakdown.
 */
#ifndef RANT_METRIC_H
#define RANT_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "cfg.h"
#include "record.h"

enum metric_id {
	M_RTT,		/* T4_wire - T1_wire: emitter's metric */
	M_RESPONSE,	/* T3_wire - T2_wire: reflector's metric */
	M_NETWORK,	/* RTT - response: wires, NICs and stacks both ways */
	M_RTT_SW,	/* T4_SW - T1_SW: round trip seen by the application */
	M_EMIT_TX,	/* T1_wire - T1_SW: emitter app to NIC */
	M_REFLECT_RX,	/* T2_SW - T2_wire: reflector NIC to app */
	M_REFLECT_PROC,	/* T3_SW - T2_SW: reflector app processing */
	M_REFLECT_TX,	/* T3_wire - T3_SW: reflector app to NIC */
	M_EMIT_RX,	/* T4_SW - T4_wire: emitter NIC to app */
	M_EMIT_ACK,	/* T_ACK - T1_wire: TCP, until the reflector's ACK */
	M_OWD_FWD,	/* T2_wire - T1_wire: --one-way, emitter to reflector */
	M_OWD_BACK,	/* T4_wire - T3_wire: --one-way, reflector to emitter */
	M_EMIT_QUEUE,	/* T1_KN - T1_SCHED: the ping in the emitter's qdisc */
	M_REFLECT_QUEUE, /* T3_KN - T3_SCHED: the pong in the reflector's qdisc */
	/* probing a TCP service (src/probe/): the record's T1 is the SYN's or
	 * the request's first byte's TX stamp, T4 the SYN-ACK's or the
	 * response's last byte's RX stamp, T2 its first byte's */
	M_SYN_RTT,	/* --syn: T4_wire - T1_wire, SYN out to SYN-ACK in */
	M_REQUEST,	/* --http: T4_wire - T1_wire, request sent to response whole */
	M_FIRST_BYTE,	/* --http: T2_wire - T1_wire, to the response's first byte */
	M_CONNECT,	/* --http: each connection's handshake (sampled apart) */
	M_COUNT
};

struct metric_def {
	const char *name;	/* JSON key, e.g. "reflect_rx" */
	const char *label;	/* text, e.g. "NIC-to-App RX (reflector)" */
	enum point a, b;	/* value = a - b ... */
	enum point c, d;	/* ... - (c - d) when c != d */
	bool sw;		/* needs SW stamps (-s) */
	bool path;		/* one step of the path (breakdown) */
};

extern const struct metric_def metric_defs[M_COUNT];

/*
 * Is m a sender's queue (emit_queue, reflect_queue)? The record keeps
 * those as lengths, not stamps: their points in the table are unused.
 */
static inline bool metric_is_queue(enum metric_id m)
{
	return m == M_EMIT_QUEUE || m == M_REFLECT_QUEUE;
}

/*
 * The part of the path metric m spans: bit i is the segment from point i
 * to point i + 1 (enum point, in path order: T1_SW T1 T2 T2_SW T3_SW T3
 * T4 T4_SW). A sender's queue lies inside its send step (emit_queue in
 * emit_tx, before T1; reflect_queue in reflect_tx); emit_ack ends at an
 * ACK that is no point of the path (0); network is the RTT less the
 * response. A component lies inside a metric when its span is within
 * the metric's.
 */
unsigned int metric_span(enum metric_id m);

static inline bool metric_inside(enum metric_id part, enum metric_id whole)
{
	unsigned int p = metric_span(part);

	return p && (p & metric_span(whole)) == p;
}

/* Compute metric m from r; false when a stamp it needs is absent. */
bool metric_value(enum metric_id m, const struct txrec *r, int64_t *ns);

/* The run's main metric: RTT emitting, response reflecting, syn_rtt
 * or request probing. Inline: the fan-out of every transaction
 * (measure.c) takes it. */
static inline enum metric_id metric_primary(const struct rant_cfg *c)
{
	if (c->icmp)
		return M_RTT;
	if (c->syn)
		return M_SYN_RTT;
	if (cfg_requests(c))
		return M_REQUEST;
	return c->mode == MODE_EMIT ? M_RTT : M_RESPONSE;
}

/* Is m sampled from a transaction's record (metric_sample)? M_CONNECT
 * is not: a connection's handshake is not a transaction. */
static inline bool metric_of_record(enum metric_id m)
{
	return m != M_CONNECT;
}

/* Does a run with cfg measure metric m? (SW components need -s; the
 * reflector's side reaches the emitter only in pongs long enough.) */
bool metric_in_run(const struct rant_cfg *cfg, enum metric_id m);

/*
 * Add rec's metrics to the histograms (hist[m] NULL: m not in the run):
 * those that need the T3 wire stamp (METRIC_T3) or those that do not
 * (METRIC_NO_T3), or both. The emitter learns T3 one pong late, from the
 * follow-up, so it samples in two steps. No allocation: hot-path safe.
 */
#define METRIC_NO_T3 1
#define METRIC_T3 2
/* Which of the two steps samples m: METRIC_T3 or METRIC_NO_T3. */
unsigned int metric_step(enum metric_id m);
void metric_sample(struct hist *const hist[M_COUNT], const struct txrec *rec,
		   unsigned int which);

#endif
