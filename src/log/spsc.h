/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded ring of records between one producer thread (the packet
 * loop) and one consumer thread (the log writer), lock-free with C11
 * atomics. The producer never waits: spsc_push() on a full ring returns
 * false and the caller counts the record as dropped.
 *
 * head counts the records ever pushed, tail those ever released; both
 * only grow (64 bits never wrap), and a record's slot is its count
 * modulo the capacity (a power of two). Each side writes only its own
 * counter: the producer publishes a record with a release store of head
 * after copying it in; the consumer releases slots with a release store
 * of tail after it has read them. Each side reads the other's counter
 * with acquire, and keeps a private copy of it that it refreshes only
 * when that copy says empty (consumer) or full (producer), so the two
 * cache lines bounce between the CPUs only when they must.
 */
#ifndef RANT_SPSC_H
#define RANT_SPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define SPSC_CACHE_LINE 64

struct spsc {
	/* Producer's line: head, and its copy of tail. */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint64_t head;
	uint64_t tail_seen;
	/* Consumer's line: tail, and its copy of head. */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint64_t tail;
	uint64_t head_seen;
	/* Read-only after spsc_init. */
	_Alignas(SPSC_CACHE_LINE) struct txrec *slot;
	uint64_t mask;		/* capacity - 1 */
};

/* Records a ring can hold: n rounded up to a power of two (n >= 1). */
size_t spsc_capacity(size_t n);

/* Use slot[cap] (cap a power of two, from spsc_capacity) as an empty ring. */
void spsc_init(struct spsc *q, struct txrec *slot, size_t cap);

/* Producer: copy r in and publish it; false (nothing done) when full. */
bool spsc_push(struct spsc *q, const struct txrec *r);

/*
 * Consumer: the records published and not yet released, oldest first:
 * returns how many (0: none) and sets *first to the oldest's count, so
 * that record i is spsc_at(q, *first + i).
 */
size_t spsc_ready(struct spsc *q, uint64_t *first);

static inline const struct txrec *spsc_at(const struct spsc *q, uint64_t n)
{
	return &q->slot[n & q->mask];
}

/* Consumer: give the n oldest ready slots back to the producer. */
void spsc_release(struct spsc *q, size_t n);

#endif
