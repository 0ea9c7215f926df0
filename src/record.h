/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One transaction as kept in memory: 64 bytes, the same layout on both
 * sides (the reflector fills only the T2/T3 fields).
 *
 * Stamps are int64 ns with TS_NONE (0) for "absent". T3_SW and T4_SW are
 * stored as int32 offsets from T2_SW and T1_SW (same clock, and a
 * transaction lasts far less than 2 s); TXREC_NO_DELTA marks them absent.
 * "wire" stamps are HW or KN as the run's timestamp source says.
 */
#ifndef RANT_RECORD_H
#define RANT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "timeutil.h"

#define TXREC_NO_DELTA INT32_MIN

struct txrec {
	uint64_t seq;
	int64_t t1_sw;		/* emitter, before send() */
	int64_t t1_wire;	/* emitter, ping TX */
	int64_t t2_wire;	/* reflector, ping RX */
	int64_t t2_sw;		/* reflector, after recvmsg() */
	int64_t t3_wire;	/* reflector, pong TX (follow-up on the emitter) */
	int64_t t4_wire;	/* emitter, pong RX */
	int32_t t3_sw_d;	/* T3_SW - T2_SW, ns */
	int32_t t4_sw_d;	/* T4_SW - T1_SW, ns */
};

/* The eight points of a transaction, in path order. */
enum point {
	P_T1_SW, P_T1_WIRE, P_T2_WIRE, P_T2_SW,
	P_T3_SW, P_T3_WIRE, P_T4_WIRE, P_T4_SW,
	P_COUNT
};

void txrec_clear(struct txrec *r);
/* The stamp at point p, or TS_NONE. */
int64_t txrec_stamp(const struct txrec *r, enum point p);
/* Store T3_SW / T4_SW; an absent stamp or an offset that does not fit
 * in int32 is stored as absent. */
void txrec_set_t3_sw(struct txrec *r, int64_t t3_sw);
void txrec_set_t4_sw(struct txrec *r, int64_t t4_sw);

#endif
