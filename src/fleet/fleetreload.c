// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SIGHUP: --targets read again (fleetreload.h). A thread off the loop
 * reads and checks the file (a bad file changes nothing: the fleet goes
 * on with what it measures), finds what changed, fills the slots of the
 * targets added (counters zeroed, a session id each) and hands the
 * changes over; the loop applies them between two turns (a target added
 * starts at a phase of the interval of its own, one removed stops and
 * leaves the table, a target whose dscp= changed keeps its counters), and
 * the thread then says what changed, the numbers of each target removed
 * with it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleetdone.h"
#include "fleethttp.h"
#include "fleetloop.h"
#include "fleetreload.h"
#include "fleetset.h"
#include "fleettab.h"
#include "latstat.h"
#include "offloop.h"
#include "targets.h"

#define RELOAD_POLL_NS (20 * NS_PER_MS)

/* A reload's change, handed from its thread to the loop. */
struct fl_op {
	uint32_t slot;
	bool add;		/* add slot (filled), else retire it */
	int tos;		/* add false and tos >= 0: the slot's new TOS alone */
};

struct fl_reload {
	struct run *r;
	struct fleet *f;
	pthread_t tid;
	atomic_bool stop;
	atomic_size_t pending;		/* changes handed to the loop; 0: none */
	struct fl_op *ops;		/* 2 x cap */
	bool *seen;			/* cap: a slot the file still names */
};

static void nap(int64_t ns)
{
	struct timespec ts = ns_to_timespec(ns);

	nanosleep(&ts, NULL);
}

/* The file's target t: kept (its TOS maybe changed), or added. Returns
 * the changes written at ops. */
static size_t diff_one(struct fl_reload *rl, const struct target_spec *t, struct fl_op *ops,
		       int64_t now)
{
	long slot = fleettab_find(rl->f, &t->addr, t->kind);
	int tos = fleetset_tos(rl->r->cfg, t);
	char msg[512];
	size_t i;

	if (slot >= 0 && rl->f->t[slot].spec.kind != t->kind)
		slot = -1;	/* rant's reflector became STAMP's, or back: anew */
	if (slot < 0 && fleetset_check(&rl->r->fs, rl->r->cfg, t, msg, sizeof(msg))) {
		fprintf(stderr, "rant: --targets %s:%u: %s not added: %s\n",
			rl->r->cfg->targets_path, t->line, t->label, msg);
		return 0;
	}
	if (slot >= 0) {
		rl->seen[slot] = true;
		if (rl->f->t[slot].tos == tos)
			return 0;
		ops[0] = (struct fl_op){ .slot = (uint32_t)slot, .tos = tos };
		return 1;
	}
	i = fleettab_take(rl->f, &t->addr, t->kind, now);
	if (i == rl->f->cap) {
		fprintf(stderr, "rant: --targets %s:%u: %s not added: the fleet has room for %zu targets (those it began with, and a quarter more): restart rant to measure more\n",
			rl->r->cfg->targets_path, t->line, t->name, rl->f->cap);
		return 0;
	}
	fleetset_fill(rl->r->cfg, &rl->r->fs, rl->f, i, t);
	ops[0] = (struct fl_op){ .slot = (uint32_t)i, .add = true, .tos = -1 };
	return 1;
}

/* The targets of the file against the table's: the changes. */
static size_t diff(struct fl_reload *rl, const struct target_list *l)
{
	struct fleet *f = rl->f;
	int64_t now = monotonic_ns();
	size_t n = 0;

	memset(rl->seen, 0, f->cap * sizeof(*rl->seen));
	for (size_t i = 0; i < l->n; i++)
		n += diff_one(rl, &l->v[i], rl->ops + n, now);
	for (size_t i = 0; i < f->used; i++)
		if (f->t[i].state == FLEET_ACTIVE && !rl->seen[i])
			rl->ops[n++] = (struct fl_op){ .slot = (uint32_t)i, .tos = -1 };
	return n;
}

/* What changed, once the loop applied it; a target removed with its
 * numbers (its slot is the thread's to read: the loop is done with it). */
static void report(struct fl_reload *rl, size_t n)
{
	size_t added = 0, removed = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fl_op *op = &rl->ops[i];
		const struct fleet_target *t = &rl->f->t[op->slot];

		if (op->add) {
			added++;
		} else if (op->tos < 0) {
			removed++;
			fprintf(stderr, "rant: %s removed: %" PRIu64 " sent, %" PRIu64 " lost, p50 %" PRId64 " ns, p99 %" PRId64 " ns\n",
				t->spec.label, t->cnt.sent, t->cnt.lost,
				latstat_percentile(&t->rtt, 50), latstat_percentile(&t->rtt, 99));
		}
	}
	fprintf(stderr, "rant: --targets %s read again: %zu added, %zu removed, %zu changed\n",
		rl->r->cfg->targets_path, added, removed, n - added - removed);
}

static void reload(struct fl_reload *rl)
{
	struct targets_ctx ctx;
	struct target_list l;
	size_t n;

	fleetset_ctx(rl->r->cfg, rl->f, &ctx);
	if (targets_load(rl->r->cfg->targets_path, &ctx, &l, stderr)) {
		fprintf(stderr, "rant: --targets %s not read again: the fleet goes on with the targets it has\n",
			rl->r->cfg->targets_path);
		return;
	}
	n = diff(rl, &l);
	targets_free(&l);
	if (!n) {
		fprintf(stderr, "rant: --targets %s read again: no change\n", rl->r->cfg->targets_path);
		return;
	}
	atomic_store_explicit(&rl->pending, n, memory_order_release);
	while (atomic_load_explicit(&rl->pending, memory_order_acquire) &&
	       !atomic_load(&rl->stop))
		nap(RELOAD_POLL_NS);
	if (!atomic_load_explicit(&rl->pending, memory_order_acquire))
		report(rl, n);
}

static void *reload_main(void *arg)
{
	struct fl_reload *rl = arg;

	while (!atomic_load(&rl->stop)) {
		if (atomic_exchange(&run_reload, 0))
			reload(rl);
		nap(RELOAD_POLL_NS);
	}
	return NULL;
}

int fl_reload_start(struct fleetloop *L)
{
	struct fl_reload *rl = calloc(1, sizeof(*rl));
	int ret;

	if (!rl)
		return -ENOMEM;
	rl->r = L->r;
	rl->f = L->f;
	rl->ops = calloc(2 * L->f->cap, sizeof(*rl->ops));
	rl->seen = calloc(L->f->cap, sizeof(*rl->seen));
	atomic_store(&run_reload, 0);	/* a SIGHUP before measuring: nothing to reread */
	ret = rl->ops && rl->seen ? offloop_spawn(&rl->tid, reload_main, rl, NULL) : ENOMEM;
	if (ret) {
		free(rl->ops);
		free(rl->seen);
		free(rl);
		return -ret;
	}
	L->reload = rl;
	return 0;
}

void fl_reload_apply(struct fleetloop *L, int64_t now)
{
	struct fl_reload *rl = L->reload;
	size_t n = atomic_load_explicit(&rl->pending, memory_order_acquire), adds = 0, k = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		adds += rl->ops[i].add;
	for (size_t i = 0; i < n; i++) {
		const struct fl_op *op = &rl->ops[i];

		if (op->add)
			fl_target_start(L, op->slot, now + (int64_t)k++ * L->r->cfg->interval_ns /
					(int64_t)adds);
		else if (op->tos >= 0)
			L->f->t[op->slot].tos = op->tos;
		else {
			fl_target_stop(L, op->slot, now);
			fl_http_close(L, op->slot);	/* an http target's connection */
		}
	}
	atomic_store_explicit(&rl->pending, 0, memory_order_release);
}

void fl_reload_stop(struct fleetloop *L)
{
	struct fl_reload *rl = L->reload;

	if (!rl)
		return;
	atomic_store(&rl->stop, true);
	pthread_join(rl->tid, NULL);
	free(rl->ops);
	free(rl->seen);
	free(rl);
	L->reload = NULL;
}
