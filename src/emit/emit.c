// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emit loop (see emit.h), in three phases: warm-up, measure, and the
 * follow-up fetch after a breach. One transaction is the same in all
 * three (emit_transact); the phases differ in what they count and when
 * they stop. Measuring open loop (--open-loop) has a loop of its own
 * (emitopen.c: emitopen_measure); the steps both share are emitstep.h's,
 * below both. A measured transaction, in both loops, leaves through
 * emit_measured() or emit_lost() for the run's fan-out (measure.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "capture.h"
#include "emit.h"
#include "emitcount.h"
#include "emitopen.h"
#include "emitpend.h"
#include "emitpong.h"
#include "emitstep.h"
#include "txpend.h"

#define RX_BUF_LEN RANT_TCP_MAX_LEN		/* the largest message of any transport */
/* Unmeasured pings (warm-up, the fetch after a breach) may wait for
 * their TX stamp after the pong: HW stamps can lag a fast pong. */
#define UNMEASURED_TX_WAIT_NS (2 * NS_PER_MS)
#define PEER_GONE_NS (3 * NS_PER_SEC)		/* TCP: no connection this long: give up */

static uint8_t rx_buf[RX_BUF_LEN];
static uint8_t tx_buf[RANT_TCP_MAX_LEN];

_Static_assert(EMIT_WINDOW >= OL_MAX_SLOTS, "the pong window covers every ping in flight");

/* How one transaction ended. */
enum tx_result {
	TX_SEND_FAILED,		/* the ping did not leave */
	TX_PEER_GONE,		/* TCP: no connection, and none could be made */
	TX_LOST,		/* no pong within --timeout */
	TX_LATE,		/* pong read in time, but stamped after --timeout */
	TX_DONE,		/* pong matched: the record is filled */
};

/* ---- the counts of the measured run: every one goes through these ---- */

/* Classify one datagram; 1 if it is the pong awaited, else 0 after counting it. */
static int emit_match(struct emitter *e, const struct sk_msg *m, struct msg_hdr *h)
{
	enum pong_class k;

	if (!emit_authentic(e, m))
		return 0;
	k = emit_classify(&e->seen, &e->r->fmt, rx_buf, m->len, e->len, e->r->session,
			  e->seq, h);
	if (k == PONG_MATCH && (h->flags & MSG_F_REFUSED))
		e->r->cnt.refused++;	/* no session: the ping is lost */
	else if (k == PONG_MATCH)
		return 1;
	emit_count_stray(e, k, h);
	return 0;
}

/* Wait for the pong of e->seq until deadline; 1 got it, 0 timed out. */
static int emit_wait_pong(struct emitter *e, bool poll_wait, int64_t deadline,
			  struct sk_msg *m, struct msg_hdr *h)
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

/* A ping without its pong: the stamps it has in rec (its TX stamp is
 * read now, off the critical path: --timeout after the send, whatever
 * is queued; a stamp not there by then is not waited for). */
static void emit_unanswered(struct emitter *e, struct txrec *rec, int64_t t1_sw,
			    const uint32_t *key)
{
	struct ts_stamps txs;

	txrec_clear(rec);
	rec->seq = e->seq;
	rec->t1_sw = t1_sw;
	if (key && sk_tx_stamp(&e->r->sk, *key, 0, &txs) == 0)
		emit_tx_stamped(e, rec, *key, &txs);
}

/* One ping and its pong: send, wait, then (off the critical path) the
 * ping's TX stamp and the pong's body. rec: the record, or (lost) the
 * stamps the ping has. */
static enum tx_result emit_transact(struct emitter *e, bool poll_wait,
				    struct txrec *rec)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	struct ts_stamps txs;
	struct msg_hdr h;
	struct sk_msg m;
	int64_t t1_sw, t4_wire;
	uint32_t key, ack_key;
	int ret;

	pong_window_forget(&e->seen, ++e->seq);
	t1_sw = realtime_ns();
	msgfmt_set_seq(&r->fmt, tx_buf, e->seq, t1_sw);
	/* --key: the MAC covers T1_SW, so its cost lands in T1_SW -> T1 wire. */
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, tx_buf, e->len);
	ret = r->tp->send(&r->sk, tx_buf, e->len, NULL, &key);
	if (ret) {
		if (ret == -ENOTCONN) {
			emit_unanswered(e, rec, t1_sw, NULL);
			return TX_PEER_GONE;
		}
		r->cnt.send_errors++;
		return TX_SEND_FAILED;
	}
	ack_key = r->sk.tx_key - 1;	/* TCP: the ping's last byte */
	e->gone_since = 0;
	if (!emit_wait_pong(e, poll_wait, monotonic_ns() + c->timeout_ns, &m, &h)) {
		emit_unanswered(e, rec, t1_sw, &key);
		return TX_LOST;
	}
	e->pongs++;
	txrec_clear(rec);
	rec->seq = e->seq;
	rec->t1_sw = t1_sw;
	t4_wire = ts_wire(&m.rx, r->sk.hw);
	e->rx_stamped = t4_wire != TS_NONE;
	txrec_set_t4_sw(rec, m.sw_ns);
	/* Never waited for: not queued yet, it is harvested later (and
	 * the record measured then) while measuring. */
	e->t1_wait = false;
	if (sk_tx_stamp(&r->sk, key, e->defer ? 0 : UNMEASURED_TX_WAIT_NS, &txs) == 0)
		emit_tx_stamped(e, rec, key, &txs);
	else if (e->defer)
		e->t1_wait = true, e->t1_key = key, e->t1_t4 = t4_wire;
	/* The ACK came with (or before) the pong: queued already. */
	if (r->tp->caps.ack_stamps && sk_tx_ack(&r->sk, ack_key, 0, &txs) == 0)
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
static int emit_warmup_failed(struct emitter *e, int64_t span_ns)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;

	r->stop_reason = e->pongs ? "warm-up failed: pongs arrive without timestamps" :
		"warm-up failed: no pong";
	if (!e->pongs && r->cnt.refused)
		snprintf(r->failure, sizeof(r->failure),
			 "the reflector's session table is full: %s refused %llu pings a session: raise --max-sessions on it (and --max-sessions-per-address if this host runs many emitters)",
			 c->addr, (unsigned long long)r->cnt.refused);
	else if (!e->pongs && r->auth && r->cnt.unauthenticated)
		snprintf(r->failure, sizeof(r->failure),
			 "%llu pongs from %s failed authentication: %s",
			 (unsigned long long)r->cnt.unauthenticated, c->addr, r->peer_no_key ?
			 "they carry no MAC: the reflector runs without --key; give it the same --key FILE" :
			 "their MAC is wrong: is the reflector's key another, or is it an older rant without --key?");
	else if (!e->pongs && r->auth)
		snprintf(r->failure, sizeof(r->failure),
			 "no pong from %s port %u in %g s of warm-up: is rant reflecting there with the same --key, its clock within --key-window of this one? (if not, it answers nothing and counts the pings)",
			 c->addr, c->port, (double)span_ns / NS_PER_SEC);
	else if (!e->pongs && r->tp->caps.stream && tcp_stats(&r->sk)->garbage)
		snprintf(r->failure, sizeof(r->failure),
			 "%s port %u accepts TCP but does not speak rant (%llu connections dropped): is another service on that port?",
			 c->addr, c->port, (unsigned long long)tcp_stats(&r->sk)->garbage);
	else if (!e->pongs && r->tp->caps.stream && tcp_stats(&r->sk)->closed_before_pong)
		snprintf(r->failure, sizeof(r->failure),
			 "%s port %u closed the connection at once, before any pong (%llu times): likely its --max-sessions-per-address limit: raise --max-sessions-per-address on the reflector, or run fewer emitters from this address",
			 c->addr, c->port,
			 (unsigned long long)tcp_stats(&r->sk)->closed_before_pong);
	else if (!e->pongs)
		snprintf(r->failure, sizeof(r->failure),
			 "no pong from %s port %u in %g s of warm-up: is rant reflecting there (rant -i IFACE on that host)?",
			 c->addr, c->port, (double)span_ns / NS_PER_SEC);
	else
		snprintf(r->failure, sizeof(r->failure),
			 "pongs from %s arrive, but without %s for %g s of warm-up: is timestamping blocked on %s or on the reflector?",
			 c->addr, r->peer_body ? "both sides' stamps" : "stamps",
			 (double)span_ns / NS_PER_SEC, c->iface);
	return -EIO;
}

/*
 * Unmeasured pings until -w of them have been answered and a pong came
 * with every stamp: 0, -EINTR on a signal, -EIO when no stamped pong
 * came back for --warmup-timeout (a long -w goes on while they come).
 * Waits block: a spinner at SCHED_FIFO would starve the kernel worker
 * that enables RX timestamping.
 */
/* -d (the size's, in a sweep) ran out in the warm-up: nothing measured. */
static int emit_warmup_took_all(struct emitter *e, uint64_t pings)
{
	struct run *r = e->r;
	double d = (double)r->cfg->duration_ns / NS_PER_SEC;

	r->stop_reason = "duration: the warm-up took it";
	snprintf(r->failure, sizeof(r->failure),
		 "the warm-up took the whole -d %g s (%" PRIu64 " pings, %.1f ms each): nothing measured; give a longer -d, or a smaller -w",
		 d, pings, pings ? d * 1e3 / (double)pings : 0.0);
	return -EIO;
}

static int emit_warmup(struct emitter *e)
{
	struct run *r = e->r;
	int64_t give_up = monotonic_ns() + r->cfg->warmup_timeout_ns;
	uint32_t left = r->cfg->warmup;
	uint64_t pings = r->cnt.warmup;
	struct txrec rec;

	emit_set_flags(e, false);
	while (!run_stop) {
		enum tx_result res;

		/* -d ran out: slow pongs took it, or (none) the warm-up failed */
		if (measure_time_up(e->deadline))
			return e->pongs ? emit_warmup_took_all(e, r->cnt.warmup - pings) :
					  emit_warmup_failed(e, r->cfg->duration_ns);
		if (monotonic_ns() > give_up)
			return emit_warmup_failed(e, r->cfg->warmup_timeout_ns);
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
		give_up = monotonic_ns() + r->cfg->warmup_timeout_ns;
	}
	return -EINTR;
}

/*
 * Closed loop with --interval: wait for the slot due (monotonic ns). A
 * slot whose time passed while the emitter was still busy with the
 * previous transaction (until busy_until) is missed: its ping leaves at
 * once, late. e->late_ns: how late it leaves.
 */
static void emit_pace(struct emitter *e, int64_t due, int64_t busy_until)
{
	struct timespec ts = ns_to_timespec(due);
	int64_t now;

	if (due < busy_until)
		e->r->cnt.missed_slots++;
	if (e->r->cfg->block)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	else
		while (monotonic_ns() < due && !run_stop)
			;
	now = monotonic_ns();
	e->late_ns = now > due ? now - due : 0;
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

/* The transaction's outcome, counted (closed loop): MEASURE_STOP with
 * r->failure when a TCP reflector is gone for good. */
static enum measure_next emit_outcome(struct emitter *e, enum tx_result res,
				      struct txrec *rec)
{
	enum measure_next step;

	emit_count_sent(e, rec->seq, rec->t1_sw);
	if (res == TX_DONE && e->t1_wait)
		return emit_defer(e, rec);
	if (res == TX_DONE)
		return emit_measured(e, rec);
	step = emit_lost(e, rec);
	if (res == TX_LATE)
		emit_count_late(e, rec->seq);
	if (res == TX_PEER_GONE && emit_peer_gone(e))
		return MEASURE_STOP;
	return step;
}

/* Measured pings of e->size, closed loop, until -c, -d, a signal, a full
 * log, a breach or (TCP) a reflector gone for good (MEASURE_STOP with
 * r->failure). */
static enum measure_next emit_measure(struct emitter *e)
{
	struct run *r = e->r;
	const struct rant_cfg *c = r->cfg;
	uint64_t sent = 0, slot = 0;
	int64_t start, end, busy_until;

	enum measure_next step = MEASURE_GO_ON;

	emit_measure_begin(e);
	e->defer = true;
	start = busy_until = monotonic_ns();
	end = e->deadline;	/* -d from the warm-up's start */
	/* Paced, -d ends at the first slot at or past its end, or at its
	 * end when the loop is behind. */
	while (step == MEASURE_GO_ON) {
		int64_t now = monotonic_ns();
		enum tx_result res;
		struct txrec rec;

		if (run_stop || emit_enough(e, sent, c->interval_ns ?
					    start + (int64_t)slot * c->interval_ns : now,
					    now, end))
			break;
		/* TX stamps that came late, to their pings (never waited for) */
		step = emit_pend_harvest(e);
		if (step != MEASURE_GO_ON)
			break;
		if (c->interval_ns)
			emit_pace(e, start + (int64_t)slot++ * c->interval_ns, busy_until);
		res = emit_transact(e, c->block, &rec);
		if (c->interval_ns)
			busy_until = monotonic_ns();
		if (res == TX_SEND_FAILED)
			continue;
		sent++;
		step = emit_outcome(e, res, &rec);
	}
	e->defer = false;
	step = emit_pend_finish(e, step);
	if (step != MEASURE_GO_ON)
		return step;
	if (r->nsweep)
		r->sweep[r->sweep_idx].done = !run_stop;
	return MEASURE_GO_ON;
}

/* After a breach: one unmeasured ping more, whose pong carries the
 * breached transaction's T3 as its follow-up. */
/*
 * After measuring, unmeasured pings fetch what the run still lacks: after
 * a breach the breached pong's T3 (the next pong's follow-up), and the
 * reflector's report of its side (doc/wire.md), in pings long enough to
 * carry it: until two reports came (the second counts the drops the
 * first's pong revealed), FETCH_TRIES pings at most.
 */
#define FETCH_TRIES 4
static void emit_fetch(struct emitter *e, bool breach)
{
	struct run *r = e->r;
	const struct msgfmt_caps *k = &r->fmt.f->caps;
	uint32_t len = e->len, want = r->auth ? k->auth_report_len : k->report_len;
	uint64_t reports = r->peer_reports;

	if ((!breach || !k->follow_up) && (!want || !r->cnt.sent))
		return;
	if (want && e->len < want + k->overhead)
		e->len = want + k->overhead;
	e->fetching = true;
	emit_set_flags(e, false);
	for (int i = 0; i < FETCH_TRIES; i++) {
		enum tx_result res;
		struct txrec rec;

		res = emit_transact(e, r->cfg->block, &rec);
		if (res == TX_SEND_FAILED || res == TX_PEER_GONE)
			break;
		r->cnt.fetch++;
		if (!want || r->peer_reports >= reports + 2)
			break;
	}
	e->fetching = false;
	e->len = len;
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
		e->len = msgfmt_wire_len(&r->fmt, e->size);
		/* -d bounds the size's whole run, its warm-up included */
		e->warm_began = monotonic_ns();
		e->warm_pings = r->cnt.warmup;
		e->deadline = c->duration_ns ? e->warm_began + c->duration_ns : 0;
		ret = emit_warmup(e);
		if (ret)
			break;
		step = c->open_loop ? emitopen_measure(e) : emit_measure(e);
		if (step != MEASURE_GO_ON)
			break;
	}
	if (!ret)
		emit_fetch(e, step == MEASURE_BREACH);
	if (step == MEASURE_STOP && r->failure[0])
		return -EIO;
	if (!ret && r->tp->caps.stream && e->gone_since && !r->failure[0]) {
		snprintf(r->failure, sizeof(r->failure),
			 "the TCP connection to %s port %u broke and was down when the run ended: is the reflector still running?",
			 c->addr, c->port);
		return -EIO;
	}
	if (ret == -EINTR && r->sweep_idx > 0)
		return 0;	/* the sizes before were measured */
	return ret;
}

/* Datagrams above the path MTU are sent as IP fragments: say so. */
static void emit_warn_mtu(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	bool v6 = r->sk.family == AF_INET6;
	int mtu = 0;
	socklen_t len = sizeof(mtu);
	uint32_t room;

	if (r->tp->caps.stream || getsockopt(r->sk.fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
				 v6 ? IPV6_MTU : IP_MTU, &mtu, &len) || mtu <= 0)
		return;
	/* IP and UDP headers, and the format's (--ptp-mode's PTP header) */
	room = (uint32_t)mtu - (v6 ? 48 : 28) - r->fmt.f->caps.overhead;
	r->frag_above = room;
	for (unsigned int i = 0; i < c->nsizes; i++)
		if (c->sizes[i] > room)
			warn_add(&r->warn, r->text, "ip_fragmentation",
				 "keep -m within the UDP payload the path MTU allows (the text says how much), or raise the MTU",
				 "-m %u is above the path MTU to %s (%d bytes: at most %u bytes of UDP payload): each datagram is sent as IP fragments, and one lost fragment loses it",
				 c->sizes[i], c->addr, mtu, room);
}

/* --tcp: reconnects the reflector closed before any pong on them, after
 * pongs had come (before any, the warm-up fails saying so): a warning
 * with the likely cause, in the text and the JSON. */
static void emit_warn_closed(const struct emitter *e)
{
	struct run *r = e->r;
	const struct tcp_stats *t;

	if (!r->tp->caps.stream || !e->pongs)
		return;
	t = tcp_stats(&r->sk);
	if (!t->closed_before_pong)
		return;
	warn_add(&r->warn, r->text, "tcp_closed_before_pong",
		 "raise --max-sessions-per-address on the reflector, or run fewer emitters from this address",
		 "%s port %u closed %" PRIu64 " connections at once, before any pong on them (of %" PRIu64 " it closed in all): likely its --max-sessions-per-address limit turned reconnects away; a ping sent on such a connection is lost",
		 r->cfg->addr, r->cfg->port, t->closed_before_pong, t->closed);
}

int emit_run(struct run *r)
{
	static struct emitter e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.r = r;
	e.rx = rx_buf;
	e.rx_len = sizeof(rx_buf);
	e.tx = tx_buf;
	ret = emit_pend_create(&e);
	if (ret)
		return ret;
	emit_warn_mtu(r);
	ret = emit_sizes(&e);
	emit_warn_closed(&e);
	emit_pend_destroy(&e);
	return measure_end(r, ret);
}
