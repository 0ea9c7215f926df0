// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant: Round-trip And Network Timing.
 *
 * main(), and the two packet loops: emit (client) and reflect (server).
 * Everything that allocates, formats or can fail slowly is done before
 * the loops (run_setup) or after them (report_end); inside, a loop only
 * sends, receives, reads stamps and updates memory it already owns.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "opts.h"
#include "report.h"
#include "run.h"
#include "trace.h"
#include "wire.h"

#define RX_BUF_LEN 65536
#define TX_STAMP_WAIT_NS (2 * NS_PER_MS)	/* HW TX stamps lag the send */
#define WARMUP_LIMIT_NS (10 * NS_PER_SEC)	/* no stamped pong by then: give up */
#define SEEN_WORDS 64				/* 4096 recent seqs, late vs duplicate */

static uint8_t rx_buf[RX_BUF_LEN];
static uint8_t tx_buf[WIRE_MAX_LEN];

enum exit_status {
	EXIT_DONE = 0,
	EXIT_SETUP = 1,
	EXIT_RUN = 2,
	EXIT_BREACH = 3,
};

/* ---- shared by both loops ---- */

/* Log rec (if the log wants it); returns the slot, or NULL. */
static struct txrec *log_rec(struct run *r, const struct txrec *rec,
			     int64_t latency_ns)
{
	struct txrec *slot;

	if (!r->log)
		return NULL;
	if (r->cfg->log_threshold_ns && latency_ns <= r->cfg->log_threshold_ns) {
		r->cnt.log_skipped++;
		return NULL;
	}
	slot = txlog_next(r->log);
	if (!slot) {
		r->log_full = true;
		return NULL;
	}
	*slot = *rec;
	return slot;
}

static const char *side_name(const struct run *r)
{
	return r->cfg->mode == MODE_EMIT ? "emit" : "reflect";
}

static void mark_start(struct run *r)
{
	char extra[96];

	r->start_ns = realtime_ns();
	if (r->trace) {
		snprintf(extra, sizeof(extra), "iface=%s session=%08x", r->cfg->iface,
			 r->session);
		trace_start(r->trace, side_name(r), sched_getcpu(), extra);
	}
}

/*
 * A transaction crossed -t: count it, keep it for the report, and at the
 * first one write the marker and freeze the trace, in that order (the
 * kernel refuses markers once tracing_on is 0). Returns the kept copy.
 */
static void breach_seen(struct run *r, const struct txrec *rec,
			int64_t latency_ns)
{
	r->cnt.breaches++;
	if (r->nbreach < RUN_MAX_BREACHES) {
		struct breach *b = &r->breach[r->nbreach++];

		b->rec = *rec;
		b->latency_ns = latency_ns;
	}
	if (r->trace && r->cnt.breaches == 1) {
		struct trace_breach tb = {
			.seq = rec->seq, .latency_ns = latency_ns,
			.threshold_ns = r->cfg->threshold_ns,
			.side = side_name(r), .cpu = sched_getcpu(),
		};

		_Static_assert(P_COUNT == TRACE_NSTAMPS, "marker stamps in path order");
		for (int p = 0; p < P_COUNT; p++)
			tb.stamp[p] = txrec_stamp(rec, p);
		r->trace_err = trace_breach(r->trace, &tb);
	}
}

enum next_step {
	GO_ON,
	STOP_NOW,		/* the log is full */
	STOP_BREACH,		/* a breach without -C */
};

/*
 * A measured transaction with its latency (the side's main metric): log
 * it (its slot in *slot where asked), check the log's room and -t.
 */
static enum next_step transaction_done(struct run *r, const struct txrec *rec,
				       int64_t latency_ns, struct txrec **slot)
{
	struct txrec *s = log_rec(r, rec, latency_ns);

	if (slot)
		*slot = s;
	if (r->log_full) {
		r->stop_reason = "log full";
		return STOP_NOW;
	}
	if (r->cfg->threshold_ns && latency_ns > r->cfg->threshold_ns) {
		breach_seen(r, rec, latency_ns);
		if (!r->cfg->cont) {
			r->stop_reason = "breach";
			return STOP_BREACH;
		}
	}
	return GO_ON;
}

static bool time_up(int64_t end_mono)
{
	return end_mono && monotonic_ns() >= end_mono;
}

/* ---- emit ---- */

struct emitter {
	uint64_t seq;
	uint64_t seen[SEEN_WORDS];	/* pongs received, by seq % 4096 */
	struct txrec last;		/* last measured, awaiting its follow-up */
	struct txrec *last_slot;	/* its log slot, or NULL */
	bool last_valid;
};

static bool seen_test_set(struct emitter *e, uint64_t seq)
{
	uint64_t bit = 1ULL << (seq % 64), *w = &e->seen[(seq / 64) % SEEN_WORDS];
	bool was = *w & bit;

	*w |= bit;
	return was;
}

static void seen_clear(struct emitter *e, uint64_t seq)
{
	e->seen[(seq / 64) % SEEN_WORDS] &= ~(1ULL << (seq % 64));
}

/* Classify a datagram that arrived while waiting for seq: 1 if it is
 * that pong, else 0 after counting it. */
static int emit_classify(struct run *r, struct emitter *e, ssize_t len,
			 struct wire_hdr *h)
{
	if (len < 0 || wire_parse(rx_buf, (size_t)len, WIRE_PONG, h) ||
	    len != r->cfg->size) {
		r->cnt.invalid++;
		return 0;
	}
	if (h->session != r->session) {
		r->cnt.foreign++;
		return 0;
	}
	if (h->seq == e->seq) {
		if (seen_test_set(e, h->seq)) {
			r->cnt.duplicate++;
			return 0;
		}
		return 1;
	}
	if (h->seq > e->seq)
		r->cnt.invalid++;	/* a seq we never sent */
	else if (e->seq - h->seq >= SEEN_WORDS * 64 || !seen_test_set(e, h->seq))
		r->cnt.late++;
	else
		r->cnt.duplicate++;
	return 0;
}

/* Wait for the pong of e->seq until deadline; 1 got it, 0 timed out. */
static int emit_wait_pong(struct run *r, struct emitter *e, bool poll_wait,
			  int64_t deadline, struct sk_msg *m, struct wire_hdr *h,
			  int64_t *t4_sw)
{
	bool blocking = poll_wait;	/* SO_RCVTIMEO is --timeout */
	unsigned int spins = 0;
	int ret;

	for (;;) {
		ret = sk_recv(&r->sk, rx_buf, sizeof(rx_buf), m, r->cfg->sw, blocking);
		if (ret == 0) {
			*t4_sw = m->sw_ns;
			if (emit_classify(r, e, m->len, h))
				return 1;
			/* A stray datagram: the rest of the wait ends at deadline. */
			blocking = false;
			if (monotonic_ns() > deadline)
				return 0;
			continue;
		}
		if (blocking && ret == -EAGAIN)
			return 0;	/* --timeout since the send */
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
static void emit_take_pong(struct run *r, struct emitter *e, struct txrec *rec,
			   const struct wire_hdr *h)
{
	struct wire_body b;

	if (wire_parse_body(rx_buf, h->len, &b))
		return;
	r->peer_body = true;
	r->peer_hw = h->flags & WIRE_F_T2_HW;
	if (h->flags & WIRE_F_T2)
		rec->t2_wire = b.t2_wire;
	if (h->flags & WIRE_F_SW) {
		rec->t2_sw = b.t2_sw;
		txrec_set_t3_sw(rec, b.t3_sw);
	}
	if (!(h->flags & WIRE_F_FU) || !e->last_valid || b.fu_seq != e->last.seq)
		return;
	e->last.t3_wire = b.fu_t3_wire;
	if (e->last_slot)
		e->last_slot->t3_wire = b.fu_t3_wire;
	/* A breach is always the transaction just before this pong's. */
	if (r->nbreach && r->breach[r->nbreach - 1].rec.seq == b.fu_seq)
		r->breach[r->nbreach - 1].rec.t3_wire = b.fu_t3_wire;
	run_sample(r, &e->last, RUN_T3);
	e->last_valid = false;
}

enum emit_phase { WARMUP, MEASURE, FETCH };

static void emit_set_flags(struct run *r, enum emit_phase ph)
{
	struct wire_hdr h = {
		.type = WIRE_PING,
		.flags = (uint16_t)((ph != MEASURE ? WIRE_F_WARMUP : 0) |
				    (r->cfg->sw ? WIRE_F_WANT_SW : 0)),
		.session = r->session,
		.len = r->cfg->size,
	};

	wire_put_hdr(tx_buf, &h);
}

static int emit_loop(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	static struct emitter e;
	enum emit_phase ph = WARMUP;
	uint32_t warm_left = c->warmup;
	int64_t warm_end = monotonic_ns() + WARMUP_LIMIT_NS, end = 0, next = 0;
	uint64_t pongs = 0;

	emit_set_flags(r, ph);
	while (ph == FETCH || !run_stop) {
		struct ts_stamps txs;
		struct wire_hdr h;
		struct sk_msg m;
		struct txrec rec;
		int64_t t1_sw, t4_sw = TS_NONE, now, rtt;
		enum next_step next_step;
		uint32_t key;
		int got;

		if (ph == MEASURE && ((c->count && r->cnt.sent >= c->count) || time_up(end))) {
			r->stop_reason = c->count && r->cnt.sent >= c->count ? "count" : "duration";
			break;
		}
		if (ph == WARMUP && monotonic_ns() > warm_end) {
			r->stop_reason = pongs ? "warm-up failed: pongs arrive without timestamps" :
				"warm-up failed: no pong";
			break;
		}
		if (c->interval_ns && ph == MEASURE) {
			struct timespec ts = ns_to_timespec(next);

			if (c->block)
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			else
				while (monotonic_ns() < next && !run_stop)
					;
			now = monotonic_ns();
			next = next + c->interval_ns > now ? next + c->interval_ns : now;
		}

		e.seq++;
		seen_clear(&e, e.seq);
		t1_sw = realtime_ns();
		wire_set_seq(tx_buf, e.seq, t1_sw);
		key = r->sk.tx_key++;
		if (send(r->sk.fd, tx_buf, c->size, MSG_DONTWAIT) != (ssize_t)c->size) {
			r->cnt.send_errors++;
			continue;
		}
		if (ph == MEASURE)
			r->cnt.sent++;
		else
			r->cnt.warmup++;	/* unmeasured pings sent */
		got = emit_wait_pong(r, &e, c->block || ph == WARMUP,
				     monotonic_ns() + c->timeout_ns, &m, &h, &t4_sw);
		if (!got) {
			if (ph == MEASURE)
				r->cnt.lost++;
			if (ph == FETCH)
				break;
			continue;
		}
		pongs++;

		txrec_clear(&rec);
		rec.seq = e.seq;
		rec.t1_sw = t1_sw;
		rec.t4_wire = ts_wire(&m.rx, r->sk.hw);
		txrec_set_t4_sw(&rec, t4_sw);
		if (sk_tx_stamp(&r->sk, key, TX_STAMP_WAIT_NS, &txs) == 0)
			rec.t1_wire = ts_wire(&txs, r->sk.hw);
		/*
		 * Read in time but stamped after --timeout (this process was
		 * descheduled): the stamps are the truth, the pong was late.
		 */
		if (rec.t1_wire != TS_NONE && rec.t4_wire != TS_NONE &&
		    rec.t4_wire - rec.t1_wire > c->timeout_ns) {
			if (ph == MEASURE) {
				r->cnt.lost++;
				r->cnt.late++;
			}
			if (ph == FETCH)
				break;
			continue;
		}
		emit_take_pong(r, &e, &rec, &h);

		if (ph != MEASURE) {
			if (ph == FETCH)
				break;
			if (warm_left)
				warm_left--;
			if (warm_left || rec.t1_wire == TS_NONE || rec.t4_wire == TS_NONE ||
			    (r->peer_body && rec.t2_wire == TS_NONE))
				continue;
			ph = MEASURE;
			emit_set_flags(r, ph);
			mark_start(r);
			end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
			next = monotonic_ns();
			continue;
		}

		r->cnt.received++;
		if (rec.t1_wire == TS_NONE)
			r->cnt.missing_tx_ts++;
		if (rec.t4_wire == TS_NONE)
			r->cnt.missing_rx_ts++;
		run_sample(r, &rec, RUN_NO_T3);
		rtt = metric_value(M_RTT, &rec, &rtt) ? rtt : 0;
		e.last = rec;
		e.last_valid = true;
		next_step = transaction_done(r, &rec, rtt, &e.last_slot);
		if (next_step == STOP_NOW)
			break;
		if (next_step == STOP_BREACH) {
			/* One unmeasured ping more brings this pong's T3. */
			ph = FETCH;
			emit_set_flags(r, ph);
		}
	}
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	if (r->start_ns == 0)
		r->start_ns = r->end_ns;
	if (ph != WARMUP)
		return 0;
	if (run_stop) {
		fprintf(stderr, "rant: stopped during the warm-up: nothing measured\n");
		return 0;
	}
	if (!pongs)
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

/* ---- reflect ---- */

struct reflector {
	uint32_t session;
	bool have_session;
	bool want_sw;		/* this session's pings ask for SW stamps */
	uint64_t last_seq;
	bool started;		/* RANT_TEST_START written */
	bool stamped;		/* an RX stamp has arrived: spinning is safe */
	/* follow-up: the previous pong's T3 wire stamp */
	bool fu_valid;
	uint64_t fu_seq;
	int64_t fu_t3;
};

/* Nothing received (a blocking receive waited SK_REFLECT_WAKE_NS): 0 when
 * -d is up. Spinning, the clock is read every 1024 empty receives. */
static int reflect_idle(bool blocked, int64_t end, unsigned int *spins)
{
	if (!blocked && (++*spins & 1023))
		return 1;
	return !time_up(end);
}

/* Answer one ping in place; returns the pong's T3 wire stamp. */
static int64_t reflect_answer(struct run *r, struct reflector *f,
			      struct sk_msg *m, struct wire_hdr *h,
			      struct txrec *rec, bool *sent)
{
	struct ts_stamps txs;
	struct wire_body b = { 0 };
	uint16_t flags = h->flags & WIRE_F_PING_MASK;
	bool sw = r->cfg->sw || f->want_sw;
	uint32_t key;

	if (rec->t2_wire != TS_NONE)
		flags |= WIRE_F_T2 | (r->sk.hw ? WIRE_F_T2_HW : 0);
	if (sw)
		flags |= WIRE_F_SW;
	if (f->fu_valid)
		flags |= WIRE_F_FU | (r->sk.hw ? WIRE_F_FU_HW : 0);
	h->type = WIRE_PONG;
	h->flags = flags;
	wire_put_hdr(rx_buf, h);
	b.t2_wire = rec->t2_wire;
	b.t2_sw = rec->t2_sw;
	b.fu_seq = f->fu_seq;
	b.fu_t3_wire = f->fu_t3;
	b.t3_sw = sw ? realtime_ns() : TS_NONE;
	if (h->len >= WIRE_PONG_LEN)
		wire_put_body(rx_buf, &b);
	txrec_set_t3_sw(rec, b.t3_sw);

	/* Exactly as long as the ping: never an amplifier. */
	key = r->sk.tx_key++;
	*sent = sendto(r->sk.fd, rx_buf, h->len, MSG_DONTWAIT, (struct sockaddr *)&m->src,
		       m->src_len) == (ssize_t)h->len;
	if (!*sent) {
		r->cnt.send_errors++;
		return TS_NONE;
	}
	if (sk_tx_stamp(&r->sk, key, TX_STAMP_WAIT_NS, &txs))
		return TS_NONE;
	return ts_wire(&txs, r->sk.hw);
}

static int reflect_loop(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct reflector f = { 0 };
	int64_t end = c->duration_ns ? monotonic_ns() + c->duration_ns : 0;
	unsigned int spins = 0;

	r->start_ns = realtime_ns();
	while (!run_stop) {
		struct wire_hdr h;
		struct sk_msg m;
		struct txrec rec;
		int64_t t2_sw, resp;
		bool measured, sent, block;

		if (c->count && r->cnt.received >= c->count) {
			r->stop_reason = "count";
			break;
		}
		/* Blocking until stamps flow: a spinner at SCHED_FIFO would
		 * starve the kernel worker that enables RX timestamping. */
		block = c->block || !f.stamped;
		if (sk_recv(&r->sk, rx_buf, sizeof(rx_buf), &m, c->sw || f.want_sw, block)) {
			if (!reflect_idle(block, end, &spins)) {
				r->stop_reason = "duration";
				break;
			}
			continue;
		}
		t2_sw = m.sw_ns;
		if (m.len < 0 || wire_parse(rx_buf, (size_t)m.len, WIRE_PING, &h)) {
			r->cnt.invalid++;
			continue;
		}
		if (!f.have_session || h.session != f.session) {
			f = (struct reflector){ .session = h.session, .have_session = true,
						.started = f.started, .stamped = f.stamped };
			r->cnt.sessions++;
		}
		f.want_sw = h.flags & WIRE_F_WANT_SW;
		if (f.want_sw && t2_sw == TS_NONE)
			t2_sw = realtime_ns();
		measured = !(h.flags & WIRE_F_WARMUP);
		if (measured && f.last_seq && h.seq <= f.last_seq) {
			r->cnt.duplicate++;
			measured = false;
		}

		txrec_clear(&rec);
		rec.seq = h.seq;
		rec.t2_wire = ts_wire(&m.rx, r->sk.hw);
		rec.t2_sw = t2_sw;
		if (rec.t2_wire != TS_NONE)
			f.stamped = true;
		rec.t3_wire = reflect_answer(r, &f, &m, &h, &rec, &sent);
		f.fu_valid = rec.t3_wire != TS_NONE;
		f.fu_seq = h.seq;
		f.fu_t3 = rec.t3_wire;
		if (!measured) {
			if (h.flags & WIRE_F_WARMUP)
				r->cnt.warmup++;
			continue;
		}
		if (!f.started) {
			r->session = f.session;
			mark_start(r);
			f.started = true;
		}
		f.last_seq = h.seq;
		r->cnt.received++;
		r->cnt.sent += sent;
		if (rec.t2_wire == TS_NONE)
			r->cnt.missing_rx_ts++;
		if (sent && rec.t3_wire == TS_NONE)
			r->cnt.missing_tx_ts++;
		run_sample(r, &rec, RUN_NO_T3 | RUN_T3);
		resp = metric_value(M_RESPONSE, &rec, &resp) ? resp : 0;
		if (transaction_done(r, &rec, resp, NULL) != GO_ON)
			break;
	}
	r->end_ns = realtime_ns();
	if (!r->stop_reason)
		r->stop_reason = "signal";
	return 0;
}

int main(int argc, char **argv)
{
	static struct rant_cfg cfg;
	static struct run run;
	int ret, status = EXIT_DONE;

	switch (opts_parse(argc, argv, &cfg, stderr)) {
	case OPTS_HELP:
		return EXIT_DONE;
	case OPTS_ERROR:
		return EXIT_SETUP;
	case OPTS_OK:
		break;
	}
	if (run_setup(&run, &cfg)) {
		run_teardown(&run);
		return EXIT_SETUP;
	}
	report_start(&run);

	ret = cfg.mode == MODE_EMIT ? emit_loop(&run) : reflect_loop(&run);

	for (unsigned int i = 0; i < run.nbreach; i++)
		report_breach(&run, &run.breach[i]);
	if (report_end(&run))
		status = EXIT_RUN;
	if (ret) {
		fprintf(stderr, "rant: %s\n", run.failure);
		status = EXIT_RUN;
	} else if (run.log_full) {
		fprintf(stderr, "rant: the log filled up after %zu records and the run stopped early: give -c, -L or -S\n",
			txlog_len(run.log));
		status = EXIT_RUN;
	} else if (cfg.mode == MODE_EMIT && run.cnt.sent && !run.cnt.received) {
		fprintf(stderr, "rant: no pong received for %" PRIu64 " pings: is the reflector still running?\n",
			run.cnt.sent);
		status = EXIT_RUN;
	}
	if (run.trace_err && run.trace_err != -EALREADY)	/* -EALREADY: report_breach */
		fprintf(stderr, "rant: ftrace: writing the breach marker or stopping %s failed: %s: the trace is not frozen at the breach\n",
			trace_dir(run.trace), strerror(-run.trace_err));
	if (status == EXIT_DONE && run.cnt.breaches)
		status = EXIT_BREACH;
	run_teardown(&run);
	return status;
}
