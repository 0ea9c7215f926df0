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
#include "stamp.h"
#include "skbatch.h"
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

/* The steps between a ping's receive and its pong's send, inlined into
 * both loops (reflect_one, reflect_batch): no calls' cost on the round
 * trip's path. */
#define RX_TX_STEP static inline __attribute__((always_inline))

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
 * -d is up. Spinning, the clock is read every 1024 empty receives. After
 * such a wait, or 1024 empty receives, the clocks' offset is read again
 * at the next ping; the few empty receives between two pings of a busy
 * spell leave it (a clock read per ping inside the round trip). */
static int reflect_idle(struct reflector *f, bool blocked, int64_t end, unsigned int *spins)
{
	if (!blocked && (++*spins & 1023))
		return 1;
	f->came_n = CAME_REFRESH;
	return !measure_time_up(end);
}

/*
 * When the ping came, CLOCK_MONOTONIC ns (sessions' windows, the TX stamp
 * cap, -I's intervals), without a clock read per ping: its RX stamp (or
 * T2_SW) is in the system clock's time, and the two clocks differ by an
 * offset that only a step of the system clock moves. That offset is read
 * at the first ping after an idle spell (reflect_idle) and every
 * CAME_REFRESH pings, so a step mistimes CAME_REFRESH pings at most. Without either stamp, the
 * clock is read.
 */
RX_TX_STEP int64_t reflect_came(struct reflector *f, const struct sk_msg *m)
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

/* The pong of one ping, composed in place in buf (the ping's bytes),
 * with its T2 stamps; returns its T3_SW (TS_NONE: none taken). */
RX_TX_STEP int64_t reflect_answer(struct run *r, struct session *f, const struct sk_msg *m,
				  uint8_t *buf, const struct msg_hdr *h, int64_t t2_wire,
				  int64_t t2_sw)
{
	struct msg_body b = { 0 };
	uint16_t flags = 0;	/* which fields of the body hold data */
	bool sw = r->cfg->sw || f->want_sw;

	if (t2_wire != TS_NONE)
		flags |= MSG_F_T2 | (r->sk.hw ? MSG_F_T2_HW : 0);
	if (sw)
		flags |= MSG_F_SW;
	/* A pong too short for a body carries no follow-up: keep it. */
	if (msgfmt_has_body(&r->fmt, h->len) && session_fu_take(f, &b.fu_seq, &b.fu_t3_wire))
		flags |= MSG_F_FU | (r->sk.hw ? MSG_F_FU_HW : 0);
	if (clock_bad_now(r->clock))
		flags |= MSG_F_CLOCK_BAD;
	b.t2_wire = t2_wire;
	b.t2_sw = t2_sw;
	b.t3_sw = sw ? realtime_ns() : TS_NONE;
	b.pong_no = f->pongs++;
	b.ttl = r->sk.want_ttl ? m->ttl : 0;	/* a TCP transport reads none */
	msgfmt_put_pong(&r->fmt, buf, h, flags, &b);
	/* --key: after T3_SW, so its cost lands in T3_SW -> T3 wire. */
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, buf, h->len);
	return b.t3_sw;
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
	bool no_rx = rec->t2_wire == TS_NONE, no_tx = sent && !tx_stamped, have;
	int64_t resp;

	r->cnt.received++;
	r->cnt.sent += sent;
	r->cnt.missing_rx_ts += no_rx;
	r->cnt.missing_tx_ts += no_tx;
	if (s) {	/* NULL: evicted while its pong awaited its stamp */
		s->received++;
		s->sent += sent;
		s->missing_rx_ts += no_rx;
		s->missing_tx_ts += no_tx;
	}
	reflect_backwards(r, f, rec);
	metric_sample(r->hist, rec, METRIC_NO_T3 | METRIC_T3);
	if (r->capture && s)	/* an evicted session's id went with it */
		capture_expect(r->capture, s->id, rec);
	have = metric_value(M_RESPONSE, rec, &resp);
	if (!have)
		resp = 0;
	else if (s)
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
static void reflect_refuse(struct run *r, struct sk_msg *m, uint8_t *buf,
			   const struct msg_hdr *h)
{
	const struct msg_body none = { 0 };
	uint32_t key;

	msgfmt_put_pong(&r->fmt, buf, h, MSG_F_REFUSED, &none);
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, buf, h->len);
	if (r->tp->send(&r->sk, buf, h->len, m, &key))
		r->cnt.send_errors++;
}

/* The sender's session, started when new; NULL (counted) when refused
 * (answered with a refusal) or, under --key, replayed (unanswered). */
RX_TX_STEP struct session *reflect_session(struct run *r, struct sk_msg *m, uint8_t *buf,
					   const struct msg_hdr *h, int64_t now)
{
	struct session_ping p = { (const struct sockaddr *)&m->src, m->src_len, h->session,
				  h->seq, h->t1_sw };
	enum session_verdict v;
	struct session *s = sessions_admit(r->sessions, &p, now,
					   r->auth ? realtime_ns() : 0, &v);

	r->cnt.sessions += v == SESSION_NEW;
	r->cnt.replayed += v == SESSION_REPLAYED;
	r->cnt.refused += v == SESSION_REFUSED;
	if (v == SESSION_REFUSED)
		reflect_refuse(r, m, buf, h);
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
	 * gives no follow-up: the pong's T3 is missing. */
	if (t3 != TS_NONE && (s = reflect_owner(f, e)))
		session_fu_put(s, e->rec.seq, t3);
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
	if (reflect_measured(r, f, reflect_owner(f, e), &e->rec, why != TXPEND_DROPPED, stamped,
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
	struct txpend_entry e = { .rec = *rec, .owner = s, .owner_tag = s->ordinal,
				  .t_mono = came, .key = key,
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
 * oldest retired first when the table is full; the caller harvests).
 * Non-zero: stop. */
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
	e->owner_tag = s->ordinal;
	e->t_mono = came;
	e->flags = measured ? RF_MEASURED : 0;
	return ret;
}

/* A ping answered: its pong composed, waiting for its send. */
struct answer {
	struct session *s;	/* NULL: gone from the table (reflect_refind) */
	const struct sk_msg *m;	/* the ping's datagram */
	uint32_t id;		/* its session's id */
	struct txrec rec;	/* filled after the send (reflect_record) from: */
	uint64_t seq;
	int64_t t2_wire, t2_sw, t3_sw;
	int64_t came;		/* CLOCK_MONOTONIC when it was read */
	uint32_t len;		/* the pong's bytes */
	bool measured, warm;
};

/* The ping's record, from what its answer kept: after the send, off the
 * round trip's path. */
static void reflect_record(struct answer *a)
{
	txrec_clear(&a->rec);
	a->rec.seq = a->seq;
	a->rec.t2_wire = a->t2_wire;
	a->rec.t2_sw = a->t2_sw;
	txrec_set_t3_sw(&a->rec, a->t3_sw);
}

/*
 * --stamp: does m come from a reflector's port? STAMP's requests and
 * replies look alike, so a reflector that answered a datagram from
 * another reflector's port (862, or the port this one listens on, which
 * its peers may share) would be answered back, and the two would
 * bounce one spoofed datagram between them for ever. A Session-Sender
 * sends from a port of its own. rant's own format needs no such check:
 * a pong is never taken for a ping (msgfmt's parse).
 */
RX_TX_STEP bool reflect_looped(const struct run *r, const struct sk_msg *m)
{
	uint16_t port = ntohs(((const struct sockaddr_in *)&m->src)->sin_port);

	/* sin_port and sin6_port are at one offset; TCP's messages carry no
	 * address (src_len 0) and STAMP is UDP's alone */
	return r->cfg->stamp && m->src_len && (port == STAMP_PORT || port == r->cfg->port);
}

/* One received datagram (its bytes in buf, read at now): its session
 * (h decoded), or NULL when it gets no answer (counted). */
RX_TX_STEP struct session *reflect_admit(struct run *r, struct sk_msg *m, uint8_t *buf,
					 int64_t now, struct msg_hdr *h)
{
	struct session *s;

	/* Before any parsing: a sender outside --allow reaches nothing. */
	if (!allow_match(&r->cfg->allow, (const struct sockaddr *)&m->src)) {
		r->cnt.not_allowed++;
		return NULL;
	}
	if (reflect_looped(r, m)) {
		r->cnt.looped++;
		return NULL;
	}
	if (m->len < 0 || msgfmt_parse(&r->fmt, buf, (size_t)m->len, MSG_PING, h)) {
		r->cnt.invalid++;
		return NULL;
	}
	/* --key: no session state, no answer, without a valid MAC. */
	if (r->auth && !((h->flags & MSG_F_MAC) && msgfmt_verify(&r->fmt, r->auth, buf, h->len))) {
		r->cnt.unauthenticated++;
		return NULL;
	}
	s = reflect_session(r, m, buf, h, now);
	/* --max-rate: whatever two reflectors on other ports do to each
	 * other, one sender is answered this fast at most */
	if (s && r->cfg->max_rate && !session_rate_ok(s, now, r->cfg->max_rate)) {
		r->cnt.rate_limited++;
		s->rate_limited++;
		return NULL;
	}
	return s;
}

/* The ping h of session s: checked, and its pong composed in buf (a). */
RX_TX_STEP void reflect_compose(struct run *r, struct reflector *f, struct sk_msg *m,
				uint8_t *buf, int64_t now, struct session *s, struct msg_hdr *h,
				struct answer *a)
{
	h->seq = msgfmt_seq_near(&r->fmt, s->last_seq, h->seq);
	session_dscp(s, m->tos);
	s->want_sw = h->flags & MSG_F_WANT_SW;
	f->want_sw |= s->want_sw;
	a->measured = !(h->flags & MSG_F_WARMUP);
	if (a->measured && s->last_seq && h->seq <= s->last_seq) {
		r->cnt.duplicate++;
		s->duplicate++;
		a->measured = false;
	}
	a->warm = h->flags & MSG_F_WARMUP;
	if (a->measured && reflect_left_out(r, s, h->seq)) {
		a->measured = false;
		a->warm = true;
		if (r->capture)
			capture_skip(r->capture, s->id, h->seq);
	}
	if (a->measured)	/* now: a later ping of the batch is checked against it */
		s->last_seq = h->seq;
	a->seq = h->seq;
	a->t2_wire = ts_wire(&m->rx, r->sk.hw);
	a->t2_sw = s->want_sw && m->sw_ns == TS_NONE ? realtime_ns() : m->sw_ns;
	if (a->t2_wire != TS_NONE)
		f->stamped = true;
	a->s = s;
	a->id = s->id;
	a->m = m;
	a->came = now;
	a->len = h->len;
	a->t3_sw = reflect_answer(r, s, m, buf, h, a->t2_wire, a->t2_sw);
}

/* The pong of a went (sent: with OPT_ID key) or was refused by the
 * kernel: counted, and into the table of pongs awaiting their stamps. */
static enum measure_next reflect_sent(struct run *r, struct reflector *f, struct answer *a,
				      bool sent, uint32_t key, struct sk *via)
{
	if (!a->s) {		/* its session was evicted meanwhile */
		r->cnt.send_errors += !sent;
		return MEASURE_GO_ON;
	}
	reflect_record(a);
	if (a->warm) {
		r->cnt.warmup++;
		a->s->warmup++;
	}
	if (a->measured)
		reflect_start(r, f, a->s);
	if (sent)
		return reflect_pend(r, f, a->s, &a->rec, key, a->measured, a->came, via) ?
		       MEASURE_STOP : MEASURE_GO_ON;
	r->cnt.send_errors++;
	if (a->measured)
		return reflect_measured(r, f, a->s, &a->rec, false, false, a->came);
	return MEASURE_GO_ON;
}

/* One received datagram (sk_recv: in rx_buf): answered if it is a ping,
 * measured if asked. */
static enum measure_next reflect_one(struct run *r, struct reflector *f, struct sk_msg *m)
{
	int64_t now = reflect_came(f, m);
	struct session *s;
	struct msg_hdr h;
	struct answer a;
	uint32_t key;
	bool sent;

	/* Stamps that came since the last ping: the freshest follow-up. */
	if (txpend_waiting(f->pend) && reflect_harvest(r, f, now))
		return MEASURE_STOP;
	s = reflect_admit(r, m, rx_buf, now, &h);
	if (!s)
		return MEASURE_GO_ON;
	reflect_compose(r, f, m, rx_buf, now, s, &h, &a);
	sent = r->tp->send(&r->sk, rx_buf, a.len, m, &key) == 0;
	if (reflect_sent(r, f, &a, sent, key, m->via) != MEASURE_GO_ON)
		return MEASURE_STOP;
	/* a TCP connection's pong was retired at once (reflect_conn_stamp) */
	return !m->via && reflect_harvest(r, f, now) ? MEASURE_STOP : MEASURE_GO_ON;
}

/*
 * A session evicted from a full table closes its gap (session.c): the
 * sessions after it move. The answers of a batch prepared before a later
 * ping of it evicted one find their sessions again by id and address
 * (NULL: evicted).
 */
static void reflect_refind(struct run *r, struct answer *a, unsigned int n)
{
	/* the table is the reflector's: sessions_at() gives it read-only */
	struct session *tab = (struct session *)sessions_at(r->sessions, 0);
	size_t used = sessions_count(r->sessions);

	for (unsigned int i = 0; i < n; i++) {
		a[i].s = NULL;
		for (size_t j = 0; j < used && !a[i].s; j++)
			if (tab[j].id == a[i].id && tab[j].addr_len == a[i].m->src_len &&
			    !memcmp(&tab[j].addr, &a[i].m->src, a[i].m->src_len))
				a[i].s = &tab[j];
	}
}

/*
 * The pongs composed so far (a[0..q), queued in b) sent in one call, each
 * into the table by its own key, and the stamps harvested. evicted: the
 * table's evictions when the first was composed (sessions moved since:
 * found again).
 */
static enum measure_next reflect_flush(struct run *r, struct reflector *f, struct skbatch *b,
				       struct answer *a, unsigned int q, uint64_t evicted)
{
	int64_t now = a[0].came;
	uint64_t key[SKBATCH_MAX];

	if (sessions_evicted(r->sessions) != evicted)
		reflect_refind(r, a, q);
	skbatch_send(&r->sk, b, key);
	for (unsigned int i = 0; i < q; i++)
		if (reflect_sent(r, f, &a[i], key[i] != SKBATCH_UNSENT, (uint32_t)key[i],
				 NULL) != MEASURE_GO_ON)
			return MEASURE_STOP;
	return reflect_harvest(r, f, now) ? MEASURE_STOP : MEASURE_GO_ON;
}

/* Whether session s has a pong among a[0..q). */
static bool reflect_has(const struct answer *a, unsigned int q, const struct session *s)
{
	for (unsigned int i = 0; i < q; i++)
		if (a[i].s == s)
			return true;
	return false;
}

/*
 * A batch of n datagrams (skbatch.h): the stamps that came first (the
 * freshest follow-ups), then every ping's pong composed and the pongs
 * sent in one call (reflect_flush). A session's second ping in the
 * batch first sends the pongs before it, so that its pong carries the
 * T3 of its previous one as it would unbatched (a follow-up a pong
 * late would stay late for the rest of the session). One clock reading
 * for the batch: when it was read.
 */
static enum measure_next reflect_batch(struct run *r, struct reflector *f, struct skbatch *b,
				       unsigned int n)
{
	struct answer a[SKBATCH_MAX];
	int64_t now = reflect_came(f, skbatch_msg(b, 0));
	uint64_t evicted = sessions_evicted(r->sessions);
	unsigned int q = 0;

	if (txpend_waiting(f->pend) && reflect_harvest(r, f, now))
		return MEASURE_STOP;
	for (unsigned int i = 0; i < n; i++) {
		struct sk_msg *m = skbatch_msg(b, i);
		uint8_t *buf = skbatch_buf(b, i);
		struct session *s;
		struct msg_hdr h;

		s = reflect_admit(r, m, buf, now, &h);
		if (!s)
			continue;
		if (q && (reflect_has(a, q, s) || sessions_evicted(r->sessions) != evicted)) {
			if (reflect_flush(r, f, b, a, q, evicted) != MEASURE_GO_ON)
				return MEASURE_STOP;
			q = 0;
			evicted = sessions_evicted(r->sessions);
		}
		reflect_compose(r, f, m, buf, now, s, &h, &a[q]);
		skbatch_reply(b, i, a[q++].len);
	}
	return q ? reflect_flush(r, f, b, a, q, evicted) : MEASURE_GO_ON;
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

/* Receive: one datagram (or TCP message) into rx_buf, or a batch. 0
 * with *n messages, or -errno. */
static int reflect_recv(struct run *r, struct reflector *f, struct skbatch *b,
			struct sk_msg *m, bool block, int *n)
{
	bool sw = r->cfg->sw || f->want_sw;

	if (b) {
		*n = skbatch_recv(&r->sk, b, sw, block);
		return *n > 0 ? 0 : *n;
	}
	*n = 1;
	return r->tp->recv(&r->sk, rx_buf, sizeof(rx_buf), m, sw, block);
}

int reflect_run(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct reflector f = { .r = r, .pend_fd = r->sk.fd, .came_n = CAME_REFRESH };
	int64_t end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
	struct skbatch *b = NULL;
	unsigned int spins = 0;
	int ret;

	f.pend = txpend_create(TX_PENDING, TX_STAMP_CAP_NS, c->hugepages);
	if (r->tp->caps.batch)
		b = skbatch_create(r->tp->caps.max_len, c->hugepages);
	if (!f.pend || (r->tp->caps.batch && !b)) {
		fprintf(stderr, "rant: cannot allocate the table of %d pongs awaiting their TX stamps and the receive batch: %s\n",
			TX_PENDING, strerror(errno));
		txpend_destroy(f.pend);
		return -ENOMEM;
	}
	r->start_ns = realtime_ns();
	while (!run_stop) {
		struct sk_msg m;
		bool block, waits;
		int n;

		if (c->count && r->cnt.received >= c->count) {
			r->stop_reason = "count";
			break;
		}
		/* Blocking until stamps flow: a spinner at SCHED_FIFO would
		 * starve the kernel worker that enables RX timestamping. */
		block = c->block || !f.stamped;
		waits = block && !(b && skbatch_draining(b));
		ret = reflect_recv(r, &f, b, &m, block, &n);
		if (ret == -EPROTO)
			r->cnt.invalid++;	/* TCP: not rant's framing, dropped */
		r->cnt.not_allowed += ret == -EACCES;	/* TCP: from outside --allow, closed */
		r->cnt.refused += ret == -ECONNREFUSED;	/* TCP: over its address's share */
		if (ret) {
			/* Nothing to answer: the pongs' stamps, however late. */
			if (txpend_len(f.pend) && reflect_harvest(r, &f, monotonic_ns()))
				break;
			if (!reflect_idle(&f, waits, end, &spins)) {
				r->stop_reason = "duration";
				break;
			}
			continue;
		}
		if ((b ? reflect_batch(r, &f, b, (unsigned int)n) : reflect_one(r, &f, &m)) !=
		    MEASURE_GO_ON)
			break;
	}
	reflect_finish(r, &f);
	txpend_destroy(f.pend);
	skbatch_destroy(b);
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	return 0;
}
