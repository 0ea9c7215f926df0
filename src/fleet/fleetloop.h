/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet loop's own state, which its files share: fleet.c the loop
 * and the schedule, fleetrx.c pongs and TX stamps (fleetrx.h), fleeticmp.c
 * icmp targets' replies and ICMP errors (fleeticmp.h), fleetsyn.c syn
 * targets' answers (fleetsyn.h), fleethttp.c http targets' connections
 * (fleethttp.h), fleetdone.c
 * a ping's end (fleetdone.h), fleetreload.c SIGHUP (fleetreload.h). Not
 * for other modules: fleet.h is the fleet's interface.
 */
#ifndef RANT_FLEETLOOP_H
#define RANT_FLEETLOOP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dueheap.h"
#include "run.h"
#include "skbatch.h"

enum fl_state {
	FL_EMPTY,		/* retired, or never used */
	FL_SENT,		/* in flight */
	FL_ANSWERED,		/* its pong came */
	FL_ERRORED,		/* an ICMP error returned it (icmp, syn) */
};

/* One ping of a target, from its send to its retirement. */
struct fl_ping {
	struct txrec rec;	/* seq, T1_SW, T1 wire (when stamped), fleet_id */
	int64_t sent_mono;
	int64_t t4_wire, t4_sw;	/* its pong's */
	uint32_t key;		/* OPT_ID of its send, on its path's socket */
	uint8_t path;
	uint8_t state;		/* enum fl_state */
	uint8_t err;		/* FL_ERRORED: enum icmpwire_err */
	bool warmup;		/* unmeasured (-w) */
};

/* How often the loop reads its sockets' queues while sending: a pong or a
 * TX stamp waits there with its stamp taken (fleet.c's sleep_until). */
#define FL_DRAIN_NS (1000 * 1000LL)
/* Pings sent in one turn at most before the queues are read (fleet.c). */
#define FL_SEND_BURST 64

/* A target's part of the loop (its slot's in fleettab.h). */
struct fl_target {
	int64_t due;		/* its next ping, CLOCK_MONOTONIC */
	uint64_t seq;		/* its last ping's seq (0: none) */
	uint64_t retired;	/* its pings retired: every seq up to this */
	uint64_t answered;	/* bit seq % 64: the pong of seq came (the last 64) */
	uint64_t measured;	/* measured pings sent (-c) */
	uint64_t first_measured; /* the seq of its first, 0: none yet */
	int64_t started;	/* CLOCK_MONOTONIC: its first ping */
	bool warm;		/* its first pong came: warm-up ends after -w */
	struct fl_ping *ring;	/* the pings in flight, by seq % ring_len */
};

/* Which ping a TX stamp key of a socket stands for. */
struct fl_key {
	uint32_t key, slot;
	uint64_t seq;
};

struct fl_reload;		/* fleetreload.c's */
struct fl_http;			/* fleethttp.c's */

struct fleetloop {
	struct run *r;
	struct fleet *f;
	struct fl_target *t;		/* f->cap of them */
	struct fl_ping *pings;		/* f->cap x ring_len */
	size_t ring_len;		/* a power of 2 */
	/* per socket (fl_sock(): the UDP ones, then the ping sockets) */
	struct fl_key *keys[FLEETSET_ALL_SK];	/* nkeys each */
	size_t nkeys;			/* a power of 2 */
	struct skbatch *batch[FLEETSET_ALL_SK];
	struct dueheap sched;		/* the targets by their next ping */
	uint8_t *tx;			/* the ping being sent */
	uint32_t len[TARGET_NKINDS];	/* a ping's bytes on the wire, by kind */
	int64_t end;			/* -d: CLOCK_MONOTONIC, 0: none */
	int64_t drained;		/* CLOCK_MONOTONIC: every pong and TX stamp
					 * that came before it has been read */
	bool sending;
	size_t active;			/* targets measured now */
	struct fl_reload *reload;	/* SIGHUP's thread, or NULL */
	struct fl_http **http;		/* f->cap: an http target's connection
					 * (fleethttp.c), NULL: none yet */
	int http_ep;			/* their epoll set, -1: none */
	uint8_t *http_buf;		/* a read of theirs */
};

/* Socket i of the loop's tables: a UDP one, a ping socket or a raw TCP
 * one (NULL: none of that family). */
static inline struct sk *fl_sock(const struct fleetloop *L, unsigned int i)
{
	if (i < FLEETSET_MAX_SK)
		return L->r->fs.sk[i];
	return i < FLEETSET_SYN_SK(0) ? L->r->fs.icmp[i - FLEETSET_ICMP_SK(0)] :
	       L->r->fs.syn[i - FLEETSET_SYN_SK(0)];
}

/* Slot's pings' interval: its interval=, else --interval. */
static inline int64_t fl_interval(const struct fleetloop *L, size_t slot)
{
	int64_t v = L->f->t[slot].spec.interval_ns;

	return v ? v : L->r->cfg->interval_ns;
}

static inline struct fl_ping *fl_ring(const struct fleetloop *L, size_t slot)
{
	return L->pings + slot * L->ring_len;
}

static inline struct fl_ping *fl_ping_of(const struct fleetloop *L, size_t slot, uint64_t seq)
{
	return &fl_ring(L, slot)[seq & (L->ring_len - 1)];
}

#endif
