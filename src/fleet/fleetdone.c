// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet ping's end (fleetdone.h): retired in its target's seq order,
 * counted (the target's, its path's, the run's), its round trip into
 * the target's and the path's statistics and the run's histogram,
 * logged and checked against -t; and a target's start and stop (the
 * set-up's, a reload's).
 */
#include <string.h>

#include "dueheap.h"
#include "fleetdone.h"
#include "fleetloop.h"
#include "fleettab.h"
#include "latstat.h"
#include "measure.h"

/* The counts a retired ping adds to: its target's and its path's (the
 * run's are measure_tx()'s). */
struct fl_counts {
	struct fleet_counts *t, *p;
};

/* No pong in time: counted (measure_tx() the run's), logged LOST. */
static void lost(struct fleetloop *L, struct fl_ping *p, const struct fl_counts *k)
{
	struct measure_tx t = { .side = MEASURE_FLEET, .rec = &p->rec, .lost = true };

	k->t->lost++;
	if (k->p)
		k->p->lost++;
	measure_tx(L->r, &t);
}

/* An ICMP error returned it (unreachable, time exceeded): counted by
 * its kind (the run's as --icmp counts them), neither received nor
 * lost, and not logged. */
static void errored(struct fleetloop *L, const struct fl_ping *p, const struct fl_counts *k)
{
	k->t->icmp_errors[p->err]++;
	if (k->p)
		k->p->icmp_errors[p->err]++;
	L->r->probe.echo_errors[p->err]++;
}

/* A pong came in time: counted; its RTT, where both wire stamps came,
 * into the target's and the path's statistics; the run's fan-out
 * (measure_tx(): the run's counts and histogram, the log, -t). */
static void received(struct fleetloop *L, struct fl_ping *p, const struct fl_counts *k,
		     struct fleet_target *ft)
{
	struct run *r = L->r;
	uint64_t breaches = r->cnt.breaches;
	struct measure_tx t = {
		.side = MEASURE_FLEET, .rec = &p->rec, .which = METRIC_NO_T3 | METRIC_T3,
		.no_tx = p->rec.t1_wire == TS_NONE, .no_rx = p->t4_wire == TS_NONE,
	};

	k->t->received++;
	if (k->p)
		k->p->received++;
	txrec_set_t4_sw(&p->rec, p->t4_sw);
	k->t->missing_tx_ts += t.no_tx;
	k->t->missing_rx_ts += t.no_rx;
	r->cnt.missing_tx_timeout += t.no_tx;
	if (!t.no_tx && !t.no_rx) {
		int64_t rtt = p->t4_wire - p->rec.t1_wire;

		txrec_set_t4_wire(&p->rec, p->t4_wire);
		latstat_add(&ft->rtt, rtt, p->rec.seq);
		if (ft->path)
			latstat_add(&ft->path[p->path].rtt, rtt, p->rec.seq);
	}
	measure_tx(r, &t);
	if (r->cnt.breaches != breaches)
		ft->cnt.breaches++;
}

/* Retire p: known lost, returned by an ICMP error, or answered (lost
 * too when its pong came after --timeout by the wire stamps). */
static void retire(struct fleetloop *L, size_t slot, struct fl_ping *p)
{
	struct fleet_target *ft = &L->f->t[slot];
	struct fl_counts k = { .t = &ft->cnt, .p = ft->path ? &ft->path[p->path].cnt : NULL };

	if (p->warmup)
		;	/* counted as it left */
	else if (p->state == FL_SENT)
		lost(L, p, &k);
	else if (p->state == FL_ERRORED)
		errored(L, p, &k);
	else if (p->rec.t1_wire != TS_NONE && p->t4_wire != TS_NONE &&
		 p->t4_wire - p->rec.t1_wire > L->r->cfg->timeout_ns) {
		lost(L, p, &k);
		k.t->late++;
		if (k.p)
			k.p->late++;
		L->r->cnt.late++;
	} else {
		received(L, p, &k, ft);
	}
	p->state = FL_EMPTY;
}

void fl_settle(struct fleetloop *L, size_t slot, int64_t now, bool all)
{
	struct fl_target *t = &L->t[slot];
	int64_t timeout = L->r->cfg->timeout_ns;

	(void)now;
	while (t->retired < t->seq) {
		struct fl_ping *p = fl_ping_of(L, slot, t->retired + 1);
		/* --timeout after it left, and its queues read since: a pong
		 * or a stamp that came in time has been taken */
		bool waited = L->drained - p->sent_mono > timeout;

		if (p->state == FL_EMPTY || p->rec.seq != t->retired + 1) {
			t->retired++;	/* never sent (the send failed) */
			continue;
		}
		/* no pong yet, or its TX stamp still to come: within
		 * --timeout after the send, it is waited for (an ICMP
		 * error's ping needs no stamp) */
		if (!all && !waited && (p->state == FL_SENT ||
					(p->state == FL_ANSWERED && p->rec.t1_wire == TS_NONE)))
			break;
		retire(L, slot, p);
		t->retired++;
	}
}

void fl_target_start(struct fleetloop *L, size_t slot, int64_t due)
{
	struct fl_target *t = &L->t[slot];

	memset(t->ring, 0, L->ring_len * sizeof(*t->ring));
	*t = (struct fl_target){ .due = due, .started = due, .ring = t->ring };
	fleettab_activate(L->f, slot, realtime_ns());
	dueheap_set(&L->sched, (uint32_t)slot, due);
	L->active++;
}

/* Its pings in flight are dropped uncounted: they were the target's, and
 * it left the table. */
void fl_target_stop(struct fleetloop *L, size_t slot, int64_t now)
{
	dueheap_remove(&L->sched, (uint32_t)slot);
	memset(L->t[slot].ring, 0, L->ring_len * sizeof(struct fl_ping));
	fleettab_retire(L->f, slot, now);
	L->active--;
}
