// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The in-flight table of open-loop pacing and the loss tracking of both
 * loops (see openloop.h). The open loop itself is emitopen.c's.
 */
#include <errno.h>
#include <string.h>

#include "mem.h"
#include "openloop.h"

int ol_create(struct ol_table *t, size_t slots, bool hugepages)
{
	memset(t, 0, sizeof(*t));
	if (!slots || (slots & (slots - 1)))
		return -EINVAL;
	t->e = mem_alloc(slots * sizeof(*t->e), hugepages);
	if (!t->e)
		return -errno;
	t->mask = slots - 1;
	t->huge = hugepages;
	return 0;
}

void ol_destroy(struct ol_table *t)
{
	if (t->e)
		mem_free(t->e, (t->mask + 1) * sizeof(*t->e), t->huge);
	t->e = NULL;
}

void ol_reset(struct ol_table *t, uint64_t first)
{
	for (uint64_t i = 0; i <= t->mask; i++)
		t->e[i].state = OL_FREE;
	t->oldest = t->next = first;
	t->inflight = 0;
}

struct ol_entry *ol_put(struct ol_table *t, uint64_t seq)
{
	struct ol_entry *x = &t->e[seq & t->mask];

	if (!ol_room(t, seq))
		return NULL;
	txrec_clear(&x->rec);
	x->rec.seq = seq;
	x->t4_wire = TS_NONE;
	x->t4_sw = TS_NONE;
	x->state = OL_SENT;
	t->next = seq + 1;
	if (++t->inflight > t->inflight_max)
		t->inflight_max = t->inflight;
	return x;
}

bool ol_room(const struct ol_table *t, uint64_t seq)
{
	return t->e[seq & t->mask].state == OL_FREE && seq >= t->next;
}

struct ol_entry *ol_get(struct ol_table *t, uint64_t seq)
{
	struct ol_entry *x = &t->e[seq & t->mask];

	if (seq < t->oldest || seq >= t->next || x->state == OL_FREE ||
	    x->rec.seq != seq)
		return NULL;
	return x;
}

struct ol_entry *ol_oldest(struct ol_table *t)
{
	/* Skip the seqs that never entered (their send failed). */
	while (t->oldest < t->next) {
		struct ol_entry *x = ol_get(t, t->oldest);

		if (x)
			return x;
		t->oldest++;
	}
	return NULL;
}

void ol_retire(struct ol_table *t, struct ol_entry *x)
{
	x->state = OL_FREE;
	if (x->rec.seq == t->oldest)
		t->oldest++;
}

void ol_landed(struct ol_table *t)
{
	if (t->inflight)
		t->inflight--;
}

void loss_lost(struct loss_track *l)
{
	if (++l->burst > l->burst_max)
		l->burst_max = l->burst;
}

void loss_received(struct loss_track *l)
{
	l->burst = 0;
}

bool loss_arrived(struct loss_track *l, uint64_t seq)
{
	if (seq < l->highest) {
		l->reordered++;
		return true;
	}
	l->highest = seq;
	return false;
}
