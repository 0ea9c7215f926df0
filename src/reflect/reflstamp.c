// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflector's pongs after their send (see reflstamp.h): the TX stamp
 * of each harvested from the error queue whenever it comes (txpend.h: a
 * pong held in a qdisc has it only when it leaves), never waited for,
 * and queued as the follow-up of a later pong of its session; a measured
 * ping's record sampled, logged and checked once its stamp came (or was
 * given up: TX_STAMP_CAP_NS).
 */
#include "measure.h"
#include "reflector.h"
#include "reflstamp.h"
#include "series.h"
#include "session.h"
#include "sock.h"
#include "txpend.h"

#define END_WAIT_NS NS_PER_SEC	/* at the end: the last pongs' stamps */
#define TX_CONN_WAIT_NS (2 * NS_PER_MS)	/* TCP reflector: a pong's stamp, at most */
#define TAIL_END_WAIT_NS (50 * NS_PER_MS)	/* ... a held tail's, at the end */

/* A measured ping was answered (sent: its pong left, tx_stamped: with its
 * wire stamp) or not: through the run's fan-out (measure.h). */
enum measure_next reflect_measured(struct run *r, struct session *s, struct txrec *rec,
				   bool sent, bool tx_stamped, int64_t came_mono)
{
	const struct measure_tx t = {
		.side = MEASURE_REFLECT, .rec = rec, .which = METRIC_NO_T3 | METRIC_T3,
		.sent = sent,
		.no_tx = sent && !tx_stamped, .no_rx = rec->t2_wire == TS_NONE,
		.came_mono = came_mono, .s = s,
	};

	return measure_tx(r, &t);
}

/* The first measured ping: measuring starts. */
void reflect_start(struct run *r, struct reflector *f, const struct session *s)
{
	if (f->started)
		return;
	r->session = s->id;
	measure_start(r);
	if (r->series)
		series_begin(r->series, monotonic_ns(), realtime_ns());
	f->started = true;
}

/* A pending pong's session, NULL when it was evicted meanwhile (sessions
 * move when one before them goes: session.h, sessions_still). */
static struct session *reflect_owner(const struct reflector *f, struct txpend_entry *e)
{
	return e->owner = sessions_still(f->r->sessions, e->owner, e->owner_tag);
}

/* A pong's TX stamp came: its T3 queued as its session's follow-up. */
static void reflect_stamped(void *ctx, struct txpend_entry *e)
{
	const struct reflector *f = ctx;
	int64_t t3 = ts_wire(&e->snd, f->r->sk.hw);
	struct session *s;

	/* A report without the wire layer's stamp (a NIC that missed it)
	 * gives no follow-up: the pong's T3 is missing. e->aux: the pong's
	 * number in its session (reflect_pend). */
	if (t3 != TS_NONE && (s = reflect_owner(f, e)))
		session_fu_put(s, &(struct session_fu){ e->rec.seq, (uint64_t)e->aux, t3 });
}

/* A pong retired from the table: its stamps into the record, then (a
 * measured ping) counted, sampled, logged and checked. Non-zero: the
 * run stops (a breach, or the log failed). */
static int reflect_done(void *ctx, struct txpend_entry *e, enum txpend_end why)
{
	struct reflector *f = ctx;
	struct run *r = f->r;
	struct session *s;
	bool stamped;
	int64_t q;

	/* With NIC stamps the driver reports SND with its HW stamp alone: a
	 * report that never came is a stamp the NIC missed as likely as a
	 * qdisc drop, so it is counted missing, not dropped. */
	if (why == TXPEND_DROPPED && r->sk.hw)
		why = TXPEND_TIMEOUT;
	/* Stamped on the wire: the report came with the stamp of the run's
	 * layer. */
	stamped = why == TXPEND_STAMPED && ts_wire(&e->snd, r->sk.hw) != TS_NONE;

	/* -c reached: the pongs answered meanwhile are not measured */
	if (!(e->flags & RF_MEASURED) || f->stopped ||
	    (r->cfg->count && r->cnt.received >= r->cfg->count))
		return 0;
	if (stamped) {
		txrec_set_t3_wire(&e->rec, ts_wire(&e->snd, r->sk.hw));
		if (e->sched_kn != TS_NONE)
			txrec_set_queue(&e->rec, e->snd.kn_ns, e->sched_kn);
	}
	r->cnt.missing_tx_timeout += why == TXPEND_TIMEOUT;
	r->cnt.missing_tx_overflow += why == TXPEND_OVERFLOW;
	r->cnt.missing_tx_full += why == TXPEND_FULL;
	r->cnt.qdisc_drops += why == TXPEND_DROPPED;	/* the pong never left */
	s = reflect_owner(f, e);
	if (s) {	/* for the report in its later pongs */
		s->qdisc_drops += why == TXPEND_DROPPED;
		if (txrec_queue(&e->rec, false, &q) && q > s->queue_max_ns)
			s->queue_max_ns = q;
	}
	if (reflect_measured(r, s, &e->rec, why != TXPEND_DROPPED, stamped,
			     e->t_mono) == MEASURE_GO_ON)
		return 0;
	f->stopped = true;
	return 1;
}

/* The stamps queued now to their pongs, and the pongs whose turn came
 * retired (at now, CLOCK_MONOTONIC): non-zero when the run stops. */
int reflect_harvest(struct run *r, struct reflector *f, int64_t now)
{
	txpend_harvest(f->pend, &r->sk, reflect_stamped, f);
	return txpend_retire(f->pend, now, reflect_done, f);
}

/* The tail slot of via, or (want a free one) a free slot; NULL: none. */
static struct conn_tail *tail_of(struct reflector *f, const struct sk *via, bool want_free)
{
	struct conn_tail *free_slot = NULL;

	for (int i = 0; i < TAILS; i++) {
		if (f->tail[i].via == via)
			return &f->tail[i];
		if (!f->tail[i].via && !free_slot)
			free_slot = &f->tail[i];
	}
	return want_free ? free_slot : NULL;
}

/* The pong held in t: its last byte's stamp if it came within wait_ns
 * (its SCHED stamp before it), retired either way; the slot freed. */
static int tail_settle(struct reflector *f, struct conn_tail *t, int64_t wait_ns)
{
	struct txpend_entry e = t->e;
	struct sk *via = t->via;
	struct ts_stamps sch;

	t->via = NULL;
	e.stamped = via->fd == t->fd && sk_tx_stamp(via, e.key, wait_ns, &e.snd) == 0;
	if (e.stamped) {
		if (!f->r->cfg->no_queue_stamps && sk_tx_sched(via, e.key, 0, &sch) == 0)
			e.sched_kn = sch.kn_ns;
		reflect_stamped(f, &e);
	}
	return reflect_done(f, &e, e.stamped ? TXPEND_STAMPED : TXPEND_TIMEOUT);
}

int reflect_tail(struct reflector *f, struct sk *via)
{
	struct conn_tail *t = tail_of(f, via, false);

	return t ? tail_settle(f, t, 0) : 0;
}

/*
 * The pong of key left on one of a TCP reflector's connections (tcpserve.c:
 * each has its own socket, so its own error queue and OPT_ID byte
 * count): its stamps are read there, TX_CONN_WAIT_NS at most, and the
 * pong retired at once. Non-zero: stop.
 */
static int reflect_conn_stamp(struct reflector *f, struct sk *via, struct session *s,
			      const struct txrec *rec, uint32_t key, bool measured,
			      int64_t came, uint64_t pong_no)
{
	struct txpend_entry e = { .rec = *rec, .owner = s, .owner_tag = s ? s->ordinal : 0,
				  .t_mono = came, .aux = (int64_t)pong_no, .key = key,
				  .flags = measured ? RF_MEASURED : 0, .sched_kn = TS_NONE };
	struct conn_tail *t = f->r->cfg->writes > 1 ? tail_of(f, via, true) : NULL;
	struct ts_stamps sch;
	int ret = 0;

	/* --writes 2 or more: its last byte may wait for the emitter's ACK */
	if (t) {
		if (t->via == via)
			ret = tail_settle(f, t, 0);	/* the connection's last one */
		*t = (struct conn_tail){ .via = via, .fd = via->fd, .e = e };
		return ret;
	}
	e.stamped = sk_tx_stamp(via, key, TX_CONN_WAIT_NS, &e.snd) == 0;
	if (e.stamped) {
		/* The pong's SCHED stamp came before its SND stamp. */
		if (!f->r->cfg->no_queue_stamps && sk_tx_sched(via, key, 0, &sch) == 0)
			e.sched_kn = sch.kn_ns;
		reflect_stamped(f, &e);
	}
	return reflect_done(f, &e, e.stamped ? TXPEND_STAMPED : TXPEND_TIMEOUT);
}

/* The pong of key left: into the table until its stamp comes (the
 * oldest retired first when the table is full; the caller harvests).
 * Non-zero: stop. */
int reflect_pend(struct run *r, struct reflector *f, struct session *s,
		 const struct answer *a, uint32_t key, struct sk *via)
{
	struct txpend_entry *e;
	int ret = 0;

	if (via)
		return reflect_conn_stamp(f, via, s, &a->rec, key, a->measured, a->came,
					  a->pong_no);
	if (r->sk.fd != f->pend_fd) {
		ret = txpend_flush(f->pend, reflect_done, f);
		f->pend_fd = r->sk.fd;
	}
	e = txpend_push(f->pend, key, a->came);
	if (!e) {
		ret |= txpend_evict(f->pend, reflect_done, f);
		e = txpend_push(f->pend, key, a->came);
	}
	e->rec = a->rec;
	e->owner = s;
	e->owner_tag = s ? s->ordinal : 0;	/* ordinals start at 1 */
	e->t_mono = a->came;
	e->aux = (int64_t)a->pong_no;
	e->flags = a->measured ? RF_MEASURED : 0;
	return ret;
}

/*
 * The run ends: the last pongs' stamps waited for (END_WAIT_NS at most:
 * they came long ago unless a queue holds the pongs), then every pong still
 * in the table retired (measured, unless a breach stopped the run).
 */
void reflect_finish(struct run *r, struct reflector *f)
{
	int64_t until = monotonic_ns() + END_WAIT_NS;

	while (!f->stopped && txpend_waiting(f->pend) && monotonic_ns() < until) {
		if (reflect_harvest(r, f, monotonic_ns()))
			break;
		if (txpend_waiting(f->pend))
			sk_poll(&r->sk, until);
	}
	txpend_flush(f->pend, reflect_done, f);
	for (int i = 0; i < TAILS; i++)
		if (f->tail[i].via)
			tail_settle(f, &f->tail[i], f->stopped ? 0 : TAIL_END_WAIT_NS);
}
