// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deadlines by id (see dueheap.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "dueheap.h"

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

static void place(struct dueheap *h, size_t i, struct dueheap_ent e)
{
	h->v[i] = e;
	h->pos[e.id] = (uint32_t)i + 1;
}

static void up(struct dueheap *h, size_t i)
{
	struct dueheap_ent e = h->v[i];

	while (i > 0 && h->v[(i - 1) / 2].due > e.due) {
		place(h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(h, i, e);
}

static void down(struct dueheap *h, size_t i)
{
	struct dueheap_ent e = h->v[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].due < h->v[c].due)
			c++;
		if (h->v[c].due >= e.due)
			break;
		place(h, i, h->v[c]);
		i = c;
	}
	place(h, i, e);
}

void dueheap_set(struct dueheap *h, uint32_t id, int64_t due)
{
	size_t i;

	if (!h->pos[id]) {
		i = h->n++;
		place(h, i, (struct dueheap_ent){ .due = due, .id = id });
		up(h, i);
		return;
	}
	i = h->pos[id] - 1;
	h->v[i].due = due;
	up(h, i);
	down(h, h->pos[id] - 1);
}

void dueheap_remove(struct dueheap *h, uint32_t id)
{
	size_t i;

	if (!h->pos[id])
		return;
	i = h->pos[id] - 1;
	h->pos[id] = 0;
	if (i == --h->n)
		return;
	place(h, i, h->v[h->n]);
	up(h, i);
	down(h, h->pos[h->v[i].id] - 1);
}
