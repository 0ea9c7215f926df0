/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capture's sums (watchrep.h): each exchange, RTT sample and
 * handshake into its server port's and the whole capture's histograms,
 * counters and diagnosis tally; each flow at its end into the counts of
 * what could not be told and, if it is among the worst --flows, into the
 * report's list of flows. At the end, the diagnosis of each port and of
 * the whole, and the flows sorted worst first.
 *
 * A flow is worse than another when its exchanges were held longer in
 * all (watch_flow.held_ns), then when its slowest exchange was slower.
 */
#ifndef RANT_WATCHAGG_H
#define RANT_WATCHAGG_H

#include "watchrep.h"

struct watchagg;

struct watchagg_params {
	uint64_t flows_max;		/* --flows: the flows kept for the report */
	int64_t bucket_ns, overflow_ns;	/* the histograms' linear part (-b, -o) */
};

/* The whole capture's histograms and tally in r; NULL with errno set. */
struct watchagg *watchagg_create(struct watch_report *r, const struct watchagg_params *p);
void watchagg_destroy(struct watchagg *g);

/* Server port port's sums: its own among the first WATCH_PORTS, else
 * "other" (also when no memory is left for a port of its own). */
struct watch_port *watchagg_port(struct watchagg *g, uint16_t port);

void watchagg_exchange(struct watchagg *g, struct watch_port *p, const struct tcpana_exchange *x);
void watchagg_sample(struct watchagg *g, struct watch_port *p, enum watch_metric m,
		     int64_t v_ns, uint64_t seq);
/* Segments sent again (tcpana_retransmits' growth), as they come. */
void watchagg_retransmits(struct watchagg *g, struct watch_port *p, uint64_t n);
/* A new flow to p. */
void watchagg_flow_start(struct watchagg *g, struct watch_port *p);
/* A flow at its end (f filled): counted, and kept if among the worst. */
void watchagg_flow(struct watchagg *g, struct watch_port *p, const struct watch_flow *f);
/* The diagnosis of each port and of the whole; the kept flows sorted. */
void watchagg_finish(struct watchagg *g);

#endif
