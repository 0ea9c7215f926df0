// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sends waiting for their TX stamps (see txpend.h): a ring in send
 * order, [tail, head), found by key with a binary search.
 */
#include <errno.h>
#include <stdlib.h>

#include "mem.h"
#include "missing.h"
#include "skbatch.h"
#include "timeutil.h"
#include "txpend.h"

struct txpend {
	struct txpend_entry *e;	/* entry i is e[i & mask] */
	uint64_t mask;
	uint64_t head, tail;	/* the table is [tail, head) */
	size_t waiting;		/* entries not stamped yet */
	int64_t cap_ns;
	bool huge;
	bool snd_seen;		/* newest_snd holds a key */
	uint32_t newest_snd;	/* key of the newest SND matched */
};

static size_t table_bytes(const struct txpend *p)
{
	return (size_t)(p->mask + 1) * sizeof(*p->e);
}

struct txpend *txpend_create(size_t cap, int64_t cap_ns, bool hugepages)
{
	struct txpend *p = calloc(1, sizeof(*p));
	size_t n = 16;

	if (!p)
		return NULL;
	while (n < cap && n <= SIZE_MAX / 2 / sizeof(struct txpend_entry))
		n <<= 1;
	p->mask = n - 1;
	p->cap_ns = cap_ns;
	p->huge = hugepages;
	p->e = mem_alloc(table_bytes(p), hugepages);
	if (!p->e) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void txpend_destroy(struct txpend *p)
{
	if (!p)
		return;
	mem_free(p->e, table_bytes(p), p->huge);
	free(p);
}

static struct txpend_entry *at(const struct txpend *p, uint64_t i)
{
	return &p->e[i & p->mask];
}

struct txpend_entry *txpend_push(struct txpend *p, uint32_t key, int64_t now)
{
	struct txpend_entry *e;

	if (p->head - p->tail > p->mask)
		return NULL;
	e = at(p, p->head++);
	e->key = key;
	e->sent_mono = now;
	e->stamped = false;
	e->sched_kn = TS_NONE;
	e->snd.kn_ns = e->snd.hw_ns = TS_NONE;
	e->owner = NULL;
	e->owner_tag = 0;
	e->flags = 0;
	e->t_mono = now;
	p->waiting++;
	return e;
}

struct txpend_entry *txpend_find(struct txpend *p, uint32_t key)
{
	uint64_t lo = p->tail, hi = p->head;
	uint32_t base;
	int64_t want;

	if (lo == hi)
		return NULL;
	/* Keys grow with the sends (mod 2^32): offsets from the oldest. */
	base = at(p, lo)->key;
	want = (int64_t)(uint32_t)(key - base);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int64_t k = (int64_t)(uint32_t)(at(p, mid)->key - base);

		if (k == want)
			return at(p, mid);
		if (k < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* One report to its send (see txpend_harvest). */
static void match(struct txpend *p, const struct ts_tx *tx, txpend_stamp_fn *stamp, void *ctx)
{
	struct txpend_entry *e = txpend_find(p, tx->key);

	if (!e)
		return;
	if (tx->type == SCM_TSTAMP_SCHED) {
		e->sched_kn = tx->ts.kn_ns;
	} else if (tx->type == SCM_TSTAMP_SND && !e->stamped) {
		e->snd = tx->ts;
		e->stamped = true;
		p->waiting--;
		if (!p->snd_seen || (int32_t)(tx->key - p->newest_snd) > 0)
			p->newest_snd = tx->key;
		p->snd_seen = true;
		if (stamp)
			stamp(ctx, e);
	}
}

unsigned int txpend_harvest(struct txpend *p, struct sk *s, txpend_stamp_fn *stamp,
			    void *ctx)
{
	struct ts_tx tx[SKBATCH_MAX];
	unsigned int n = 0, got;

	/* SKBATCH_MAX reports a system call; a short read emptied the queue */
	do {
		got = sk_tx_read_batch(s, tx, SKBATCH_MAX);
		for (unsigned int i = 0; i < got; i++)
			match(p, &tx[i], stamp, ctx);
		n += got;
	} while (got == SKBATCH_MAX);
	return n;
}

/* Why e ends without its stamp: when a later send's came, dropped in
 * the qdisc (it entered it) or by the error queue; else otherwise. */
static enum txpend_end unstamped_end(const struct txpend *p, const struct txpend_entry *e,
				     enum txpend_end otherwise)
{
	if (p->snd_seen && (int32_t)(p->newest_snd - e->key) > 0)
		return e->sched_kn != TS_NONE ? TXPEND_DROPPED : TXPEND_OVERFLOW;
	return otherwise;
}

size_t txpend_dropped_now(const struct txpend *p, uint64_t tag, uint32_t flags)
{
	size_t n = 0;

	for (uint64_t i = p->tail; i != p->head; i++) {
		const struct txpend_entry *e = at(p, i);

		n += !e->stamped && e->owner_tag == tag && (e->flags & flags) == flags &&
		     unstamped_end(p, e, TXPEND_TIMEOUT) == TXPEND_DROPPED;
	}
	return n;
}

/* Hand on the oldest entry (why, or stamped) and drop it. */
static int retire_oldest(struct txpend *p, enum txpend_end why, txpend_done_fn *done,
			 void *ctx)
{
	struct txpend_entry *e = at(p, p->tail);
	int ret;

	if (e->stamped)
		why = TXPEND_STAMPED;
	else
		p->waiting--;
	ret = done(ctx, e, why);
	p->tail++;
	return ret;
}

int txpend_retire(struct txpend *p, int64_t now, txpend_done_fn *done, void *ctx)
{
	int ret = 0;

	while (!ret && p->tail != p->head) {
		const struct txpend_entry *e = at(p, p->tail);

		if (!e->stamped && now - e->sent_mono <= p->cap_ns)
			break;
		ret = retire_oldest(p, e->stamped ? TXPEND_STAMPED :
				    unstamped_end(p, e, TXPEND_TIMEOUT), done, ctx);
	}
	return ret;
}

int txpend_evict(struct txpend *p, txpend_done_fn *done, void *ctx)
{
	if (p->tail == p->head)
		return 0;
	return retire_oldest(p, unstamped_end(p, at(p, p->tail), TXPEND_FULL), done, ctx);
}

int txpend_flush(struct txpend *p, txpend_done_fn *done, void *ctx)
{
	int ret = 0;

	while (p->tail != p->head) {
		const struct txpend_entry *e = at(p, p->tail);
		/* in the qdisc and not out of it when the run ended: dropped */
		int r = retire_oldest(p, unstamped_end(p, e, e->sched_kn != TS_NONE ?
						       TXPEND_DROPPED : TXPEND_TIMEOUT),
				      done, ctx);

		if (!ret)
			ret = r;
	}
	return ret;
}

size_t txpend_len(const struct txpend *p)
{
	return (size_t)(p->head - p->tail);
}

size_t txpend_waiting(const struct txpend *p)
{
	return p->waiting;
}

int64_t txpend_deadline(const struct txpend *p)
{
	const struct txpend_entry *e = at(p, p->tail);

	/* Retired in order: only the oldest holds the others. */
	if (p->tail == p->head)
		return INT64_MAX;
	return e->stamped ? e->sent_mono : e->sent_mono + p->cap_ns;
}
