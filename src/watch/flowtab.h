/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flows of a capture: each TCP connection, both directions one flow,
 * with its client and server (the SYN's sender is the client; without
 * the handshake, the higher port's side), its analysis (tcpana.h), its
 * metrics (flowstat.h) and the last segments it saw (for the timeline of
 * its most held exchange).
 *
 * Bounded: at most max_flows at once. A flow that ends (both FINs, an
 * RST) is reported at once and its slot lingers, to take its last ACK
 * (then freed) or for linger_ns at most; one silent for idle_ns
 * is reported and freed; when the table is full, the least recently
 * active makes room (reported, counted evicted). A new SYN on a flow's
 * addresses and ports after its data (or with another sequence number)
 * starts a new flow. Memory: the slots as they are first needed, in
 * chunks, each slot once; nothing is allocated per packet.
 *
 * Times are the packets' own (a packet stamped before the one before it
 * is taken at that one's time, and counted).
 */
#ifndef RANT_FLOWTAB_H
#define RANT_FLOWTAB_H

#include <stddef.h>
#include <stdint.h>

#include "pktparse.h"
#include "watchagg.h"
#include "watchrep.h"

struct flowtab_params {
	uint32_t max_flows;		/* --max-flows */
	int64_t idle_ns;		/* --flow-idle */
	int64_t linger_ns;		/* a closed flow's last ACK */
	size_t counters_max;		/* flowstat counter arrays at once */
};

struct flowtab;

/* NULL with errno set. Counts go to r, sums to g. */
struct flowtab *flowtab_create(const struct flowtab_params *p, struct watchagg *g,
			       struct watch_report *r);
void flowtab_destroy(struct flowtab *t);

/* One TCP segment (pktparse()'s PKT_TCP). */
void flowtab_packet(struct flowtab *t, const struct pkt_tcp *pk);
/* Flows silent since before now_ns - idle_ns reported (live, between
 * packets, with the clock's time). */
void flowtab_expire(struct flowtab *t, int64_t now_ns);
/* The capture ended at t_ns: every open flow reported. */
void flowtab_end_all(struct flowtab *t, int64_t t_ns);
/* The last packet's time (0 before the first). */
int64_t flowtab_now(const struct flowtab *t);
/* Bytes the table holds at its largest (slots, hash, analyses). */
size_t flowtab_bytes(const struct flowtab *t);

#endif
