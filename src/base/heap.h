/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A binary heap over the caller's array, of elements of any size: the
 * element that goes first (ops->before) at v[0], each element's
 * children at 2i + 1 and 2i + 2. The caller owns the array and its
 * count. An element goes in through a hole: at the end (a new one), at
 * the top (the top replaced), or where one changed or left; heap_up()
 * and heap_down() move the hole past the elements that go after (or
 * before) the new one, each moved once, and copy it into the place
 * found. Each move is told to ops->moved where the caller keeps the
 * elements' places (dueheap.h: a deadline's, by its id). Its users: the
 * fleet's schedule (dueheap.h), the largest breaches a run keeps
 * (stats/bkeep.c) and the worst flows a capture keeps (watch/watchagg.c).
 *
 * Inline, the ops a constant of the caller's: the compiler builds each
 * user's heap with its own comparison and element size, as if written
 * out (the fleet's schedule moves at every ping). No allocation.
 */
#ifndef RANT_HEAP_H
#define RANT_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct heap_ops {
	size_t size;		/* bytes of an element */
	/* a goes before b (nearer the top); a strict weak order */
	bool (*before)(const void *a, const void *b);
	/* e is now v[i] (NULL: places not kept); ctx the caller's */
	void (*moved)(void *ctx, const void *e, size_t i);
};

static inline void *heap_at(void *v, size_t i, const struct heap_ops *o)
{
	return (char *)v + i * o->size;
}

/* e copied to v[i], its place told. */
static inline void heap_put(void *v, size_t i, const void *e, const struct heap_ops *o,
			    void *ctx)
{
	memcpy(heap_at(v, i, o), e, o->size);
	if (o->moved)
		o->moved(ctx, heap_at(v, i, o), i);
}

/* e into the hole at v[i], up past every parent it goes before: its
 * place. e is not in v[0..i] (a copy, or the caller's). */
static inline size_t heap_up(void *v, size_t i, const void *e, const struct heap_ops *o,
			     void *ctx)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!o->before(e, heap_at(v, p, o)))
			break;
		heap_put(v, i, heap_at(v, p, o), o, ctx);
		i = p;
	}
	heap_put(v, i, e, o, ctx);
	return i;
}

/* e into the hole at v[i] of a heap of n (the hole counted), down below
 * every child that goes before it: its place. e is not in v[0..n) (a
 * copy, the caller's, or v[n]: the last one, taken out). */
static inline size_t heap_down(void *v, size_t n, size_t i, const void *e,
			       const struct heap_ops *o, void *ctx)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && o->before(heap_at(v, c + 1, o), heap_at(v, c, o)))
			c++;
		if (!o->before(heap_at(v, c, o), e))
			break;
		heap_put(v, i, heap_at(v, c, o), o, ctx);
		i = c;
	}
	heap_put(v, i, e, o, ctx);
	return i;
}

#endif
