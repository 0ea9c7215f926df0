/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter (client): warm-up until stamps flow, then measured pings
 * until -d or -c; after a breach without -C, one unmeasured ping more
 * brings the breached transaction's T3 (the follow-up).
 *
 * Closed loop (the default): one ping at a time, back to back or paced
 * (--interval), each waited for at most --timeout. Paced, the slots are
 * start + k x interval: a slot whose time passed while the emitter was
 * still waiting for an earlier pong is missed (counted in missed_slots)
 * and its ping leaves as soon as the emitter is free, back to back until
 * the schedule is caught up (wrk2's model), so rtt_intended (latency from
 * the slot's time) shows what the wait hid: coordinated omission.
 *
 * Open loop (--open-loop): each ping leaves at its slot whether or not
 * the earlier pongs came back; several are in flight (openloop.h),
 * matched by seq, retired in seq order, lost when --timeout passes.
 */
#ifndef RANT_EMIT_H
#define RANT_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "run.h"
#include "msgfmt.h"

/*
 * Run the emitter on a set-up run. 0 when it measured (or was stopped by
 * a signal), -EIO when the warm-up never got a stamped pong (the reason
 * in r->failure).
 */
int emit_run(struct run *r);

/* What a datagram that arrived while waiting for a pong is. */
enum pong_class {
	PONG_MATCH,		/* the pong awaited */
	PONG_INVALID,		/* not a pong of this size, or a seq never sent */
	PONG_FOREIGN,		/* another session's */
	PONG_LATE,		/* an earlier ping's, after it was given up */
	PONG_DUPLICATE,		/* a second copy of a pong already seen */
};

/* The pongs of the last EMIT_WINDOW seqs that have arrived. */
#define EMIT_WINDOW (1u << 17)	/* at least OL_MAX_SLOTS: every ping in flight */
struct pong_window {
	uint64_t bits[EMIT_WINDOW / 64];
};

/* Forget seq's slot before seq is sent (it held seq - EMIT_WINDOW). */
void pong_window_forget(struct pong_window *w, uint64_t seq);

/*
 * Classify len bytes in buf, received while waiting for the pong of
 * seq (the highest sent) in session, pings of wire_len bytes on the
 * wire, parsed by the run's format fmt; fills *h (its seq widened to 64
 * bits) when the header parses. Marks the pong seen in w. An earlier seq
 * is late the first time and a duplicate after; beyond the window, late.
 */
enum pong_class emit_classify(struct pong_window *w, const struct msgfmt_ctx *fmt,
			      const void *buf, ssize_t len, uint32_t wire_len,
			      uint32_t session, uint64_t seq, struct msg_hdr *h);

/*
 * A late or duplicate pong is warm-up traffic, counted apart
 * (warmup_late, warmup_duplicate), when its ping was not measured: seq
 * below first_measured, the first measured ping's (0: still warming up).
 */
static inline bool emit_pong_of_warmup(uint64_t seq, uint64_t first_measured)
{
	return !first_measured || seq < first_measured;
}

#endif
