/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deadlines by id: a binary min-heap (heap.h) of (due, id) with each
 * id's place kept, so the earliest is at hand, and an id is moved or
 * taken out in O(log n). The fleet's schedule (each target's next
 * ping). Its memory is allocated once, for ids 0 to cap - 1; nothing
 * allocates after.
 */
#ifndef RANT_DUEHEAP_H
#define RANT_DUEHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dueheap_ent {
	int64_t due;
	uint32_t id;
};

struct dueheap {
	size_t n, cap;
	struct dueheap_ent *v;		/* the heap, n of cap */
	uint32_t *pos;			/* id's place in v + 1; 0: not in it */
};

/* 0, or -ENOMEM. */
int dueheap_init(struct dueheap *h, size_t cap);
void dueheap_free(struct dueheap *h);

/* id (< cap) due at due: added, or moved when it is in already. */
void dueheap_set(struct dueheap *h, uint32_t id, int64_t due);
/* id taken out (nothing when it is not in). */
void dueheap_remove(struct dueheap *h, uint32_t id);

/* The earliest: false when empty. */
static inline bool dueheap_top(const struct dueheap *h, uint32_t *id, int64_t *due)
{
	if (!h->n)
		return false;
	*id = h->v[0].id;
	*due = h->v[0].due;
	return true;
}

static inline bool dueheap_has(const struct dueheap *h, uint32_t id)
{
	return h->pos[id] != 0;
}

#endif
