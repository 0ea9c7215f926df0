/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter's state during a run, which both measuring loops share:
 * the closed loop (emit.c, emitpend.c) and the open loop (emitopen.c).
 * What came back is told apart and counted by emitcount.h, a pong read
 * by emitpong.h; the steps the loops share are emitstep.h's. Not for
 * other modules: emit.h is the emitter's interface.
 */
#ifndef RANT_EMITTER_H
#define RANT_EMITTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openloop.h"

/* The pongs of the last EMIT_WINDOW seqs that have arrived (emitcount.h
 * tells them apart by it). */
#define EMIT_WINDOW (1u << 17)	/* at least OL_MAX_SLOTS: every ping in flight */
struct pong_window {
	uint64_t bits[EMIT_WINDOW / 64];
};

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

struct holdback;
struct run;
struct txpend;

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

#endif
