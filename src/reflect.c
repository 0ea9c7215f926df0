// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflect loop (see reflect.h). The pong leaves first; its TX stamp
 * is harvested from the error queue whenever it comes (txpend.h: a pong
 * held in a qdisc has it only when it leaves), never waited for, and
 * travels as the follow-up of a later pong of its session. A measured
 * ping's record is sampled, logged and checked once its stamp came (or
 * was given up: TX_STAMP_CAP_NS).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "allow.h"
#include "auth.h"
#include "measure.h"
#include "reflect.h"
#include "series.h"
#include "session.h"
#include "txpend.h"

#define RX_BUF_LEN RANT_TCP_MAX_LEN	/* the largest message of any transport */
/*
 * A pong's TX stamp is waited for this long at most (the loop goes on
 * meanwhile): far above any queue a latency run meets (the bufferbloat
 * queue of the README holds a pong 240 ms), and within what a record
 * can hold (T3 - T2 is an int32 of ns: 2.147 s).
 */
#define TX_STAMP_CAP_NS (2 * NS_PER_SEC)
#define TX_PENDING 8192		/* pongs awaiting their stamp at most */
#define END_WAIT_NS NS_PER_SEC	/* at the end: the last pongs' stamps */
#define TX_CONN_WAIT_NS (2 * NS_PER_MS)	/* TCP reflector: a pong's stamp, at most */
#define RF_MEASURED 1u		/* txpend_entry flags: a measured ping's pong */
#define CAME_REFRESH 64		/* pings between two readings of the clocks' offset */

static uint8_t rx_buf[RX_BUF_LEN];

/* State across sessions; each session's own is in struct session. */
struct reflector {
	struct run *r;
	struct txpend *pend;	/* pongs awaiting their TX stamp */
	int pend_fd;		/* ... sent on this socket (TCP: a new connection
				 * restarts the keys, its stamps go with it) */
	bool stopped;		/* a breach or a failed log: measure no more */
	bool started;		/* RANT_TEST_START written */
	bool stamped;		/* an RX stamp has arrived: spinning is safe */
	bool want_sw;		/* a session asked for SW stamps: take T2_SW */
	int64_t prev_t2, prev_t3;	/* wire stamps of the last measured ping */
	int64_t real_off;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	unsigned int came_n;	/* pings since real_off was read, CAME_REFRESH: stale */
};

/* Nothing received (a blocking receive waited SK_REFLECT_WAKE_NS): 0 when
 * -d is up. Spinning, the clock is read every 1024 empty receives. The
 * clocks' offset is read again at the next ping. */
static int reflect_idle(struct reflector *f, bool blocked, int64_t end, unsigned int *spins)
{
	f->came_n = CAME_REFRESH;
	if (!blocked && (++*spins & 1023))
		return 1;
	return !measure_time_up(end);
}

/*
 * When the ping came, CLOCK_MONOTONIC ns (sessions' windows, the TX stamp
 * cap, -I's intervals), without a clock read per ping: its RX stamp (or
 * T2_SW) is in the system clock's time, and the two clocks differ by an
 * offset that only a step of the system clock moves. That offset is read
 * at the first ping after an idle spell and every CAME_REFRESH pings, so
 * a step mistimes CAME_REFRESH pings at most. Without either stamp, the
 * clock is read.
 */
static int64_t reflect_came(struct reflector *f, const struct sk_msg *m)
{
	int64_t real = m->rx.kn_ns != TS_NONE ? m->rx.kn_ns : m->sw_ns;
	int64_t mono;

	if (real != TS_NONE && f->came_n < CAME_REFRESH) {
		f->came_n++;
		return real - f->real_off;
	}
	mono = monotonic_ns();
	if (real != TS_NONE) {
		f->real_off = realtime_ns() - mono;
		f->came_n = 1;
	}
	return mono;
}

/* The oldest follow-up queued for s into b (flags: whether one is). */
static bool reflect_fu_take(struct session *s, struct msg_body *b)
{
	if (!s->fu_n)
		return false;
	b->fu_seq = s->fu_seq[s->fu_head % SESSION_FU];
	b->fu_t3_wire = s->fu_t3[s->fu_head % SESSION_FU];
	s->fu_head++;
	s->fu_n--;
	return true;
}

/* A pong's T3 came: queued for a later pong of its session (the oldest
 * queued goes when the queue is full, counted). */
static void reflect_fu_put(struct session *s, uint64_t seq, int64_t t3)
{
	uint32_t i;

	if (s->fu_n == SESSION_FU) {
		s->fu_head++;
		s->fu_n--;
		s->fu_dropped++;
	}
	i = (s->fu_head + s->fu_n++) % SESSION_FU;
	s->fu_seq[i] = seq;
	s->fu_t3[i] = t3;
}

/* Answer one ping in place; true when the pong left (its OPT_ID key in
 * *key). */
static bool reflect_answer(struct run *r, struct session *f,
			   struct sk_msg *m, const struct msg_hdr *h,
			   struct txrec *rec, uint32_t *key)
{
	struct msg_body b = { 0 };
	uint16_t flags = 0;	/* which fields of the body hold data */
	bool sw = r->cfg->sw || f->want_sw;

	if (rec->t2_wire != TS_NONE)
		flags |= MSG_F_T2 | (r->sk.hw ? MSG_F_T2_HW : 0);
	if (sw)
		flags |= MSG_F_SW;
	/* A pong too short for a body carries no follow-up: keep it. */
	if (msgfmt_has_body(&r->fmt, h->len) && reflect_fu_take(f, &b))
		flags |= MSG_F_FU | (r->sk.hw ? MSG_F_FU_HW : 0);
	if (clock_bad_now(r->clock))
		flags |= MSG_F_CLOCK_BAD;
	b.t2_wire = rec->t2_wire;
	b.t2_sw = rec->t2_sw;
	b.t3_sw = sw ? realtime_ns() : TS_NONE;
	b.pong_no = f->pongs++;
	b.ttl = r->sk.want_ttl ? m->ttl : 0;	/* a TCP transport reads none */
	msgfmt_put_pong(&r->fmt, rx_buf, h, flags, &b);
	txrec_set_t3_sw(rec, b.t3_sw);
	/* --key: after T3_SW, so its cost lands in T3_SW -> T3 wire. */
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, rx_buf, h->len);

	/* Exactly as long as the ping: never an amplifier. */
	if (r->tp->send(&r->sk, rx_buf, h->len, m, key) == 0)
		return true;
	r->cnt.send_errors++;
	return false;
}

/* Count wire stamps earlier than the last measured ping's (any session:
 * one NIC clock). */
static void reflect_backwards(struct run *r, struct reflector *f,
			      const struct txrec *rec)
{
	int64_t t3_wire = txrec_stamp(rec, P_T3_WIRE);

	if (rec->t2_wire != TS_NONE) {
		r->cnt.backwards_rx_ts += f->prev_t2 != TS_NONE && rec->t2_wire < f->prev_t2;
		f->prev_t2 = rec->t2_wire;
	}
	if (t3_wire != TS_NONE) {
		r->cnt.backwards_tx_ts += f->prev_t3 != TS_NONE && t3_wire < f->prev_t3;
		f->prev_t3 = t3_wire;
	}
}

/* A measured ping was answered: count, sample, log, check -t. */
static enum measure_next reflect_measured(struct run *r, struct reflector *f,
					  struct session *s,
					  const struct txrec *rec, bool sent,
					  bool tx_stamped, int64_t came_mono)
{
	int64_t resp;
	bool have;

	s->received++;
	s->sent += sent;
	r->cnt.received++;
	r->cnt.sent += sent;
	if (rec->t2_wire == TS_NONE) {
		r->cnt.missing_rx_ts++;
		s->missing_rx_ts++;
	}
	if (sent && !tx_stamped) {
		r->cnt.missing_tx_ts++;
		s->missing_tx_ts++;
	}
	reflect_backwards(r, f, rec);
	metric_sample(r->hist, rec, METRIC_NO_T3 | METRIC_T3);
	if (r->capture)
		capture_expect(r->capture, s->id, rec);
	have = metric_value(M_RESPONSE, rec, &resp);
	if (!have)
		resp = 0;
	else
		session_response(s, resp);
	if (r->series)	/* -I: in the interval the ping arrived in */
		series_answered(r->series, came_mono, sent,
				have ? resp : SERIES_NO_VALUE);
	return measure_done(r, rec, resp);
}

/*
 * A measured ping among its session's first -w: answered, left out of
 * the statistics (counted as warm-up), its seq still checked for
 * duplicates.
 */
static bool reflect_left_out(const struct run *r, struct session *s,
			     uint64_t seq)
{
	if (s->left_out >= r->cfg->warmup)
		return false;
	s->left_out++;
	s->last_seq = seq;
	return true;
}

/* No session for this ping: a pong that says so, without stamps, as
 * long as the ping (never an amplifier), signed under --key. */
static void reflect_refuse(struct run *r, struct sk_msg *m, const struct msg_hdr *h)
{
	const struct msg_body none = { 0 };
	uint32_t key;

	msgfmt_put_pong(&r->fmt, rx_buf, h, MSG_F_REFUSED, &none);
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, rx_buf, h->len);
	if (r->tp->send(&r->sk, rx_buf, h->len, m, &key))
		r->cnt.send_errors++;
}

/* The sender's session, started when new; NULL (counted) when refused
 * (answered with a refusal) or, under --key, replayed (unanswered). */
static struct session *reflect_session(struct run *r, struct sk_msg *m,
				       const struct msg_hdr *h, int64_t came)
{
	struct session_ping p = { (const struct sockaddr *)&m->src, m->src_len, h->session,
				  h->seq, h->t1_sw };
	enum session_verdict v;
	struct session *s = sessions_admit(r->sessions, &p, came,
					   r->auth ? realtime_ns() : 0, &v);

	r->cnt.sessions += v == SESSION_NEW;
	r->cnt.replayed += v == SESSION_REPLAYED;
	r->cnt.refused += v == SESSION_REFUSED;
	if (v == SESSION_REFUSED)
		reflect_refuse(r, m, h);
	return s;
}

/* The first measured ping: measuring starts. */
static void reflect_start(struct run *r, struct reflector *f, const struct session *s)
{
	if (f->started)
		return;
	r->session = s->id;
	measure_start(r);
	if (r->series)
		series_begin(r->series, monotonic_ns(), realtime_ns());
	f->started = true;
}

/* A pong's TX stamp came: its T3 queued as its session's follow-up. */
static void reflect_stamped(void *ctx, struct txpend_entry *e)
{
	const struct reflector *f = ctx;
	int64_t t3 = ts_wire(&e->snd, f->r->sk.hw);

	/* A report without the wire layer's stamp (a NIC that missed it)
	 * gives no follow-up: the pong's T3 is missing. */
	if (t3 != TS_NONE)
		reflect_fu_put(e->owner, e->rec.seq, t3);
}

/* A pong retired from the table: its stamps into the record, then (a
 * measured ping) counted, sampled, logged and checked. Non-zero: the
 * run stops (a breach, or the log failed). */
static int reflect_done(void *ctx, struct txpend_entry *e, enum txpend_end why)
{
	struct reflector *f = ctx;
	struct run *r = f->r;
	bool stamped;

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
	if (reflect_measured(r, f, e->owner, &e->rec, why != TXPEND_DROPPED, stamped,
			     e->t_mono) == MEASURE_GO_ON)
		return 0;
	f->stopped = true;
	return 1;
}

/* The stamps queued now to their pongs, and the pongs whose turn came
 * retired (at now, CLOCK_MONOTONIC): non-zero when the run stops. */
static int reflect_harvest(struct run *r, struct reflector *f, int64_t now)
{
	txpend_harvest(f->pend, &r->sk, reflect_stamped, f);
	return txpend_retire(f->pend, now, reflect_done, f);
}

/*
 * The pong of key left on one of a TCP reflector's connections (tcpserve.c:
 * each has its own socket, so its own error queue and OPT_ID byte
 * count): its stamps are read there, TX_CONN_WAIT_NS at most, and the
 * pong retired at once. Non-zero: stop.
 */
static int reflect_conn_stamp(struct reflector *f, struct sk *via, struct session *s,
			      const struct txrec *rec, uint32_t key, bool measured,
			      int64_t came)
{
	struct txpend_entry e = { .rec = *rec, .owner = s, .t_mono = came, .key = key,
				  .flags = measured ? RF_MEASURED : 0, .sched_kn = TS_NONE };
	struct ts_stamps sch;

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
 * oldest retired first when the table is full). Non-zero: stop. */
static int reflect_pend(struct run *r, struct reflector *f, struct session *s,
			const struct txrec *rec, uint32_t key, bool measured,
			int64_t came, struct sk *via)
{
	struct txpend_entry *e;
	int ret = 0;

	if (via)
		return reflect_conn_stamp(f, via, s, rec, key, measured, came);
	if (r->sk.fd != f->pend_fd) {
		ret = txpend_flush(f->pend, reflect_done, f);
		f->pend_fd = r->sk.fd;
	}
	e = txpend_push(f->pend, key, came);
	if (!e) {
		ret |= txpend_evict(f->pend, reflect_done, f);
		e = txpend_push(f->pend, key, came);
	}
	e->rec = *rec;
	e->owner = s;
	e->t_mono = came;
	e->flags = measured ? RF_MEASURED : 0;
	return ret ? ret : reflect_harvest(r, f, came);
}

/* One received datagram: answer it if it is a ping, measure it if asked. */
static enum measure_next reflect_one(struct run *r, struct reflector *f,
				     struct sk_msg *m)
{
	struct session *s;
	struct msg_hdr h;
	struct txrec rec;
	bool measured, warm, sent;
	int64_t came;
	uint32_t key;

	/* Before any parsing: a sender outside --allow reaches nothing. */
	if (!allow_match(&r->cfg->allow, (const struct sockaddr *)&m->src)) {
		r->cnt.not_allowed++;
		return MEASURE_GO_ON;
	}
	if (m->len < 0 || msgfmt_parse(&r->fmt, rx_buf, (size_t)m->len, MSG_PING, &h)) {
		r->cnt.invalid++;
		return MEASURE_GO_ON;
	}
	/* --key: no session state, no answer, without a valid MAC. */
	if (r->auth && !((h.flags & MSG_F_MAC) && msgfmt_verify(&r->fmt, r->auth, rx_buf, h.len))) {
		r->cnt.unauthenticated++;
		return MEASURE_GO_ON;
	}
	came = reflect_came(f, m);
	s = reflect_session(r, m, &h, came);
	if (!s)
		return MEASURE_GO_ON;
	h.seq = msgfmt_seq_near(&r->fmt, s->last_seq, h.seq);
	s->want_sw = h.flags & MSG_F_WANT_SW;
	f->want_sw |= s->want_sw;
	measured = !(h.flags & MSG_F_WARMUP);
	if (measured && s->last_seq && h.seq <= s->last_seq) {
		r->cnt.duplicate++;
		s->duplicate++;
		measured = false;
	}
	warm = h.flags & MSG_F_WARMUP;
	if (measured && reflect_left_out(r, s, h.seq)) {
		measured = false;
		warm = true;
		if (r->capture)
			capture_skip(r->capture, s->id, h.seq);
	}
	txrec_clear(&rec);
	rec.seq = h.seq;
	rec.t2_wire = ts_wire(&m->rx, r->sk.hw);
	rec.t2_sw = s->want_sw && m->sw_ns == TS_NONE ? realtime_ns() : m->sw_ns;
	if (rec.t2_wire != TS_NONE)
		f->stamped = true;
	/* Stamps that came since the last ping: the freshest follow-up. */
	if (txpend_waiting(f->pend) && reflect_harvest(r, f, came))
		return MEASURE_STOP;
	sent = reflect_answer(r, s, m, &h, &rec, &key);
	if (warm) {
		r->cnt.warmup++;
		s->warmup++;
	}
	if (measured) {
		reflect_start(r, f, s);
		s->last_seq = rec.seq;
	}
	if (sent)
		return reflect_pend(r, f, s, &rec, key, measured, came, m->via) ? MEASURE_STOP :
		       MEASURE_GO_ON;
	if (measured)
		return reflect_measured(r, f, s, &rec, false, false, came);
	return MEASURE_GO_ON;
}

/*
 * The run ends: the last pongs' stamps waited for (END_WAIT_NS at most:
 * they came long ago unless a queue holds the pongs), then every pong still
 * in the table retired (measured, unless a breach stopped the run).
 */
static void reflect_finish(struct run *r, struct reflector *f)
{
	int64_t until = monotonic_ns() + END_WAIT_NS;

	while (!f->stopped && txpend_waiting(f->pend) && monotonic_ns() < until) {
		if (reflect_harvest(r, f, monotonic_ns()))
			break;
		if (txpend_waiting(f->pend))
			sk_poll(&r->sk, until);
	}
	txpend_flush(f->pend, reflect_done, f);
}

int reflect_run(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct reflector f = { .r = r, .pend_fd = r->sk.fd, .came_n = CAME_REFRESH };
	int64_t end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
	unsigned int spins = 0;
	int ret;

	f.pend = txpend_create(TX_PENDING, TX_STAMP_CAP_NS, c->hugepages);
	if (!f.pend) {
		fprintf(stderr, "rant: cannot allocate the table of %d pongs awaiting their TX stamps: %s\n",
			TX_PENDING, strerror(errno));
		return -ENOMEM;
	}
	r->start_ns = realtime_ns();
	while (!run_stop) {
		struct sk_msg m;
		bool block;

		if (c->count && r->cnt.received >= c->count) {
			r->stop_reason = "count";
			break;
		}
		/* Blocking until stamps flow: a spinner at SCHED_FIFO would
		 * starve the kernel worker that enables RX timestamping. */
		block = c->block || !f.stamped;
		ret = r->tp->recv(&r->sk, rx_buf, sizeof(rx_buf), &m, c->sw || f.want_sw, block);
		if (ret == -EPROTO)
			r->cnt.invalid++;	/* TCP: not rant's framing, dropped */
		if (ret == -EACCES)
			r->cnt.not_allowed++;	/* TCP: from outside --allow, closed */
		if (ret) {
			/* Nothing to answer: the pongs' stamps, however late. */
			if (txpend_len(f.pend) && reflect_harvest(r, &f, monotonic_ns()))
				break;
			if (!reflect_idle(&f, block, end, &spins)) {
				r->stop_reason = "duration";
				break;
			}
			continue;
		}
		if (reflect_one(r, &f, &m) != MEASURE_GO_ON)
			break;
	}
	reflect_finish(r, &f);
	txpend_destroy(f.pend);
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	return 0;
}
