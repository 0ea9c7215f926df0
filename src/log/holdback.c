// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log's hold-back window (see holdback.h). Which slots hold a record
 * is a bitmap, so moving the window past a long gap of sequence numbers
 * (-L logs a few transactions of many) skips 64 empty slots at a time
 * and stops as soon as nothing is held: at most cap / 64 words and one
 * step per record handed on.
 */
#include <errno.h>
#include <stdlib.h>

#include "holdback.h"
#include "mem.h"

#define HOLDBACK_MIN 64

struct holdback {
	struct txrec *slot;	/* the record of seq s is in slot[s & mask] */
	uint64_t *used;		/* bit s & mask: that slot holds a record */
	uint64_t mask;		/* cap - 1 */
	uint64_t base;		/* the window is [base, base + cap) */
	size_t held;
	uint64_t late;
	bool huge;
	holdback_out_fn *out;
	void *ctx;
};

static size_t slot_bytes(const struct holdback *w)
{
	return (size_t)(w->mask + 1) * sizeof(*w->slot);
}

static size_t bitmap_bytes(const struct holdback *w)
{
	return (size_t)(w->mask + 1) / 8;
}

struct holdback *holdback_create(size_t cap, bool hugepages,
				 holdback_out_fn *out, void *ctx)
{
	struct holdback *w;
	size_t n = HOLDBACK_MIN;

	while (n < cap && n <= SIZE_MAX / 2 / sizeof(struct txrec))
		n <<= 1;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->mask = n - 1;
	w->huge = hugepages;
	w->out = out;
	w->ctx = ctx;
	w->slot = mem_alloc(slot_bytes(w), hugepages);
	/* The bitmap is small: ordinary pages, even with -G. */
	w->used = mem_alloc(bitmap_bytes(w), false);
	if (!w->slot || !w->used) {
		holdback_destroy(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void holdback_destroy(struct holdback *w)
{
	if (!w)
		return;
	mem_free(w->slot, slot_bytes(w), w->huge);
	mem_free(w->used, bitmap_bytes(w), false);
	free(w);
}

static uint64_t *word_of(const struct holdback *w, uint64_t seq)
{
	return &w->used[(seq & w->mask) >> 6];
}

static bool is_held(const struct holdback *w, uint64_t seq)
{
	return *word_of(w, seq) >> (seq & 63) & 1;
}

/* Hand on the held records below end, in seq order; the window starts
 * at end after. */
static void move_to(struct holdback *w, uint64_t end)
{
	uint64_t s = w->base;

	while (w->held && s < end) {
		uint64_t bits = *word_of(w, s) >> (s & 63);

		if (!bits) {
			s = (s | 63) + 1;	/* the rest of this word is empty */
			continue;
		}
		s += (uint64_t)__builtin_ctzll(bits);
		if (s >= end)
			break;
		w->out(w->ctx, &w->slot[s & w->mask]);
		*word_of(w, s) &= ~(1ULL << (s & 63));
		w->held--;
		s++;
	}
	w->base = end;
}

void holdback_add(struct holdback *w, const struct txrec *r)
{
	uint64_t s = r->seq;
	struct txrec *slot;

	if (s < w->base) {
		w->late++;
		w->out(w->ctx, r);
		return;
	}
	if (s - w->base > w->mask)
		move_to(w, s - w->mask);
	slot = &w->slot[s & w->mask];
	if (is_held(w, s)) {
		w->out(w->ctx, slot);	/* the same seq twice: the first goes on */
	} else {
		*word_of(w, s) |= 1ULL << (s & 63);
		w->held++;
	}
	*slot = *r;
}

struct txrec *holdback_find(struct holdback *w, uint64_t seq)
{
	if (seq < w->base || seq - w->base > w->mask || !is_held(w, seq))
		return NULL;
	return &w->slot[seq & w->mask];
}

void holdback_flush(struct holdback *w)
{
	move_to(w, w->base + w->mask + 1);
}

size_t holdback_held(const struct holdback *w)
{
	return w->held;
}

uint64_t holdback_late(const struct holdback *w)
{
	return w->late;
}
