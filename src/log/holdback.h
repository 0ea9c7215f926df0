/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hold-back window of the log: the newest records, kept by sequence
 * number until nothing more can come for them. The emitter learns a
 * transaction's T3 from the NEXT pong (the follow-up), and an open-loop
 * emitter learns that a ping was lost only --timeout after it left,
 * while newer ones have come back: records arrive in any seq order
 * within the window and are patched by seq while they are in it.
 *
 * The window covers the cap sequence numbers [base, base + cap). A record
 * whose seq is beyond it moves the window up, and the records that fall
 * out below are handed on, in seq order, to the out() callback (the log
 * behind the window). A record older than the window goes on at once
 * (counted as late). holdback_flush() hands on everything at the end.
 * Memory: cap records and cap bits, allocated by holdback_create().
 * One thread only (the packet loop).
 */
#ifndef RANT_HOLDBACK_H
#define RANT_HOLDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

typedef void holdback_out_fn(void *ctx, const struct txrec *r);

struct holdback;

/* cap: records held, rounded up to a power of two of at least 64. */
struct holdback *holdback_create(size_t cap, bool hugepages,
				 holdback_out_fn *out, void *ctx);
void holdback_destroy(struct holdback *w);

/* Take a copy of r (handing on what falls out of the window first). */
void holdback_add(struct holdback *w, const struct txrec *r);
/* The held record of seq, to patch in place; NULL when not held. */
struct txrec *holdback_find(struct holdback *w, uint64_t seq);
/* Hand on every held record, in seq order. */
void holdback_flush(struct holdback *w);

/* Records held now; records that came older than the window. */
size_t holdback_held(const struct holdback *w);
uint64_t holdback_late(const struct holdback *w);

#endif
