/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bookkeeping of open-loop pacing (--open-loop), and the loss
 * statistics of both loops. The open loop that uses them is
 * emitopen_measure() (src/emit/emitopen.h).
 *
 * In-flight table: each ping sent and not yet retired, in the slot
 * seq & mask (a power of two, sized by ol_slots() so that a ping's slot
 * is free again long after its --timeout). Pongs are matched to their
 * ping by seq, TX stamps by their OPT_ID key. Pings are retired in seq
 * order, the oldest first: an answered one once those before it are, an
 * unanswered one when its --timeout has passed (lost). A full slot is
 * never overwritten: the emitter waits for it to be retired (ol_put
 * returns NULL), which bounds the pings in flight.
 *
 * Loss tracking (loss_*): the longest run of consecutive lost pings in
 * seq order, and reordering: pongs that arrived after the pong of a
 * later seq.
 *
 * Memory is allocated and touched by ol_create(), before the first
 * packet; nothing else allocates.
 */
#ifndef RANT_OPENLOOP_H
#define RANT_OPENLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* The most pings in flight: --timeout / --interval above half of it is
 * refused at start-up. */
#define OL_MAX_SLOTS (1u << 17)
/* How long an answered ping waits for its TX stamp (HW stamps lag the
 * send) before it is taken without one. */
#define OL_TX_WAIT_NS (2 * 1000 * 1000)

enum ol_state {
	OL_FREE,		/* no ping in the slot */
	OL_SENT,		/* sent, no pong yet */
	OL_ANSWERED,		/* its pong came: waits for its TX stamp or its turn */
};

struct ol_entry {
	struct txrec rec;	/* seq, T1_SW; T1_wire once harvested; the pong's body */
	int64_t t4_wire;	/* the pong's RX wire stamp (kept until T1_wire is known) */
	int64_t t4_sw;		/* T4_SW, or TS_NONE */
	int64_t sent_mono;	/* CLOCK_MONOTONIC at send(): --timeout runs from here */
	int64_t late_ns;	/* how long after its slot's time it was sent */
	int64_t answered_mono;	/* CLOCK_MONOTONIC when its pong was read */
	uint32_t key;		/* OPT_ID of its TX stamp */
	uint8_t state;		/* enum ol_state */
};

struct ol_table {
	struct ol_entry *e;
	uint64_t mask;		/* slots - 1 */
	uint64_t oldest;	/* no ping below it is in the table */
	uint64_t next;		/* above the highest seq put */
	uint64_t inflight;	/* pings sent, neither answered nor given up */
	uint64_t inflight_max;
	bool huge;
};

/*
 * Slots for pings that stay in the table up to lifetime_ns (--timeout and
 * the TX stamp's wait) sent every interval_ns: a power of two, at least
 * twice the pings of one lifetime; 0 when that is above OL_MAX_SLOTS.
 * (Inline: the option parser checks it, without the rest of the module.)
 */
static inline size_t ol_slots(int64_t lifetime_ns, int64_t interval_ns)
{
	uint64_t need, slots = 1;

	if (interval_ns <= 0 || lifetime_ns < 0)
		return 0;
	need = 2 * ((uint64_t)(lifetime_ns / interval_ns) + 2);
	while (slots < need && slots <= OL_MAX_SLOTS)
		slots <<= 1;
	return slots > OL_MAX_SLOTS ? 0 : (size_t)slots;
}

/* Allocate (and touch) slots entries, a power of two: 0 or -errno. */
int ol_create(struct ol_table *t, size_t slots, bool hugepages);
void ol_destroy(struct ol_table *t);
/* Empty the table; the first ping will have seq first. */
void ol_reset(struct ol_table *t, uint64_t first);

/*
 * The slot for a new ping of seq (above every seq put before), state
 * OL_SENT, its record cleared with rec.seq set; NULL when the slot still
 * holds an older ping (the table is full: wait for it to be retired).
 */
struct ol_entry *ol_put(struct ol_table *t, uint64_t seq);
/* Is the slot of a new ping of seq free? */
bool ol_room(const struct ol_table *t, uint64_t seq);
/* The entry of seq while it is in the table, else NULL. */
struct ol_entry *ol_get(struct ol_table *t, uint64_t seq);
/* The lowest seq in the table, or NULL when it is empty. */
struct ol_entry *ol_oldest(struct ol_table *t);
/* Remove the oldest entry (from ol_oldest) once its outcome is known. */
void ol_retire(struct ol_table *t, struct ol_entry *x);
/* A ping stopped being in flight (answered, or given up). */
void ol_landed(struct ol_table *t);

static inline bool ol_empty(const struct ol_table *t)
{
	return t->oldest >= t->next;
}

struct loss_track {
	uint64_t burst;		/* consecutive losses up to the last ping retired */
	uint64_t burst_max;
	uint64_t highest;	/* highest seq whose pong has arrived */
	uint64_t reordered;
};

/* The next ping in seq order was lost, or answered. */
void loss_lost(struct loss_track *l);
void loss_received(struct loss_track *l);
/* The pong of seq arrived: true (and counted) when a later seq's came first. */
bool loss_arrived(struct loss_track *l, uint64_t seq);

#endif
