// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emit loop (see emit.h), in three phases: warm-up, measure, and the
 * follow-up fetch after a breach. One transaction is the same in all
 * three (emit_transact); the phases differ in what they count and when
 * they stop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "auth.h"
#include "emit.h"
#include "measure.h"
#include "report.h"
#include "series.h"

#define RX_BUF_LEN RANT_TCP_MAX_LEN		/* the largest message of any transport */
#define TX_STAMP_WAIT_NS (2 * NS_PER_MS)	/* HW TX stamps lag the send */
#define WARMUP_LIMIT_NS (10 * NS_PER_SEC)	/* no stamped pong by then: give up */
#define PEER_GONE_NS (3 * NS_PER_SEC)		/* TCP: no connection this long: give up */

static uint8_t rx_buf[RX_BUF_LEN];
static uint8_t tx_buf[RANT_TCP_MAX_LEN];

struct emitter {
	struct run *r;
	uint64_t seq;			/* last ping sent */
	uint64_t first_measured;	/* seq of the first measured ping, 0: none yet */
	uint64_t pongs;			/* pongs matched, any phase */
	struct pong_window seen;
	struct txrec last;		/* last measured, awaiting its follow-up */
	bool last_valid;
	uint32_t size;			/* bytes of this phase's pings (-m, or a sweep's size) */
	int64_t gone_since;		/* TCP: monotonic ns since the connection is down, or 0 */
	int64_t t1_sw;			/* T1_SW of the last ping sent */
	bool rx_stamped;		/* the last pong came with an RX stamp */
	int64_t prev_t1, prev_t4;	/* wire stamps of the last measured one */
};

/* How one transaction ended. */
enum tx_result {
	TX_SEND_FAILED,		/* the ping did not leave */
	TX_PEER_GONE,		/* TCP: no connection, and none could be made */
	TX_LOST,		/* no pong within --timeout */
	TX_LATE,		/* pong read in time, but stamped after --timeout */
	TX_DONE,		/* pong matched: the record is filled */
};

/*
 * The counts of the measured run, one function per event, so that every
 * count also reaches the interval reports (-I, series.h). t_sent is the
 * ping's T1_SW (CLOCK_REALTIME ns); latency the main metric (RTT) in ns.
 */
_Static_assert(EMIT_WINDOW <= SERIES_SEQ_MIN, "the series remembers every ping in flight");

static void emit_count_sent(struct emitter *e, uint64_t seq, int64_t t_sent)
{
	struct run *r = e->r;

	r->cnt.sent++;
	if (r->nsweep)
		r->sweep[r->sweep_idx].sent++;
	if (r->series)
		series_sent(r->series, seq, t_sent);
}

static void emit_count_received(struct emitter *e, const struct txrec *rec,
				int64_t latency)
{
	struct run *r = e->r;
	int64_t rtt;

	r->cnt.received++;
	/* a pong without the RTT's stamps has no value (latency is 0 then) */
	if (r->series)
		series_received(r->series, rec->seq,
				metric_value(M_RTT, rec, &rtt) ? latency : SERIES_NO_VALUE);
}

static void emit_count_lost(struct emitter *e, uint64_t seq, int64_t t_sent)
{
	struct run *r = e->r;

	(void)t_sent;	/* the series finds seq's interval by seq */
	r->cnt.lost++;
	if (r->nsweep)
		r->sweep[r->sweep_idx].lost++;
	if (r->series)
		series_lost(r->series, seq);
}

/* A pong of measured ping seq came after it was counted lost. */
static void emit_count_late(struct emitter *e, uint64_t seq)
{
	struct run *r = e->r;

	(void)seq;	/* counted in the interval it is seen in */
	r->cnt.late++;
	if (r->series)
		series_late(r->series);
}

void pong_window_forget(struct pong_window *w, uint64_t seq)
{
	w->bits[(seq / 64) % (EMIT_WINDOW / 64)] &= ~(1ULL << (seq % 64));
}

static bool pong_window_test_set(struct pong_window *w, uint64_t seq)
{
	uint64_t bit = 1ULL << (seq % 64), *word = &w->bits[(seq / 64) % (EMIT_WINDOW / 64)];
	bool was = *word & bit;

	*word |= bit;
	return was;
}

enum pong_class emit_classify(struct pong_window *w, const void *buf,
			      ssize_t len, uint32_t size, uint32_t session,
			      uint64_t seq, struct wire_hdr *h)
{
	if (len < 0 || wire_parse(buf, (size_t)len, WIRE_PONG, h) ||
	    (size_t)len != size)
		return PONG_INVALID;
	if (h->session != session)
		return PONG_FOREIGN;
	if (h->seq > seq)
		return PONG_INVALID;	/* a seq never sent */
	if (seq - h->seq >= EMIT_WINDOW)
		return PONG_LATE;
	if (pong_window_test_set(w, h->seq))
		return PONG_DUPLICATE;
	return h->seq == seq ? PONG_MATCH : PONG_LATE;
}

/*
 * --key: whether a datagram shaped as this phase's pong carries a valid
 * MAC. Checked before it is classified, so a forged pong cannot mark its
 * seq as seen. Other datagrams pass here and are counted invalid after.
 */
static bool emit_authentic(struct emitter *e, const struct sk_msg *m)
{
	struct wire_hdr h;

	if (m->len < 0 || (size_t)m->len != e->size ||
	    wire_parse(rx_buf, (size_t)m->len, WIRE_PONG, &h))
		return true;
	if (!(h.flags & WIRE_F_AUTH)) {
		e->r->peer_no_key = true;	/* a reflector without --key */
		return false;
	}
	return auth_verify(e->r->auth, rx_buf, (size_t)m->len);
}

/* Classify one datagram; 1 if it is the pong awaited, else 0 after counting it. */
static int emit_match(struct emitter *e, const struct sk_msg *m, struct wire_hdr *h)
{
	struct run *r = e->r;

	if (r->auth && !emit_authentic(e, m)) {
		r->cnt.invalid++;
		r->cnt.unauthenticated++;
		return 0;
	}
	switch (emit_classify(&e->seen, rx_buf, m->len, e->size, r->session, e->seq, h)) {
	case PONG_MATCH:
		return 1;
	case PONG_INVALID:
		r->cnt.invalid++;
		break;
	case PONG_FOREIGN:
		r->cnt.foreign++;
		break;
	case PONG_LATE:
		if (emit_pong_of_warmup(h->seq, e->first_measured))
			r->cnt.warmup_late++;
		else
			emit_count_late(e, h->seq);
		break;
	case PONG_DUPLICATE:
		if (emit_pong_of_warmup(h->seq, e->first_measured))
			r->cnt.warmup_duplicate++;
		else
			r->cnt.duplicate++;
		break;
	}
	return 0;
}

/* Wait for the pong of e->seq until deadline; 1 got it, 0 timed out. */
static int emit_wait_pong(struct emitter *e, bool poll_wait, int64_t deadline,
			  struct sk_msg *m, struct wire_hdr *h)
{
	struct run *r = e->r;
	bool blocking = poll_wait;	/* SO_RCVTIMEO is --timeout */
	unsigned int spins = 0;
	int ret;

	for (;;) {
		ret = r->tp->recv(&r->sk, rx_buf, sizeof(rx_buf), m, r->cfg->sw, blocking);
		if (ret == 0) {
			if (emit_match(e, m, h))
				return 1;
			/* A stray datagram: the rest of the wait ends at deadline. */
			blocking = false;
			if (monotonic_ns() > deadline)
				return 0;
			continue;
		}
		if (blocking && ret == -EAGAIN)
			return 0;	/* --timeout since the send */
		if (ret == -ECONNRESET || ret == -ENOTCONN || ret == -EPROTO)
			return 0;	/* TCP: the connection broke, the ping is lost */
		/* -EINTR, or -ECONNREFUSED: the reflector is down, the ping lost */
		blocking = false;
		if (poll_wait) {
			if (sk_wait(&r->sk, deadline) == 0)
				return 0;
		} else if ((++spins & 63) == 0 && monotonic_ns() > deadline) {
			return 0;
		}
	}
}

/* Fill rec from the pong; patch the previous record from the follow-up. */
static void emit_take_pong(struct emitter *e, struct txrec *rec,
			   const struct wire_hdr *h)
{
	struct run *r = e->r;
	struct wire_body b;

	if (wire_parse_body(rx_buf, h->len - (r->auth ? WIRE_MAC_LEN : 0), &b))
		return;
	r->peer_body = true;
	r->peer_hw = h->flags & WIRE_F_T2_HW;
	clock_pong(r->clock, h->flags);
	if (h->flags & WIRE_F_T2)
		rec->t2_wire = b.t2_wire;
	if (h->flags & WIRE_F_SW) {
		rec->t2_sw = b.t2_sw;
		txrec_set_t3_sw(rec, b.t3_sw);
	}
	if (!(h->flags & WIRE_F_FU) || !e->last_valid || b.fu_seq != e->last.seq)
		return;
	txrec_set_t3_wire(&e->last, b.fu_t3_wire);
	if (r->log)
		txlog_patch_t3(r->log, b.fu_seq, b.fu_t3_wire);
	/* A breach is always the transaction just before this pong's. */
	if (r->nbreach && r->breach[r->nbreach - 1].rec.seq == b.fu_seq)
		txrec_set_t3_wire(&r->breach[r->nbreach - 1].rec, b.fu_t3_wire);
	metric_sample(r->hist, &e->last, METRIC_T3);
	clock_peer_add(r->clock, &e->last);
	e->last_valid = false;
}

/* The ping's header for the phase: measured or not, SW stamps asked. */
static void emit_set_flags(const struct emitter *e, bool measured)
{
	const struct run *r = e->r;
	struct wire_hdr h = {
		.type = WIRE_PING,
		.flags = (uint16_t)((measured ? 0 : WIRE_F_WARMUP) |
				    (r->cfg->sw ? WIRE_F_WANT_SW : 0) |
				    (r->auth ? WIRE_F_AUTH : 0)),
		.session = r->session,
		.len = e->size,
	};

	wire_put_hdr(tx_buf, &h);
}

/* One ping and its pong: send, wait, then (off the critical path) the
 * ping's TX stamp and the pong's body. */
static enum tx_result emit_transact(struct emitter *e, bool poll_wait,
				    struct txrec *rec)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	struct ts_stamps txs;
	struct wire_hdr h;
	struct sk_msg m;
	int64_t t1_sw, t4_wire;
	uint32_t key, ack_key;
	int ret;

	pong_window_forget(&e->seen, ++e->seq);
	t1_sw = realtime_ns();
	wire_set_seq(tx_buf, e->seq, t1_sw);
	/* --key: the MAC covers T1_SW, so its cost lands in T1_SW -> T1 wire. */
	if (r->auth)
		auth_sign(r->auth, tx_buf, e->size);
	ret = r->tp->send(&r->sk, tx_buf, e->size, NULL, &key);
	e->t1_sw = t1_sw;
	if (ret) {
		if (ret == -ENOTCONN)
			return TX_PEER_GONE;
		r->cnt.send_errors++;
		return TX_SEND_FAILED;
	}
	ack_key = r->sk.tx_key - 1;	/* TCP: the ping's last byte */
	e->gone_since = 0;
	if (!emit_wait_pong(e, poll_wait, monotonic_ns() + c->timeout_ns, &m, &h))
		return TX_LOST;
	e->pongs++;
	txrec_clear(rec);
	rec->seq = e->seq;
	rec->t1_sw = t1_sw;
	t4_wire = ts_wire(&m.rx, r->sk.hw);
	e->rx_stamped = t4_wire != TS_NONE;
	txrec_set_t4_sw(rec, m.sw_ns);
	if (sk_tx_stamp(&r->sk, key, TX_STAMP_WAIT_NS, &txs) == 0) {
		struct ts_stamps sch;

		rec->t1_wire = ts_wire(&txs, r->sk.hw);
		/* The ping's SCHED stamp came before its SND stamp. */
		if (sk_tx_sched(&r->sk, key, 0, &sch) == 0)
			txrec_set_queue(rec, txs.kn_ns, sch.kn_ns);
	}
	/* The ACK came with (or before) the pong: queued already. */
	if (c->tcp && sk_tx_ack(&r->sk, ack_key, 0, &txs) == 0)
		txrec_set_ack(rec, txs.kn_ns);
	/*
	 * Read in time but stamped after --timeout (this process was
	 * descheduled): the stamps are the truth, the pong was late.
	 */
	if (rec->t1_wire != TS_NONE && t4_wire != TS_NONE &&
	    t4_wire - rec->t1_wire > c->timeout_ns)
		return TX_LATE;
	txrec_set_t4_wire(rec, t4_wire);
	emit_take_pong(e, rec, &h);
	return TX_DONE;
}

/* Measuring may start once pongs carry every wire stamp the run uses. */
static bool emit_stamped(const struct run *r, const struct txrec *rec)
{
	return rec->t1_wire != TS_NONE && txrec_stamp(rec, P_T4_WIRE) != TS_NONE &&
	       (!r->peer_body || rec->t2_wire != TS_NONE);
}

/* Why the warm-up gave up, in r->failure. */
static int emit_warmup_failed(struct emitter *e)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;

	r->stop_reason = e->pongs ? "warm-up failed: pongs arrive without timestamps" :
		"warm-up failed: no pong";
	if (!e->pongs && r->auth && r->cnt.unauthenticated)
		snprintf(r->failure, sizeof(r->failure),
			 "%llu pongs from %s failed authentication: %s",
			 (unsigned long long)r->cnt.unauthenticated, c->addr, r->peer_no_key ?
			 "they carry no MAC: the reflector runs without --key; give it the same --key FILE" :
			 "their MAC is wrong: is the reflector's key another, or is it an older rant without --key?");
	else if (!e->pongs && r->auth)
		snprintf(r->failure, sizeof(r->failure),
			 "no pong from %s port %u in %lld s of warm-up: is rant reflecting there with the same --key? (a reflector with another key answers nothing, and counts the pings as unauthenticated)",
			 c->addr, c->port, WARMUP_LIMIT_NS / NS_PER_SEC);
	else if (!e->pongs && c->tcp && tcp_stats()->garbage)
		snprintf(r->failure, sizeof(r->failure),
			 "%s port %u accepts TCP but does not speak rant (%llu connections dropped): is another service on that port?",
			 c->addr, c->port, (unsigned long long)tcp_stats()->garbage);
	else if (!e->pongs)
		snprintf(r->failure, sizeof(r->failure),
			 "no pong from %s port %u in %lld s of warm-up: is rant reflecting there (rant -i IFACE on that host)?",
			 c->addr, c->port, WARMUP_LIMIT_NS / NS_PER_SEC);
	else
		snprintf(r->failure, sizeof(r->failure),
			 "pongs from %s arrive, but without %s for %lld s: is timestamping blocked on %s or on the reflector?",
			 c->addr, r->peer_body ? "both sides' stamps" : "stamps",
			 WARMUP_LIMIT_NS / NS_PER_SEC, c->iface);
	return -EIO;
}

/*
 * Unmeasured pings until -w of them have been answered and a pong came
 * with every stamp: 0, -EINTR on a signal, -EIO when no stamped pong
 * came back for WARMUP_LIMIT_NS (a long -w goes on while they come).
 * Waits block: a spinner at SCHED_FIFO would starve the kernel worker
 * that enables RX timestamping.
 */
static int emit_warmup(struct emitter *e)
{
	struct run *r = e->r;
	int64_t give_up = monotonic_ns() + WARMUP_LIMIT_NS;
	uint32_t left = r->cfg->warmup;
	struct txrec rec;

	emit_set_flags(e, false);
	while (!run_stop) {
		enum tx_result res;

		if (monotonic_ns() > give_up)
			return emit_warmup_failed(e);
		res = emit_transact(e, true, &rec);
		if (res != TX_SEND_FAILED && res != TX_PEER_GONE)
			r->cnt.warmup++;
		if (res != TX_DONE)
			continue;
		if (left)
			left--;
		if (!emit_stamped(r, &rec))
			continue;
		if (!left)
			return 0;
		give_up = monotonic_ns() + WARMUP_LIMIT_NS;
	}
	return -EINTR;
}

/* With --interval: wait for the slot at next; returns the slot after. */
static int64_t emit_pace(const struct rant_cfg *c, int64_t next)
{
	struct timespec ts = ns_to_timespec(next);
	int64_t now;

	if (c->block)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	else
		while (monotonic_ns() < next && !run_stop)
			;
	now = monotonic_ns();
	return next + c->interval_ns > now ? next + c->interval_ns : now;
}

/* Count wire stamps earlier than the last measured transaction's. */
static void emit_backwards(struct emitter *e, const struct txrec *rec)
{
	int64_t t4 = txrec_stamp(rec, P_T4_WIRE);

	if (rec->t1_wire != TS_NONE) {
		e->r->cnt.backwards_tx_ts += e->prev_t1 != TS_NONE && rec->t1_wire < e->prev_t1;
		e->prev_t1 = rec->t1_wire;
	}
	if (t4 != TS_NONE) {
		e->r->cnt.backwards_rx_ts += e->prev_t4 != TS_NONE && t4 < e->prev_t4;
		e->prev_t4 = t4;
	}
}

/* A measured transaction came back: count, sample, log, check -t. */
static enum measure_next emit_measured(struct emitter *e, struct txrec *rec)
{
	struct run *r = e->r;
	int64_t rtt;
	bool have;

	if (rec->t1_wire == TS_NONE)
		r->cnt.missing_tx_ts++;
	if (!e->rx_stamped)
		r->cnt.missing_rx_ts++;
	emit_backwards(e, rec);
	metric_sample(r->hist, rec, METRIC_NO_T3);
	have = metric_value(M_RTT, rec, &rtt);
	if (!have)
		rtt = 0;
	emit_count_received(e, rec, rtt);
	if (r->nsweep && metric_value(M_RTT, rec, &rtt))
		hist_add(r->sweep[r->sweep_idx].rtt, rtt, rec->seq);
	e->last = *rec;
	e->last_valid = true;
	if (r->capture)
		capture_expect(r->capture, r->session, rec);
	return measure_done(r, rec, rtt);
}

/* Say that measuring starts (tests and users wait for it): once, and
 * for each size of a sweep. */
static void emit_say_measuring(const struct emitter *e)
{
	const struct run *r = e->r;
	FILE *f = report_text_stream(r);

	if (r->sweep_idx == 0)
		fprintf(f, "measuring: warm-up done after %" PRIu64 " pings\n", r->cnt.warmup);
	if (r->nsweep)
		fprintf(f, "sweep: size %u of %u: %u bytes\n", r->sweep_idx + 1, r->nsweep, e->size);
	fflush(f);
}

/*
 * TCP: the connection is down and could not be made again. The ping
 * counts as lost; after PEER_GONE_NS without a connection the run ends
 * (0 go on, -EIO with r->failure).
 */
static int emit_peer_gone(struct emitter *e)
{
	struct run *r = e->r;
	int64_t now = monotonic_ns();

	if (!e->gone_since)
		e->gone_since = now;
	if (now - e->gone_since < PEER_GONE_NS)
		return 0;
	r->stop_reason = "reflector gone";
	snprintf(r->failure, sizeof(r->failure),
		 "the TCP connection to %s port %u broke and could not be made again for %lld s: is the reflector still running (rant -i IFACE --tcp)?",
		 r->cfg->addr, r->cfg->port, PEER_GONE_NS / NS_PER_SEC);
	return -EIO;
}

/* Measured pings of e->size until -c, -d, a signal, a full log, a breach
 * or (TCP) a reflector gone for good (MEASURE_STOP with r->failure). */
static enum measure_next emit_measure(struct emitter *e)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	struct sweep_point *sp = r->nsweep ? &r->sweep[r->sweep_idx] : NULL;
	uint64_t sent = 0;
	int64_t end, next;

	emit_set_flags(e, true);
	e->first_measured = e->seq + 1;
	if (r->sweep_idx == 0)
		measure_start(r);
	emit_say_measuring(e);
	next = monotonic_ns();
	if (r->series && r->sweep_idx == 0)
		series_begin(r->series, next, realtime_ns());	/* -I: from the first slot */
	end = c->duration_ns ? next + c->duration_ns : 0;
	while (!run_stop) {
		enum measure_next step;
		enum tx_result res;
		struct txrec rec;

		if (c->count && sent >= c->count) {
			r->stop_reason = "count";
			break;
		}
		if (measure_time_up(end)) {
			r->stop_reason = "duration";
			break;
		}
		if (c->interval_ns)
			next = emit_pace(c, next);
		res = emit_transact(e, c->block, &rec);
		if (res == TX_SEND_FAILED)
			continue;
		emit_count_sent(e, e->seq, e->t1_sw);
		sent++;
		if (res != TX_DONE) {
			emit_count_lost(e, e->seq, e->t1_sw);
			if (res == TX_LATE)
				emit_count_late(e, e->seq);
			if (res == TX_PEER_GONE && emit_peer_gone(e))
				return MEASURE_STOP;
			continue;
		}
		step = emit_measured(e, &rec);
		if (step != MEASURE_GO_ON)
			return step;
	}
	if (sp)
		sp->done = !run_stop;
	return MEASURE_GO_ON;
}

/* After a breach: one unmeasured ping more, whose pong carries the
 * breached transaction's T3 as its follow-up. */
static void emit_fetch(struct emitter *e)
{
	enum tx_result res;
	struct txrec rec;

	emit_set_flags(e, false);
	res = emit_transact(e, e->r->cfg->block, &rec);

	if (res != TX_SEND_FAILED && res != TX_PEER_GONE)
		e->r->cnt.warmup++;
}

/* Warm-up and measure each size in turn (one size without a sweep):
 * 0, -EINTR in a warm-up, -EIO with r->failure. */
static int emit_sizes(struct emitter *e)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	enum measure_next step = MEASURE_GO_ON;
	int ret = 0;

	for (unsigned int i = 0; i < c->nsizes && !run_stop; i++) {
		r->sweep_idx = i;
		e->size = c->sizes[i];
		ret = emit_warmup(e);
		if (ret)
			break;
		step = emit_measure(e);
		if (step != MEASURE_GO_ON)
			break;
	}
	if (step == MEASURE_BREACH)
		emit_fetch(e);
	if (step == MEASURE_STOP && r->failure[0])
		return -EIO;
	if (!ret && c->tcp && e->gone_since && !r->failure[0]) {
		snprintf(r->failure, sizeof(r->failure),
			 "the TCP connection to %s port %u broke and was down when the run ended: is the reflector still running?",
			 c->addr, c->port);
		return -EIO;
	}
	if (ret == -EINTR && r->sweep_idx > 0)
		return 0;	/* the sizes before were measured */
	return ret;
}

/* UDP sizes above the path MTU are sent as IP fragments: say so. */
static void emit_warn_mtu(const struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	bool v6 = r->sk.family == AF_INET6;
	int mtu = 0;
	socklen_t len = sizeof(mtu);
	uint32_t room;

	if (c->tcp || getsockopt(r->sk.fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
				 v6 ? IPV6_MTU : IP_MTU, &mtu, &len) || mtu <= 0)
		return;
	room = (uint32_t)mtu - (v6 ? 48 : 28);	/* IP and UDP headers */
	for (unsigned int i = 0; i < c->nsizes; i++)
		if (c->sizes[i] > room)
			fprintf(report_text_stream(r),
				"warning: -m %u is above the path MTU to %s (%d bytes: at most %u bytes of UDP payload): each datagram is sent as IP fragments, and one lost fragment loses it\n",
				c->sizes[i], c->addr, mtu, room);
}

int emit_run(struct run *r)
{
	static struct emitter e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.r = r;
	emit_warn_mtu(r);
	ret = emit_sizes(&e);
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	if (r->start_ns == 0)
		r->start_ns = r->end_ns;
	if (ret == -EINTR) {
		fprintf(stderr, "rant: stopped during the warm-up: nothing measured\n");
		return 0;
	}
	return ret;
}
