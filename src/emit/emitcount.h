/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What came back to the emitter, told apart and counted (emitcount.c),
 * for both measuring loops (emit.c, emitopen.c): the pong awaited, late,
 * duplicate, foreign or invalid, by the window of pongs seen
 * (emitter.h's struct pong_window); and the emitter's own counts of the
 * measured run (the answered and the lost go through measure_tx()).
 */
#ifndef RANT_EMITCOUNT_H
#define RANT_EMITCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emitter.h"
#include "msgfmt.h"

/* What a datagram that arrived while waiting for a pong is. */
enum pong_class {
	PONG_MATCH,		/* the pong awaited */
	PONG_INVALID,		/* not a pong of this size, or a seq never sent */
	PONG_FOREIGN,		/* another session's */
	PONG_LATE,		/* an earlier ping's, after it was given up */
	PONG_DUPLICATE,		/* a second copy of a pong already seen */
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

/* The emitter's own counts of the measured run: a measured ping left at
 * t_sent (its T1_SW); the pong of seq came after its ping was counted
 * lost; a datagram that is not the pong of a ping in flight, counted by
 * class. */
void emit_count_sent(struct emitter *e, uint64_t seq, int64_t t_sent);
void emit_count_late(struct emitter *e, uint64_t seq);
void emit_count_stray(struct emitter *e, enum pong_class k, const struct msg_hdr *h);

#endif
