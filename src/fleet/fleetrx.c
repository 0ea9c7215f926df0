// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet's pongs and TX stamps (fleetrx.h): a pong is its target's
 * by the address it came from, then its session and its seq; a TX stamp
 * its ping's by its socket's OPT_ID key, never by order.
 */
#include <errno.h>

#include "fleetdone.h"
#include "fleetloop.h"
#include "fleetrx.h"
#include "fleettab.h"
#include "missing.h"
#include "msgfmt.h"
#include "skbatch.h"

/* Batches (SKBATCH_MAX each) read from a socket's queue in one turn at
 * most: every pong queued at the loop's pace (a turn every FL_SEND_BURST
 * pings at most), and a foreign flood does not hold the sends up for
 * long. A batch not full means the queue is empty. */
#define FL_BATCHES 64

/* A pong of an earlier seq than the one awaited (already retired): late
 * when its ping was counted lost, a duplicate when its pong had come. */
static void stray(struct fleetloop *L, size_t slot, uint64_t seq, bool answered)
{
	struct run *r = L->r;
	struct fleet_target *ft = &L->f->t[slot];
	struct fleet_counts *pc = ft->path ? &ft->path[seq % L->f->npaths].cnt : NULL;

	if (!L->t[slot].first_measured || seq < L->t[slot].first_measured) {	/* warm-up's */
		if (answered)
			r->cnt.warmup_duplicate++;
		else
			r->cnt.warmup_late++;
		return;
	}
	if (answered) {
		ft->cnt.duplicate++;
		r->cnt.duplicate++;
		return;
	}
	ft->cnt.late++;
	if (pc)
		pc->late++;
	r->cnt.late++;
}

/* --key: false, counted, when a pong of this run's length has no valid
 * MAC. */
static bool authentic(struct run *r, const struct msgfmt_ctx *fmt, const uint8_t *buf,
		      const struct sk_msg *m, const struct msg_hdr *h)
{
	if (!r->auth)
		return true;
	if (!(h->flags & MSG_F_MAC))
		r->peer_no_key = true;	/* a reflector without --key */
	else if (msgfmt_verify(fmt, r->auth, buf, (size_t)m->len))
		return true;
	r->cnt.invalid++;
	r->cnt.unauthenticated++;
	return false;
}

/* The pong of a ping of slot's target in flight: its stamps kept; the
 * ping retired now when it is the oldest and has its TX stamp. */
static void answered(struct fleetloop *L, size_t slot, struct fl_ping *p,
		     const struct sk_msg *m)
{
	p->state = FL_ANSWERED;
	p->t4_wire = ts_wire(&m->rx, L->r->sk.hw);
	p->t4_sw = m->sw_ns;
	if (p->rec.seq == L->t[slot].retired + 1 && p->rec.t1_wire != TS_NONE)
		fl_settle(L, slot, monotonic_ns(), false);
}

void fl_answer(struct fleetloop *L, size_t slot, uint64_t seq, const struct sk_msg *m)
{
	struct run *r = L->r;
	struct fl_target *t = &L->t[slot];
	struct fl_ping *p;
	uint64_t bit;

	if (!seq || seq > t->seq) {
		r->cnt.invalid++;	/* a seq never sent */
		return;
	}
	bit = 1ULL << (seq & 63);
	t->warm = true;
	p = fl_ping_of(L, slot, seq);
	if (p->rec.seq == seq && p->state == FL_SENT)
		answered(L, slot, p, m);
	else if (p->rec.seq == seq && p->state == FL_ANSWERED)
		stray(L, slot, seq, true);
	else
		stray(L, slot, seq, t->seq - seq < 64 && (t->answered & bit));
	t->answered |= bit;
}

/* One datagram that came on a fleet socket: a rant or STAMP target's
 * pong, in its target's format. */
static void take(struct fleetloop *L, const uint8_t *buf, struct sk_msg *m)
{
	struct run *r = L->r;
	const struct msgfmt_ctx *fmt;
	const struct fleet_target *ft;
	struct msg_hdr h;
	long slot = m->len < 0 ? -1 : fleettab_find(L->f, &m->src, TARGET_RANT);

	if (slot < 0) {
		r->cnt.invalid += m->len < 0;
		r->cnt.foreign += m->len >= 0;	/* from no target of the table */
		return;
	}
	ft = &L->f->t[slot];
	fmt = fleetset_fmt(&r->fs, ft->spec.kind);
	if (msgfmt_parse(fmt, buf, (size_t)m->len, MSG_PONG, &h) ||
	    h.len != L->len[ft->spec.kind]) {
		r->cnt.invalid++;
		return;
	}
	if (!authentic(r, fmt, buf, m, &h))
		return;
	/* STAMP: a reflector of RFC 8762 alone returns SSID 0, the address
	 * tells the target */
	if (ft->spec.kind != TARGET_STAMP && !r->cfg->stamp && h.session != ft->session) {
		r->cnt.foreign++;
		return;
	}
	if (h.flags & MSG_F_REFUSED) {	/* no stamps: its ping is lost */
		L->f->t[slot].cnt.refused++;
		r->cnt.refused++;
		return;
	}
	fl_answer(L, (size_t)slot, msgfmt_seq_near(fmt, L->t[slot].seq, h.seq), m);
}

void fl_read(struct fleetloop *L, unsigned int i, fl_take_fn *fn)
{
	struct skbatch *b = L->batch[i];
	struct sk *s = fl_sock(L, i);

	for (int turns = 0; turns < FL_BATCHES; turns++) {
		int n = skbatch_recv(s, b, L->r->cfg->sw, false);

		/* an ICMP error's errno, handed to this receive once (a
		 * ping or raw socket's, IP_RECVERR: fleet.c's send_again):
		 * the next one reads the queue */
		if (n < 0 && n != -EAGAIN)
			continue;
		if (n <= 0)
			return;
		for (int j = 0; j < n; j++)
			fn(L, skbatch_buf(b, (unsigned int)j), skbatch_msg(b, (unsigned int)j));
		if (n < SKBATCH_MAX && turns)
			return;
	}
}

void fl_receive(struct fleetloop *L, unsigned int i)
{
	fl_read(L, i, take);
}

void fl_stamped(struct fleetloop *L, size_t slot, uint64_t seq, const struct ts_stamps *ts)
{
	struct fl_ping *p = fl_ping_of(L, slot, seq);

	if (p->state == FL_EMPTY || p->rec.seq != seq)
		return;		/* retired meanwhile: --timeout passed */
	p->rec.t1_wire = ts_wire(ts, L->r->sk.hw);
	if (p->state == FL_ANSWERED && seq == L->t[slot].retired + 1)
		fl_settle(L, slot, monotonic_ns(), false);
}

/* A ping's TX stamp (SND), by its key: to the ping while in flight. */
static void stamped(struct fleetloop *L, unsigned int i, const struct ts_tx *tx)
{
	const struct fl_key *k = &L->keys[i][tx->key & (L->nkeys - 1)];

	if (k->key != tx->key || k->slot >= L->f->cap ||
	    fl_ping_of(L, k->slot, k->seq)->key != tx->key)
		return;
	fl_stamped(L, k->slot, k->seq, &tx->ts);
}

void fl_refused(struct fleetloop *L, size_t slot, uint64_t seq)
{
	struct fl_target *t = &L->t[slot];
	struct fl_ping *p = fl_ping_of(L, slot, seq);

	t->warm = true;
	if (!seq || seq > t->seq || p->rec.seq != seq || p->state != FL_SENT)
		return;		/* not a probe in flight (a second RST) */
	p->state = FL_EMPTY;
	if (p->warmup)
		return;
	L->f->t[slot].cnt.refused++;
	L->r->cnt.refused++;
}

void fl_harvest(struct fleetloop *L, unsigned int i, fl_error_fn *fn)
{
	struct ts_tx tx[SKBATCH_MAX];
	struct sk_icmp_err err[SKBATCH_MAX];
	unsigned int n, nerr = 0;

	for (int turns = 0; turns < FL_BATCHES; turns++) {
		n = fn ? sk_errq_read_batch(fl_sock(L, i), tx, SKBATCH_MAX, err, &nerr) :
		    sk_tx_read_batch(fl_sock(L, i), tx, SKBATCH_MAX);
		for (unsigned int j = 0; j < n; j++)
			if (tx[j].type == SCM_TSTAMP_SND)
				stamped(L, i, &tx[j]);
		for (unsigned int j = 0; j < nerr; j++)
			fn(L, &err[j]);
		if (n + nerr < SKBATCH_MAX)
			return;
	}
}

void fl_error(struct fleetloop *L, size_t slot, uint64_t seq, enum icmpwire_err kind)
{
	struct fl_target *t = &L->t[slot];
	struct fl_ping *p;
	uint64_t bit;

	if (!seq || seq > t->seq)
		return;		/* a seq never sent */
	bit = 1ULL << (seq & 63);
	p = fl_ping_of(L, slot, seq);
	if (p->rec.seq == seq && p->state == FL_SENT) {
		p->state = FL_ERRORED;
		p->err = (uint8_t)kind;
		t->answered |= bit;
		if (seq == t->retired + 1)
			fl_settle(L, slot, monotonic_ns(), false);
		return;
	}
	if (p->rec.seq == seq && p->state != FL_EMPTY)
		return;		/* answered or returned already: a second answer */
	/* retired: lost, unless its answer came (known for the last 64) */
	if (t->first_measured && seq >= t->first_measured &&
	    !(t->seq - seq < 64 && (t->answered & bit)))
		L->r->probe.echo_late_errors++;
}
