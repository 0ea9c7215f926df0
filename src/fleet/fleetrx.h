/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet's pongs and TX stamps (fleetrx.c), for its loop (fleet.c):
 * a pong its target's by its source, session and seq, a TX stamp its
 * ping's by its socket's OPT_ID key.
 */
#ifndef RANT_FLEETRX_H
#define RANT_FLEETRX_H

#include "fleetloop.h"
#include "icmpwire.h"

/* What a datagram read off a socket of the loop goes to. */
typedef void fl_take_fn(struct fleetloop *L, const uint8_t *buf, struct sk_msg *m);

/* The datagrams queued on the loop's socket i, each to fn, in batches:
 * as many as came at the loop's pace, a bounded number a turn (a flood
 * does not hold the sends up for long). */
void fl_read(struct fleetloop *L, unsigned int i, fl_take_fn *fn);

/* What an ICMP error read off a socket's error queue goes to. */
typedef void fl_error_fn(struct fleetloop *L, const struct sk_icmp_err *e);

/* The pongs queued on socket i; its TX stamps, each to its ping, and
 * (fn not NULL: a ping or raw socket's) the ICMP errors beside them,
 * each to fn. */
void fl_receive(struct fleetloop *L, unsigned int i);
void fl_harvest(struct fleetloop *L, unsigned int i, fl_error_fn *fn);

/* The seq of t's pings, at or before its last sent, whose low bits (mask:
 * the wire's width) are got; 0 when there is none. */
static inline uint64_t fl_seq_near(const struct fl_target *t, uint64_t got, uint64_t mask)
{
	uint64_t back = (t->seq - got) & mask;

	return back > t->seq ? 0 : t->seq - back;
}

/* An answer (m: its stamps) to slot's ping seq (widened from the wire's
 * bits; 0 or above the last sent: invalid, counted): its ping's, or
 * late, or a duplicate. */
void fl_answer(struct fleetloop *L, size_t slot, uint64_t seq, const struct sk_msg *m);

/* Slot's ping seq's TX stamp ts (its key matched by the caller): kept
 * while it is in flight, the ping retired when it was answered. */
void fl_stamped(struct fleetloop *L, size_t slot, uint64_t seq, const struct ts_stamps *ts);

/* The target refused slot's probe seq (a closed port's RST): the
 * target answers (its warm-up may end), the probe counted refused and
 * retired unmeasured, neither received nor lost, as --syn counts it. */
void fl_refused(struct fleetloop *L, size_t slot, uint64_t seq);

/* An ICMP error of kind that returned slot's ping seq (widened as an
 * answer's): the ping retired as that error, neither received nor lost
 * (fleetdone.c); one after it was counted lost is late (the run's
 * probe.echo_late_errors), as --icmp counts it. */
void fl_error(struct fleetloop *L, size_t slot, uint64_t seq, enum icmpwire_err kind);

#endif
