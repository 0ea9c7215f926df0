// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet ping's end (fleetloop.h): retired in its target's seq order,
 * counted (the target's, its path's, the run's), its round trip into
 * the target's and the path's statistics and the run's histogram,
 * logged and checked against -t.
 */
#include "fleetloop.h"
#include "measure.h"

/* The counts a retired ping adds to: its target's, its path's, the run's. */
struct fl_counts {
	struct fleet_counts *t, *p;
	struct counts *r;
};

static void lost(struct fleetloop *L, struct fl_ping *p, const struct fl_counts *k)
{
	k->t->lost++;
	if (k->p)
		k->p->lost++;
	k->r->lost++;
	txrec_set_lost(&p->rec);
	measure_done(L->r, &p->rec, INT64_MAX);
}

/* A pong came in time: counted; its RTT, where both wire stamps came. */
static void received(struct fleetloop *L, struct fl_ping *p, const struct fl_counts *k,
		     struct fleet_target *ft)
{
	struct run *r = L->r;
	uint64_t breaches = r->cnt.breaches;
	int64_t rtt = 0;

	k->t->received++;
	if (k->p)
		k->p->received++;
	r->cnt.received++;
	txrec_set_t4_sw(&p->rec, p->t4_sw);
	if (p->rec.t1_wire == TS_NONE) {
		k->t->missing_tx_ts++;
		r->cnt.missing_tx_ts++;
		r->cnt.missing_tx_timeout++;
	}
	if (p->t4_wire == TS_NONE) {
		k->t->missing_rx_ts++;
		r->cnt.missing_rx_ts++;
	}
	if (p->rec.t1_wire != TS_NONE && p->t4_wire != TS_NONE) {
		txrec_set_t4_wire(&p->rec, p->t4_wire);
		rtt = p->t4_wire - p->rec.t1_wire;
		latstat_add(&ft->rtt, rtt, p->rec.seq);
		if (ft->path)
			latstat_add(&ft->path[p->path].rtt, rtt, p->rec.seq);
		hist_add(r->hist[M_RTT], rtt, p->rec.seq);
	}
	measure_done(r, &p->rec, rtt);
	if (r->cnt.breaches != breaches)
		ft->cnt.breaches++;
}

/* Retire p: known lost, or answered (lost too when its pong came after
 * --timeout by the wire stamps). */
static void retire(struct fleetloop *L, size_t slot, struct fl_ping *p)
{
	struct fleet_target *ft = &L->f->t[slot];
	struct fl_counts k = { .t = &ft->cnt, .p = ft->path ? &ft->path[p->path].cnt : NULL,
			       .r = &L->r->cnt };

	if (p->warmup)
		;	/* counted as it left */
	else if (p->state == FL_SENT)
		lost(L, p, &k);
	else if (p->rec.t1_wire != TS_NONE && p->t4_wire != TS_NONE &&
		 p->t4_wire - p->rec.t1_wire > L->r->cfg->timeout_ns) {
		lost(L, p, &k);
		k.t->late++;
		if (k.p)
			k.p->late++;
		k.r->late++;
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
		 * --timeout after the send, it is waited for */
		if (!all && !waited && (p->state == FL_SENT || p->rec.t1_wire == TS_NONE))
			break;
		retire(L, slot, p);
		t->retired++;
	}
}
