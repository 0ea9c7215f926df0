/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter's state during a run, and what came back to it: told
 * apart and counted (emitcount.c), a pong read (emitpong.c). Both
 * measuring loops use them: the closed loop (emit.c, emitpend.c) and the
 * open loop (emitopen.c); the steps they share are emitstep.h's. Not for
 * other modules: emit.h is the emitter's interface.
 */
#ifndef RANT_EMITTER_H
#define RANT_EMITTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "msgfmt.h"
#include "measure.h"
#include "txpend.h"

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

/*
 * The reflector's number of each recent pong (msg_body.pong_no, in a
 * format whose follow-up names a pong so: caps.fu_by_pong_no) and its
 * ping's seq, by that number's low bits: a follow-up finds the ping it
 * belongs to whatever pings were lost or repeated between.
 */
#define EMIT_NAMES 4096
struct pong_names {
	uint32_t no[EMIT_NAMES];	/* the reflector's number (caps.seq_mask wide) */
	uint64_t seq[EMIT_NAMES];	/* its ping's, 0: none */
};

struct ol_table;

struct emitter {
	struct run *r;
	uint64_t seq;			/* last ping sent */
	uint64_t first_measured;	/* seq of the first measured ping, 0: none yet */
	uint64_t pongs;			/* pongs matched, any phase */
	struct pong_window seen;
	struct pong_names names;	/* caps.fu_by_pong_no: pongs by the reflector's number */
	struct holdback *await;		/* measured records awaiting their follow-up (T3) */
	struct txpend *pend;		/* closed loop: measured pings awaiting T1 */
	int pend_fd;			/* ... sent on this socket (TCP reconnects) */
	bool defer;			/* measuring closed loop: e->pend takes them */
	bool fetching;			/* the pings after measuring (emit_fetch) */
	int64_t warm_began;		/* CLOCK_MONOTONIC: this size's warm-up began */
	int64_t deadline;		/* ... plus -d: its measuring ends then; 0: none */
	uint64_t warm_pings;		/* r->cnt.warmup when it began */
	bool t1_wait;			/* the last pong came before its ping's TX stamp */
	uint32_t t1_key;		/* ... that ping's OPT_ID key */
	int64_t t1_t4;			/* ... and its pong's T4 wire stamp */
	bool tx_seen;			/* open loop: newest_tx holds a key */
	uint32_t newest_tx;		/* open loop: key of the newest TX stamp */
	uint32_t size;			/* bytes of this phase's pings (-m, or a sweep's size) */
	uint32_t len;			/* ... on the wire: size and the format's overhead */
	int64_t gone_since;		/* TCP: monotonic ns since the connection is down, or 0 */
	bool rx_stamped;		/* the last pong came with an RX stamp */
	int64_t late_ns;		/* --interval: how late after its slot the ping left */
	struct loss_track loss;		/* bursts and reordering */
	struct ol_table *ol;		/* measuring open loop: the pings in flight, else NULL */
	uint8_t *rx, *tx;		/* the receive and send buffers (emit.c's) */
	size_t rx_len;
};

/* The emitter's own counts of the measured run (the answered and the
 * lost go through measure_tx()): a measured ping left at t_sent (its
 * T1_SW); the pong of seq came after its ping was counted lost; a
 * datagram that is not the pong of a ping in flight, counted by class. */
void emit_count_sent(struct emitter *e, uint64_t seq, int64_t t_sent);
void emit_count_late(struct emitter *e, uint64_t seq);
void emit_count_stray(struct emitter *e, enum pong_class k, const struct msg_hdr *h);

/* --key: false (counted) when a datagram shaped as this phase's pong in
 * e->rx has no valid MAC. */
bool emit_authentic(struct emitter *e, const struct sk_msg *m);
/* Fill rec from the pong in e->rx; patch an earlier record from the
 * follow-up. */
void emit_take_pong(struct emitter *e, struct txrec *rec, const struct msg_hdr *h);

#endif
