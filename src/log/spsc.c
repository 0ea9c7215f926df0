// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The single-producer single-consumer record ring (see spsc.h).
 */
#include "spsc.h"

size_t spsc_capacity(size_t n)
{
	size_t cap = 1;

	while (cap < n && cap <= SIZE_MAX / 2)
		cap <<= 1;
	return cap;
}

void spsc_init(struct spsc *q, struct txrec *slot, size_t cap)
{
	atomic_init(&q->head, 0);
	atomic_init(&q->tail, 0);
	q->tail_seen = 0;
	q->head_seen = 0;
	q->slot = slot;
	q->mask = cap - 1;
}

bool spsc_push(struct spsc *q, const struct txrec *r)
{
	uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (h - q->tail_seen > q->mask) {
		/* Acquire: the consumer's reads of the slots it released
		 * happen before this side writes them again. */
		q->tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire);
		if (h - q->tail_seen > q->mask)
			return false;
	}
	q->slot[h & q->mask] = *r;
	/* Release: the record is in its slot before head says so. */
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	return true;
}

size_t spsc_ready(struct spsc *q, uint64_t *first)
{
	uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	if (q->head_seen == t)
		q->head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
	*first = t;
	return (size_t)(q->head_seen - t);
}

void spsc_release(struct spsc *q, size_t n)
{
	uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	atomic_store_explicit(&q->tail, t + n, memory_order_release);
}
