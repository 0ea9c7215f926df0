// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deadlines by id (see dueheap.h), on heap.h's heap.
 */
#include <errno.h>
#include <stdlib.h>

#include "dueheap.h"
#include "heap.h"

int dueheap_init(struct dueheap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap;
	h->v = calloc(cap ? cap : 1, sizeof(*h->v));
	h->pos = calloc(cap ? cap : 1, sizeof(*h->pos));
	if (!h->v || !h->pos) {
		dueheap_free(h);
		return -ENOMEM;
	}
	return 0;
}

void dueheap_free(struct dueheap *h)
{
	free(h->v);
	free(h->pos);
	h->v = NULL;
	h->pos = NULL;
	h->n = 0;
}

static bool earlier(const void *a, const void *b)
{
	return ((const struct dueheap_ent *)a)->due < ((const struct dueheap_ent *)b)->due;
}

static void moved(void *ctx, const void *e, size_t i)
{
	struct dueheap *h = ctx;

	h->pos[((const struct dueheap_ent *)e)->id] = (uint32_t)i + 1;
}

static const struct heap_ops ops = {
	.size = sizeof(struct dueheap_ent), .before = earlier, .moved = moved,
};

void dueheap_set(struct dueheap *h, uint32_t id, int64_t due)
{
	struct dueheap_ent e = { .due = due, .id = id };
	size_t i;

	if (!h->pos[id]) {
		heap_up(h->v, h->n++, &e, &ops, h);
		return;
	}
	i = heap_up(h->v, h->pos[id] - 1, &e, &ops, h);
	heap_down(h->v, h->n, i, &e, &ops, h);
}

void dueheap_remove(struct dueheap *h, uint32_t id)
{
	struct dueheap_ent e;
	size_t i;

	if (!h->pos[id])
		return;
	i = h->pos[id] - 1;
	h->pos[id] = 0;
	if (i == --h->n)
		return;
	e = h->v[h->n];		/* the last into its place */
	heap_up(h->v, i, &e, &ops, h);
	e = h->v[i];
	heap_down(h->v, h->n, i, &e, &ops, h);
}
