// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflect loop (see reflect.h). The pong leaves first; its TX stamp
 * is read from the error queue after, and travels in the next pong.
 */
#include <errno.h>
#include <string.h>

#include "capture.h"
#include "allow.h"
#include "auth.h"
#include "measure.h"
#include "reflect.h"
#include "series.h"
#include "session.h"

#define RX_BUF_LEN RANT_TCP_MAX_LEN	/* the largest message of any transport */
#define TX_STAMP_WAIT_NS (2 * NS_PER_MS)	/* HW TX stamps lag the send */

static uint8_t rx_buf[RX_BUF_LEN];

/* State across sessions; each session's own is in struct session. */
struct reflector {
	bool started;		/* RANT_TEST_START written */
	bool stamped;		/* an RX stamp has arrived: spinning is safe */
	bool want_sw;		/* a session asked for SW stamps: take T2_SW */
	int64_t prev_t2, prev_t3;	/* wire stamps of the last measured ping */
};

/* Nothing received (a blocking receive waited SK_REFLECT_WAKE_NS): 0 when
 * -d is up. Spinning, the clock is read every 1024 empty receives. */
static int reflect_idle(bool blocked, int64_t end, unsigned int *spins)
{
	if (!blocked && (++*spins & 1023))
		return 1;
	return !measure_time_up(end);
}

/* Answer one ping in place; returns the pong's T3 wire stamp. */
static int64_t reflect_answer(struct run *r, const struct session *f,
			      struct sk_msg *m, const struct msg_hdr *h,
			      struct txrec *rec, bool *sent)
{
	struct ts_stamps txs, sch;
	struct msg_body b = { 0 };
	uint16_t flags = 0;	/* which fields of the body hold data */
	bool sw = r->cfg->sw || f->want_sw;
	struct sk *via = m->via ? m->via : &r->sk;	/* TCP: the ping's connection */
	uint32_t key;

	if (rec->t2_wire != TS_NONE)
		flags |= MSG_F_T2 | (r->sk.hw ? MSG_F_T2_HW : 0);
	if (sw)
		flags |= MSG_F_SW;
	if (f->fu_valid)
		flags |= MSG_F_FU | (r->sk.hw ? MSG_F_FU_HW : 0);
	if (clock_bad_now(r->clock))
		flags |= MSG_F_CLOCK_BAD;
	b.t2_wire = rec->t2_wire;
	b.t2_sw = rec->t2_sw;
	b.fu_seq = f->fu_seq;
	b.fu_t3_wire = f->fu_t3;
	b.t3_sw = sw ? realtime_ns() : TS_NONE;
	msgfmt_put_pong(&r->fmt, rx_buf, h, flags, &b);
	txrec_set_t3_sw(rec, b.t3_sw);
	/* --key: after T3_SW, so its cost lands in T3_SW -> T3 wire. */
	if (r->auth)
		msgfmt_sign(&r->fmt, r->auth, rx_buf, h->len);

	/* Exactly as long as the ping: never an amplifier. */
	*sent = r->tp->send(&r->sk, rx_buf, h->len, m, &key) == 0;
	if (!*sent) {
		r->cnt.send_errors++;
		return TS_NONE;
	}
	if (sk_tx_stamp(via, key, TX_STAMP_WAIT_NS, &txs))
		return TS_NONE;
	/* The pong's SCHED stamp came before its SND stamp. */
	if (sk_tx_sched(via, key, 0, &sch) == 0)
		txrec_set_queue(rec, txs.kn_ns, sch.kn_ns);
	return ts_wire(&txs, r->sk.hw);
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
					  bool tx_stamped)
{
	int64_t resp;
	bool have;

	if (!f->started) {
		r->session = s->id;
		measure_start(r);
		if (r->series)
			series_begin(r->series, monotonic_ns(), realtime_ns());
		f->started = true;
	}
	s->last_seq = rec->seq;
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
		series_answered(r->series, monotonic_ns(), sent,
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

/* The sender's session, started when new; NULL (counted) when refused. */
static struct session *reflect_session(struct run *r, const struct sk_msg *m,
				       const struct msg_hdr *h)
{
	bool fresh;
	struct session *s = sessions_get(r->sessions, (const struct sockaddr *)&m->src,
					 m->src_len, h->session, monotonic_ns(), &fresh);

	if (!s)
		r->cnt.refused++;
	else if (fresh)
		r->cnt.sessions++;
	return s;
}

/* One received datagram: answer it if it is a ping, measure it if asked. */
static enum measure_next reflect_one(struct run *r, struct reflector *f,
				     struct sk_msg *m)
{
	struct session *s;
	struct msg_hdr h;
	struct txrec rec;
	bool measured, warm, sent;
	int64_t t3;

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
	s = reflect_session(r, m, &h);
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
	t3 = reflect_answer(r, s, m, &h, &rec, &sent);
	txrec_set_t3_wire(&rec, t3);
	s->fu_valid = t3 != TS_NONE;
	s->fu_seq = h.seq;
	s->fu_t3 = t3;
	if (measured)
		return reflect_measured(r, f, s, &rec, sent, t3 != TS_NONE);
	if (warm) {
		r->cnt.warmup++;
		s->warmup++;
	}
	return MEASURE_GO_ON;
}

int reflect_run(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct reflector f = { 0 };
	int64_t end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
	unsigned int spins = 0;
	int ret;

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
			if (!reflect_idle(block, end, &spins)) {
				r->stop_reason = "duration";
				break;
			}
			continue;
		}
		if (reflect_one(r, &f, &m) != MEASURE_GO_ON)
			break;
	}
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	return 0;
}
