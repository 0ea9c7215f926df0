/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One transaction as kept in memory: 64 bytes (a cache line), the same
 * layout on both sides (the reflector fills only the T2/T3 fields and
 * its queue).
 *
 * Stamps are int64 ns with TS_NONE (0) for "absent". Five are stored as
 * int32 offsets from a stamp of the same clock, TXREC_NO_DELTA marking
 * them absent (as is one whose offset does not fit: 2.1 s):
 * T3_SW from T2_SW and T4_SW from T1_SW (a transaction lasts far less
 * than 2 s), T4_wire from T1_wire (a pong is taken only within
 * --timeout, at most 1 s, of T1; without T1_wire, T4_wire is not kept),
 * T3_wire from T2_wire (the reflector's response; without T2_wire, a
 * ping whose RX stamp the reflector missed, T3_wire is not kept), and,
 * over TCP, T_ACK (when the reflector acknowledged the ping's last
 * byte, a kernel stamp) from T1_SW.
 * The sender's queue of the side's own send is kept as a length, not a
 * stamp: SND_KN - SCHED, both kernel stamps of the system clock, whatever
 * the wire stamps are: on the emitter the ping's (T1), on the reflector
 * the pong's (T3), in one field of two names. A record is the emitter's
 * when it has T1_SW (the emitter stamps every ping it sends; the
 * reflector never sees the emitter's clocks).
 * "wire" stamps are HW or KN as the run's timestamp source says.
 *
 * A lost ping (emitter: no pong within --timeout) keeps its row: the
 * stamps it has (T1_SW, T1_wire) and TXREC_LOST in t4_wire_d. No offset
 * is ever stored as TXREC_LOST (one that small is stored as absent), so
 * the marker cannot be mistaken for a stamp, and every T4 reads absent.
 */
#ifndef RANT_RECORD_H
#define RANT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "timeutil.h"

#define TXREC_NO_DELTA INT32_MIN
#define TXREC_LOST (INT32_MIN + 1)	/* in t4_wire_d: the ping was lost */

struct txrec {
	uint64_t seq;
	int64_t t1_sw;		/* emitter, before send() */
	int64_t t1_wire;	/* emitter, ping TX */
	int64_t t2_wire;	/* reflector, ping RX */
	int64_t t2_sw;		/* reflector, after recvmsg() */
	int32_t t3_wire_d;	/* T3_wire - T2_wire, ns: reflector, pong TX
				 * (follow-up on the emitter) */
	int32_t t3_sw_d;	/* T3_SW - T2_SW, ns */
	int32_t t4_sw_d;	/* T4_SW - T1_SW, ns */
	int32_t t4_wire_d;	/* T4_wire - T1_wire, ns: emitter, pong RX */
	union {
		int32_t t_ack_d;	/* T_ACK - T1_SW, ns: emitter over TCP */
		uint32_t fleet_id;	/* a fleet's (UDP: no T_ACK): its target's
					 * slot and path, txrec_fleet_id() */
	};
	union {
		int32_t t1_queue;	/* emitter: T1_KN - T1_SCHED, ns */
		int32_t t3_queue;	/* reflector: T3_KN - T3_SCHED, ns */
	};
};

_Static_assert(sizeof(struct txrec) == 64, "struct txrec must stay 64 bytes");

/*
 * The eight points of a transaction, in path order (P_COUNT of them);
 * then, over TCP, the reflector's ACK of the ping's last byte: a stamp
 * of the record but no point of the path, so outside P_COUNT.
 */
enum point {
	P_T1_SW, P_T1_WIRE, P_T2_WIRE, P_T2_SW,
	P_T3_SW, P_T3_WIRE, P_T4_WIRE, P_T4_SW,
	P_COUNT,
	P_T_ACK = P_COUNT,
};

void txrec_clear(struct txrec *r);

/* A fleet's record: target slot (fleettab.h) and path in fleet_id. */
static inline uint32_t txrec_fleet_id(uint32_t slot, unsigned int path)
{
	return slot << 8 | path;
}

static inline uint32_t txrec_fleet_slot(const struct txrec *r)
{
	return r->fleet_id >> 8;
}

static inline unsigned int txrec_fleet_path(const struct txrec *r)
{
	return r->fleet_id & 0xff;
}
/* The stamp at point p, or TS_NONE. */
int64_t txrec_stamp(const struct txrec *r, enum point p);
/* Store T3_SW / T4_SW; an absent stamp or an offset that does not fit
 * in int32 is stored as absent. */
void txrec_set_t3_sw(struct txrec *r, int64_t t3_sw);
void txrec_set_t4_sw(struct txrec *r, int64_t t4_sw);
/* Store T4_wire (after T1_wire), T3_wire (after T2_wire) and T_ACK
 * (after T1_SW), as above. */
void txrec_set_t4_wire(struct txrec *r, int64_t t4_wire);
void txrec_set_t3_wire(struct txrec *r, int64_t t3_wire);
void txrec_set_ack(struct txrec *r, int64_t t_ack);
/* Mark r lost: its T4 stamps are dropped, the others kept. */
void txrec_set_lost(struct txrec *r);

static inline bool txrec_lost(const struct txrec *r)
{
	return r->t4_wire_d == TXREC_LOST;
}

/*
 * The sender's queue of this side's send from its two kernel stamps,
 * SND (kn) and SCHED (sched): the ping's on the emitter (set T1_SW
 * first), the pong's on the reflector. Absent when either is.
 */
void txrec_set_queue(struct txrec *r, int64_t kn, int64_t sched);
/* Is r the emitter's record (it has T1_SW)? */
static inline bool txrec_is_emit(const struct txrec *r)
{
	return r->t1_sw != TS_NONE;
}
/* The queue, ns: the ping's (emit) or the pong's; false when r has none
 * (or is the other side's record). */
bool txrec_queue(const struct txrec *r, bool emit, int64_t *ns);
/* The SCHED stamp where it can be told: the side's SND stamp less the
 * queue, so only where the wire stamps are kernel ones (kn_wire). */
int64_t txrec_sched(const struct txrec *r, bool emit, bool kn_wire);

#endif
