// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflect loop (see reflect.h). The pong leaves first; its TX stamp
 * is harvested whenever it comes, never waited for, and travels as the
 * follow-up of a later pong of its session (reflstamp.c: the pongs after
 * their send).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrwatch.h"
#include "allow.h"
#include "auth.h"
#include "capture.h"
#include "clock.h"
#include "measure.h"
#include "msgfmt.h"
#include "reflect.h"
#include "reflector.h"
#include "reflstamp.h"
#include "seqrep.h"
#include "session.h"
#include "skbatch.h"
#include "stamp.h"
#include "txpend.h"
#include "warn.h"
#include "xdpmap.h"
#include "xdprefl.h"

#define RX_BUF_LEN RANT_TCP_MAX_LEN	/* the largest message of any transport */

static uint8_t rx_buf[RX_BUF_LEN];

/* The steps between a ping's receive and its pong's send, inlined into
 * both loops (reflect_one, reflect_batch): no calls' cost on the round
 * trip's path. */
#define RX_TX_STEP static inline __attribute__((always_inline))

/* Nothing received (a blocking receive waited SK_REFLECT_WAKE_NS): the
 * pongs' stamps harvested, however late; 1, or 0 when -d is up, -1 when
 * the harvest stops the run. Spinning, the clock is read every 1024 empty
 * receives; then, and after each such wait, the error queue is read even
 * with no pong awaiting a stamp: a report of a send given up (late, or
 * its table full) is not left to hold the receive memory the queue
 * shares. After such a wait, or 1024 empty receives, the clocks' offset
 * is read again at the next ping; the few empty receives between two
 * pings of a busy spell leave it (a clock read per ping inside the round
 * trip). */
static int reflect_idle(struct reflector *f, bool blocked, int64_t end, unsigned int *spins)
{
	bool slow = blocked || !(++*spins & 1023);

	if ((slow || txpend_len(f->pend)) && reflect_harvest(f->r, f, monotonic_ns()))
		return -1;
	if (!slow)
		return 1;
	f->came_n = CAME_REFRESH;
	xdprefl_tick(f->xdp, monotonic_ns());
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
				  int64_t t2_sw, uint64_t *pong_no)
{
	struct msg_body b = { 0 };
	struct session_fu fu;
	uint16_t flags = 0;	/* which fields of the body hold data */
	bool sw = r->cfg->sw || f->want_sw;

	if (t2_wire != TS_NONE)
		flags |= MSG_F_T2 | (r->sk.hw ? MSG_F_T2_HW : 0);
	if (sw)
		flags |= MSG_F_SW;
	/* A pong too short for a body carries no follow-up: keep it. */
	if (msgfmt_has_body(&r->fmt, h->len) && session_fu_take(f, &fu)) {
		flags |= MSG_F_FU | (r->sk.hw ? MSG_F_FU_HW : 0);
		b.fu_seq = fu.seq;
		b.fu_pong_no = fu.pong_no;
		b.fu_t3_wire = fu.t3;
	}
	if (clock_bad_now(r->clock))
		flags |= MSG_F_CLOCK_BAD;
	/* the session's side, where the ping asks (the format: where it fits) */
	if (h->flags & MSG_F_WANT_REPORT) {
		flags |= MSG_F_REPORT;
		b.report = (struct msg_report){ .send_errors = f->send_errors,
						.qdisc_drops = f->qdisc_drops + f->drops_undecided,
						.queue_max_ns = f->queue_max_ns };
	}
	b.t2_wire = t2_wire;
	b.t2_sw = t2_sw;
	b.t3_sw = sw ? realtime_ns() : TS_NONE;
	b.pong_no = *pong_no = f->pongs++;
	b.ttl = r->sk.want_ttl ? m->ttl : 0;	/* a TCP transport reads none */
	b.tos = r->sk.want_ttl ? m->tos : -1;	/* ... nor a TOS */
	b.rx_count = (uint32_t)f->pings;
	msgfmt_put_pong(&r->fmt, buf, h, flags, &b);
	/* --key: after T3_SW, so its cost lands in T3_SW -> T3 wire. */
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, buf, h->len);
	return b.t3_sw;
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
 * long as the ping (never an amplifier), signed under --key; no answer
 * at all in a format that cannot say it (STAMP: counted refused all the
 * same). It asks for no TX stamp (sk_msg.unstamped): none would be
 * read, and a sender of refused pings would fill the socket's error
 * queue, and with it the receive memory it shares, for good. */
static void reflect_refuse(struct run *r, struct sk_msg *m, uint8_t *buf,
			   const struct msg_hdr *h)
{
	const struct msg_body none = { 0 };
	uint32_t key;

	if (!r->fmt.f->caps.refusal)
		return;
	msgfmt_put_pong(&r->fmt, buf, h, MSG_F_REFUSED, &none);
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, buf, h->len);
	m->tos_out = -1;
	m->unstamped = true;
	if (r->tp->send(&r->sk, buf, h->len, m, &key))
		r->cnt.send_errors++;
}

/* The sender's session, started when new; NULL (counted) when refused
 * (answered with a refusal where the format has one) or, under --key,
 * replayed (unanswered). */
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
	if (s)
		s->pings++;
	/* --stamp: a number its replies carried too often, or chose: a
	 * loop's, on whatever ports (seqrep.h) */
	if (s && r->cfg->stamp && !seqrep_ok(&s->recent, h->seq)) {
		r->cnt.repeated++;
		return NULL;
	}
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
	uint64_t wire_seq = h->seq;	/* as the wire had it, before it is widened */
	int64_t t1;

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
	a->fetch = a->warm && (h->flags & MSG_F_FETCH);
	if (a->measured && reflect_left_out(r, s, h->seq)) {
		a->measured = false;
		a->warm = true;
		if (r->capture)
			capture_skip(r->capture, s->id, h->seq);
	}
	if (a->measured)	/* now: a later ping of the batch is checked against it */
		s->last_seq = h->seq;
	a->seq = h->seq;
	/* The emitter's last pings fetch the report (unmeasured): the drops
	 * its stamps already prove, not yet retired (2 s), in it too. */
	s->drops_undecided = (h->flags & (MSG_F_WARMUP | MSG_F_WANT_REPORT)) ==
			     (MSG_F_WARMUP | MSG_F_WANT_REPORT) ?
			     txpend_dropped_now(f->pend, s->ordinal, RF_MEASURED) : 0;
	a->t2_wire = ts_wire(&m->rx, r->sk.hw);
	a->t2_sw = s->want_sw && m->sw_ns == TS_NONE ? realtime_ns() : m->sw_ns;
	if (a->t2_wire != TS_NONE)
		f->stamped = true;
	a->s = s;
	a->id = s->id;
	a->m = m;
	a->came = now;
	a->len = h->len;
	a->t3_sw = reflect_answer(r, s, m, buf, h, a->t2_wire, a->t2_sw, &a->pong_no);
	if (r->cfg->stamp)	/* the number its reply carries, in a request's terms */
		seqrep_note(&s->recent, wire_seq, r->fmt.f->get_seq(&r->fmt, buf, h->len, &t1));
	m->tos_out = r->fmt.reply_tos;	/* the pong's own TOS, if it asked for one */
	m->unstamped = false;		/* its T3 is read (reflect_pend) */
}

/* The pong of a went (sent: with OPT_ID key) or was refused by the
 * kernel: counted, and into the table of pongs awaiting their stamps. */
static enum measure_next reflect_sent(struct run *r, struct reflector *f, struct answer *a,
				      bool sent, uint32_t key, struct sk *via)
{
	if (!a->s) {		/* its session was evicted meanwhile */
		r->cnt.send_errors += !sent;
		a->measured = false;	/* its stamp is read all the same */
		return sent && reflect_pend(r, f, NULL, a, key, via) ? MEASURE_STOP : MEASURE_GO_ON;
	}
	reflect_record(a);
	if (a->fetch) {
		r->cnt.fetch++;
	} else if (a->warm) {
		r->cnt.warmup++;
		a->s->warmup++;
	}
	if (a->measured)
		reflect_start(r, f, a->s);
	if (sent)
		return reflect_pend(r, f, a->s, a, key, via) ? MEASURE_STOP : MEASURE_GO_ON;
	r->cnt.send_errors++;
	if (!a->measured)
		return MEASURE_GO_ON;
	a->s->send_errors++;	/* told to the emitter in a later pong's report */
	return reflect_measured(r, a->s, &a->rec, false, false, a->came);
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
	/* --tcp: the connection's last pong has left whole by now */
	if (m->via && reflect_tail(f, m->via))
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

/* A UDP reflector on an interface of one address of each family: its
 * addresses watched, so that one added later gets its pongs from itself
 * (addrwatch.h). NULL: none to watch, or the watch failed (a warning). */
static struct addrwatch *reflect_watch(struct run *r)
{
	struct addrwatch *w = NULL;
	char err[256];

	if (r->cfg->tcp || r->sk.want_dst || !addrwatch_start(&w, &r->sk, r->cfg->iface, err,
							       sizeof(err)))
		return w;
	warn_add(&r->warn, stderr, "addresses_unwatched",
		 "restart the reflector after adding an address to its interface",
		 "%s: an address added while this reflector runs gets its pongs from another", err);
	return NULL;
}

int reflect_setup(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct xdprefl **x = &r->xdp_prog;
	char err[320];

	*x = NULL;
	if (!c->xdp)
		return 0;
	r->xdp = calloc(1, sizeof(*r->xdp));
	if (!r->xdp) {
		fprintf(stderr, "rant: --xdp: no memory for its report\n");
		return -1;
	}
	if (xdprefl_start(x, r, err, sizeof(err))) {
		snprintf(r->xdp->note, sizeof(r->xdp->note), "%s", err);
		if (c->xdp == XDP_REQUIRED) {
			fprintf(stderr, "rant: --xdp=required: %s\n", err);
			return -1;
		}
		warn_add(&r->warn, stderr, "xdp_unavailable",
			 "see rant-reflect(8), XDP; --xdp=required makes this an error",
			 "--xdp: %s: the socket reflector answers every ping", err);
		return 0;
	}
	snprintf(r->xdp->note, sizeof(r->xdp->note), "%s; %s", xdprefl_t3(*x),
		 c->key_path ? "--key: every ping passes to the socket reflector (its MAC is checked there)" :
		 c->tcp ? "--tcp: every message passes to the socket reflector" :
		 "--key, -s, TCP, STAMP's TLVs, IPv4 options and fragments pass to the socket reflector");
	fprintf(stderr, "rant: --xdp: %s answers %s in the driver (XDP_TX); T2 %s, %s\n",
		c->iface, c->stamp ? "open STAMP and TWAMP-Light packets" : "rant pings",
		"the driver's RX stamp where it gives one, else the kernel clock at the hook",
		r->xdp->note);
	return 0;
}

int reflect_run(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct reflector f = { .r = r, .pend_fd = r->sk.fd, .came_n = CAME_REFRESH };
	int64_t end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
	struct addrwatch *aw;
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
	f.xdp = r->xdp_prog;
	aw = reflect_watch(r);
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
		if (ret == -ECONNRESET)	/* TCP: a connection closed, its session with it */
			sessions_closed(r->sessions, (const struct sockaddr *)&m.src);
		if (ret) {
			int idle = reflect_idle(&f, waits, end, &spins);

			if (!idle)
				r->stop_reason = "duration";
			if (idle <= 0)
				break;
			continue;
		}
		if ((b ? reflect_batch(r, &f, b, (unsigned int)n) : reflect_one(r, &f, &m)) !=
		    MEASURE_GO_ON)
			break;
	}
	addrwatch_stop(aw);
	xdprefl_stop(f.xdp, r->xdp, &r->cnt);
	r->xdp_prog = NULL;
	reflect_finish(r, &f);
	txpend_destroy(f.pend);
	skbatch_destroy(b);
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	return 0;
}
