/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/breakdown.h: the breakdown of one transaction into the steps of its
 * path (breakdown_compute) and which metrics are steps on either side
 * (breakdown_is_step), from hand-made stamps: every component's
 * arithmetic, the steps adding up to the user-space round trip, the
 * largest step for a spike placed in each step in turn, only inside the
 * metric that breached (an RTT breach never on emit_tx or emit_rx), the
 * sender's queue marked when it holds most of its step, missing stamps
 * (follow-up lost, no reflector SW stamps, none at all), the reflector's
 * side, and ties.
 */
#include <string.h>

#include "breakdown.h"
#include "metric.h"
#include "record.h"
#include "tap.h"

#define BASE 1700000000000000000ll	/* ns since the epoch */

/*
 * The time each leg of a transaction takes, ns. The stamps are built by
 * adding them up in path order, so each component of the breakdown must
 * come out as exactly one of them (network as out + back).
 */
struct legs {
	int64_t emit_tx;	/* T1_SW -> T1 wire */
	int64_t out;		/* T1 wire -> T2 wire */
	int64_t reflect_rx;	/* T2 wire -> T2_SW */
	int64_t reflect_proc;	/* T2_SW -> T3_SW */
	int64_t reflect_tx;	/* T3_SW -> T3 wire */
	int64_t back;		/* T3 wire -> T4 wire */
	int64_t emit_rx;	/* T4 wire -> T4_SW */
};

/* Distinct, unremarkable values: none of them a spike. */
static const struct legs quiet = {
	.emit_tx = 1500, .out = 5000, .reflect_rx = 2200, .reflect_proc = 1200,
	.reflect_tx = 1300, .back = 5500, .emit_rx = 3100,
};

#define SPIKE 100000	/* ns added to one leg: far above every other step */

/* The stamps themselves, kept for the arithmetic checks. */
struct stamps {
	int64_t t1_sw, t1, t2, t2_sw, t3_sw, t3, t4, t4_sw;
};

static void stamps_of(const struct legs *l, struct stamps *s)
{
	s->t1_sw = BASE;
	s->t1 = s->t1_sw + l->emit_tx;
	s->t2 = s->t1 + l->out;
	s->t2_sw = s->t2 + l->reflect_rx;
	s->t3_sw = s->t2_sw + l->reflect_proc;
	s->t3 = s->t3_sw + l->reflect_tx;
	s->t4 = s->t3 + l->back;
	s->t4_sw = s->t4 + l->emit_rx;
}

/* What the emitter holds with every stamp: its own, and the pong's. */
static void full_rec(struct txrec *r, const struct legs *l)
{
	struct stamps s;

	stamps_of(l, &s);
	txrec_clear(r);
	r->seq = 4242;
	r->t1_sw = s.t1_sw;
	r->t1_wire = s.t1;
	r->t2_wire = s.t2;
	r->t2_sw = s.t2_sw;
	txrec_set_t3_wire(r, s.t3);
	txrec_set_t4_wire(r, s.t4);
	txrec_set_t3_sw(r, s.t3_sw);
	txrec_set_t4_sw(r, s.t4_sw);
	txrec_set_ack(r, s.t4);		/* TCP: the ACK came with the pong */
	txrec_set_queue(r, s.t1, s.t1 - 700);	/* 700 ns in the qdisc */
}

/* The reflector's own record: T2 and T3 only. */
static void reflect_rec(struct txrec *r, const struct legs *l, bool sw)
{
	struct stamps s;

	stamps_of(l, &s);
	txrec_clear(r);
	r->seq = 4242;
	r->t2_wire = s.t2;
	txrec_set_t3_wire(r, s.t3);
	if (sw) {
		r->t2_sw = s.t2_sw;
		txrec_set_t3_sw(r, s.t3_sw);
	}
}

/* The reflector's SW stamps absent (the pong carried none). */
static void drop_reflect_sw(struct txrec *r)
{
	r->t2_sw = TS_NONE;
	txrec_set_t3_sw(r, TS_NONE);
}

static const char *mname(int m)
{
	return m >= 0 && m < M_COUNT ? metric_defs[m].name : "none (-1)";
}

/* "largest is X", with the names in the diagnostics on failure. */
static bool is_largest(const struct breakdown *b, int want, const char *what)
{
	bool r = ok(b->largest == want, "%s: largest is %s", what, mname(want));

	if (!r)
		diag("    got %s", mname(b->largest));
	return r;
}

/* Sum of the steps present on this side. */
static int64_t steps_sum(const struct breakdown *b, bool emit, int *n)
{
	int64_t sum = 0;

	*n = 0;
	for (int m = 0; m < M_COUNT; m++)
		if (b->have[m] && breakdown_is_step(b, (enum metric_id)m, emit)) {
			sum += b->ns[m];
			(*n)++;
		}
	return sum;
}

/* The leg of l that carries step m (network: the way out). */
static int64_t *leg_of(struct legs *l, enum metric_id m)
{
	switch (m) {
	case M_EMIT_TX: return &l->emit_tx;
	case M_NETWORK: return &l->out;
	case M_REFLECT_RX: return &l->reflect_rx;
	case M_REFLECT_PROC: return &l->reflect_proc;
	case M_REFLECT_TX: return &l->reflect_tx;
	case M_EMIT_RX: return &l->emit_rx;
	default: return NULL;
	}
}

static void test_full_arithmetic(void)
{
	struct legs l = quiet;
	struct breakdown b;
	struct stamps s;
	struct txrec r;
	int n;

	stamps_of(&l, &s);
	full_rec(&r, &l);
	memset(&b, 0xa5, sizeof(b));
	breakdown_compute(&r, true, M_RTT_SW, &b);

	for (int m = 0; m < M_COUNT; m++)
		if (m != M_REFLECT_QUEUE && metric_of_record(m))	/* connect: no record's */
			ok(b.have[m], "full record: %s present", metric_defs[m].name);
	ok(!b.have[M_CONNECT], "full record: no connect (a connection's, not a record's)");
	ok(!b.have[M_REFLECT_QUEUE], "the emitter's record: no reflect_queue");
	is_i64(b.ns[M_EMIT_TX], s.t1 - s.t1_sw, "emit_tx = T1w - T1_SW");
	is_i64(b.ns[M_REFLECT_RX], s.t2_sw - s.t2, "reflect_rx = T2_SW - T2w");
	is_i64(b.ns[M_REFLECT_PROC], s.t3_sw - s.t2_sw, "reflect_proc = T3_SW - T2_SW");
	is_i64(b.ns[M_REFLECT_TX], s.t3 - s.t3_sw, "reflect_tx = T3w - T3_SW");
	is_i64(b.ns[M_EMIT_RX], s.t4_sw - s.t4, "emit_rx = T4_SW - T4w");
	is_i64(b.ns[M_NETWORK], (s.t4 - s.t1) - (s.t3 - s.t2),
	       "network = (T4w - T1w) - (T3w - T2w)");
	is_i64(b.ns[M_NETWORK], l.out + l.back, "network = the two ways (%lld)",
	       (long long)(l.out + l.back));
	is_i64(b.ns[M_RTT], s.t4 - s.t1, "rtt = T4w - T1w");
	is_i64(b.ns[M_RESPONSE], s.t3 - s.t2, "response = T3w - T2w");
	is_i64(b.ns[M_RTT_SW], s.t4_sw - s.t1_sw, "rtt_sw = T4_SW - T1_SW");

	ok(breakdown_is_step(&b, M_EMIT_TX, true) &&
	   breakdown_is_step(&b, M_NETWORK, true) &&
	   breakdown_is_step(&b, M_REFLECT_RX, true) &&
	   breakdown_is_step(&b, M_REFLECT_PROC, true) &&
	   breakdown_is_step(&b, M_REFLECT_TX, true) &&
	   breakdown_is_step(&b, M_EMIT_RX, true),
	   "emitter: emit_tx, network, reflect_rx/proc/tx, emit_rx are steps");
	ok(!breakdown_is_step(&b, M_RESPONSE, true),
	   "emitter with the reflector's SW stamps: response is not a step (split)");
	ok(!breakdown_is_step(&b, M_RTT, true) && !breakdown_is_step(&b, M_RTT_SW, true),
	   "emitter: rtt and rtt_sw are totals, not steps");
	is_i64(steps_sum(&b, true, &n), b.ns[M_RTT_SW],
	       "the steps add up to rtt_sw (%lld)", (long long)b.ns[M_RTT_SW]);
	is_int(n, 6, "six steps on the emitter with every stamp");
	is_largest(&b, M_NETWORK, "quiet full record (network 10500 the largest step)");
}

static void test_spike_each_step(void)
{
	static const enum metric_id steps[] = {
		M_EMIT_TX, M_NETWORK, M_REFLECT_RX, M_REFLECT_PROC,
		M_REFLECT_TX, M_EMIT_RX,
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct legs l = quiet;
		struct breakdown b;
		struct txrec r;
		char what[64];
		int n;

		*leg_of(&l, steps[i]) += SPIKE;
		full_rec(&r, &l);
		breakdown_compute(&r, true, M_RTT_SW, &b);
		snprintf(what, sizeof(what), "emitter, spike in %s",
			 metric_defs[steps[i]].name);
		is_largest(&b, steps[i], what);
		is_i64(steps_sum(&b, true, &n), b.ns[M_RTT_SW],
		       "%s: steps still add up to rtt_sw", what);
	}

	/* The way back is network too. */
	{
		struct legs l = quiet;
		struct breakdown b;
		struct txrec r;

		l.back += SPIKE;
		full_rec(&r, &l);
		breakdown_compute(&r, true, M_RTT_SW, &b);
		is_largest(&b, M_NETWORK, "emitter, spike on the way back");
	}
}

static void test_no_t3_wire(void)
{
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;
	int n;

	/* Follow-up lost: the reflector's TX stamp of this pong never came. */
	l.reflect_rx += SPIKE;
	full_rec(&r, &l);
	txrec_set_t3_wire(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(!b.have[M_RESPONSE], "no T3 wire: response absent");
	ok(!b.have[M_NETWORK], "no T3 wire: network absent");
	ok(!b.have[M_REFLECT_TX], "no T3 wire: reflect_tx absent");
	ok(b.have[M_EMIT_TX] && b.have[M_REFLECT_RX] && b.have[M_REFLECT_PROC] &&
	   b.have[M_EMIT_RX] && b.have[M_RTT] && b.have[M_RTT_SW],
	   "no T3 wire: emit_tx, reflect_rx, reflect_proc, emit_rx, rtt, rtt_sw present");
	ok(!breakdown_is_step(&b, M_RESPONSE, true),
	   "no T3 wire, reflector SW present: response is not a step");
	steps_sum(&b, true, &n);
	is_int(n, 4, "no T3 wire: four steps left");
	is_largest(&b, M_REFLECT_RX, "no T3 wire, spike in reflect_rx");

	/* A spike in a step that cannot be computed: the largest of the rest. */
	l = quiet;
	l.out += SPIKE;
	full_rec(&r, &l);
	txrec_set_t3_wire(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_EMIT_RX,
		   "no T3 wire, spike in network (unknown): the largest of the rest");

	l = quiet;
	l.reflect_proc += SPIKE;
	full_rec(&r, &l);
	txrec_set_t3_wire(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_REFLECT_PROC, "no T3 wire, spike in reflect_proc");
}

static void test_no_reflect_sw(void)
{
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;
	int n;

	full_rec(&r, &l);
	drop_reflect_sw(&r);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(!b.have[M_REFLECT_RX] && !b.have[M_REFLECT_PROC] && !b.have[M_REFLECT_TX],
	   "no reflector SW stamps: reflect_rx/proc/tx absent");
	ok(b.have[M_RESPONSE], "no reflector SW stamps: response present");
	ok(breakdown_is_step(&b, M_RESPONSE, true),
	   "no reflector SW stamps: response counts as one step");
	ok(breakdown_is_step(&b, M_NETWORK, true) && breakdown_is_step(&b, M_EMIT_TX, true) &&
	   breakdown_is_step(&b, M_EMIT_RX, true),
	   "no reflector SW stamps: emit_tx, network, emit_rx still steps");
	is_i64(steps_sum(&b, true, &n), b.ns[M_RTT_SW],
	       "emit_tx + network + response + emit_rx = rtt_sw");
	is_int(n, 4, "no reflector SW stamps: four steps");
	is_largest(&b, M_NETWORK,
		   "no reflector SW stamps, quiet (network 10500 above response 4700)");

	/* A spike inside the reflector lands on response as a whole. */
	l = quiet;
	l.reflect_proc += SPIKE;
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_RESPONSE, "no reflector SW stamps, spike in the reflector");

	l = quiet;
	l.emit_tx += SPIKE;
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_EMIT_TX, "no reflector SW stamps, spike in emit_tx");

	/* Nor the emitter's: only wire stamps (a run without -s). */
	l = quiet;
	l.back += SPIKE;
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	r.t1_sw = TS_NONE;
	txrec_set_t4_sw(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_i64(steps_sum(&b, true, &n), b.ns[M_RTT],
	       "wire stamps only: network + response = rtt");
	is_int(n, 2, "wire stamps only: two steps");
	is_largest(&b, M_NETWORK, "wire stamps only, spike on the way back");
	l = quiet;
	l.reflect_tx += SPIKE;
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	r.t1_sw = TS_NONE;
	txrec_set_t4_sw(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_RESPONSE, "wire stamps only, spike in the reflector");

	/* -m below 72: the pong carries nothing of the reflector's. */
	l = quiet;
	l.emit_tx += SPIKE;
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	r.t2_wire = TS_NONE;
	txrec_set_t3_wire(&r, TS_NONE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(!b.have[M_RESPONSE] && !b.have[M_NETWORK],
	   "no reflector stamps at all: response and network absent");
	steps_sum(&b, true, &n);
	is_int(n, 2, "no reflector stamps at all: emit_tx and emit_rx are the steps");
	is_largest(&b, M_EMIT_TX, "no reflector stamps at all, spike in emit_tx");
}

static void test_no_stamps(void)
{
	struct breakdown b;
	struct txrec r;
	bool none = true;

	txrec_clear(&r);
	r.seq = 1;
	memset(&b, 0x5a, sizeof(b));
	breakdown_compute(&r, true, M_RTT_SW, &b);
	for (int m = 0; m < M_COUNT; m++)
		if (b.have[m]) {
			none = false;
			diag("    %s present in an empty record", metric_defs[m].name);
		}
	ok(none, "no stamps: no metric present");
	is_largest(&b, -1, "no stamps, emitter");
	breakdown_compute(&r, false, M_RESPONSE, &b);
	is_largest(&b, -1, "no stamps, reflector");

	/* Only the round trip: a total, never a step. */
	r.t1_wire = BASE;
	txrec_set_t4_wire(&r, BASE + 9000);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(b.have[M_RTT], "T1/T4 wire only: rtt present");
	is_largest(&b, -1, "T1/T4 wire only: rtt is no step");
}

static void test_reflector(void)
{
	static const enum metric_id steps[] = {
		M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_TX,
	};
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;
	int n;

	reflect_rec(&r, &l, true);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	ok(breakdown_is_step(&b, M_REFLECT_RX, false) &&
	   breakdown_is_step(&b, M_REFLECT_PROC, false) &&
	   breakdown_is_step(&b, M_REFLECT_TX, false),
	   "reflector: reflect_rx/proc/tx are steps");
	ok(!breakdown_is_step(&b, M_EMIT_TX, false) &&
	   !breakdown_is_step(&b, M_NETWORK, false) &&
	   !breakdown_is_step(&b, M_EMIT_RX, false) &&
	   !breakdown_is_step(&b, M_RTT, false) &&
	   !breakdown_is_step(&b, M_RTT_SW, false),
	   "reflector: emit_tx, network, emit_rx, rtt, rtt_sw are not steps");
	ok(!breakdown_is_step(&b, M_RESPONSE, false),
	   "reflector with SW stamps: response is not a step");
	is_i64(steps_sum(&b, false, &n), b.ns[M_RESPONSE],
	       "reflector: its three steps add up to response");
	is_int(n, 3, "reflector: three steps");
	is_largest(&b, M_REFLECT_RX, "reflector, quiet (reflect_rx 2200 the largest)");

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char what[64];

		l = quiet;
		*leg_of(&l, steps[i]) += SPIKE;
		reflect_rec(&r, &l, true);
		breakdown_compute(&r, false, M_RESPONSE, &b);
		snprintf(what, sizeof(what), "reflector, spike in %s",
			 metric_defs[steps[i]].name);
		is_largest(&b, steps[i], what);
	}

	/* Emitter stamps in the record do not make emitter steps here. */
	l = quiet;
	l.emit_tx += SPIKE;
	l.out += SPIKE;
	full_rec(&r, &l);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	is_largest(&b, M_REFLECT_RX,
		   "reflector given a full record: only its own steps compete");

	/* Without SW stamps the response is the one step. */
	l = quiet;
	reflect_rec(&r, &l, false);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	ok(breakdown_is_step(&b, M_RESPONSE, false),
	   "reflector without SW stamps: response is a step");
	steps_sum(&b, false, &n);
	is_int(n, 1, "reflector without SW stamps: one step");
	is_largest(&b, M_RESPONSE, "reflector without SW stamps");

	/* Missing TX stamp (pong's T3 never read): what is left. */
	l = quiet;
	l.reflect_proc += SPIKE;
	reflect_rec(&r, &l, true);
	txrec_set_t3_wire(&r, TS_NONE);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	ok(!b.have[M_RESPONSE] && !b.have[M_REFLECT_TX],
	   "reflector without T3 wire: response and reflect_tx absent");
	is_largest(&b, M_REFLECT_PROC, "reflector without T3 wire, spike in reflect_proc");
}

static void test_ties(void)
{
	struct legs l;
	struct breakdown b, b2;
	struct txrec r;

	/* Every step 1000 ns (network: 500 each way). */
	l = (struct legs){ .emit_tx = 1000, .out = 500, .reflect_rx = 1000,
			   .reflect_proc = 1000, .reflect_tx = 1000, .back = 500,
			   .emit_rx = 1000 };
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_NETWORK,
		   "tie of all six steps: the first in metric order (network, before emit_tx)");
	breakdown_compute(&r, true, M_RTT_SW, &b2);
	is_int(b2.largest, b.largest, "tie: the same choice every time");

	l.emit_tx = 900;
	l.out = l.back = 400;
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_REFLECT_RX,
		   "tie of reflect_rx/proc/tx and emit_rx: the first in metric order (reflect_rx)");

	l.reflect_rx = l.reflect_proc = 900;
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_REFLECT_TX,
		   "tie of reflect_tx and emit_rx: the first in metric order (reflect_tx)");

	/* Reflector: all three equal. */
	l = (struct legs){ .emit_tx = 1, .out = 1, .reflect_rx = 700,
			   .reflect_proc = 700, .reflect_tx = 700, .back = 1,
			   .emit_rx = 1 };
	reflect_rec(&r, &l, true);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	is_largest(&b, M_REFLECT_RX,
		   "reflector, tie of its three steps: the first in metric order (reflect_rx)");

	/* Response as one step tied with emit_tx: response comes first. */
	l = (struct legs){ .emit_tx = 3000, .out = 100, .reflect_rx = 1000,
			   .reflect_proc = 1000, .reflect_tx = 1000, .back = 100,
			   .emit_rx = 200 };
	full_rec(&r, &l);
	drop_reflect_sw(&r);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_RESPONSE,
		   "tie of response (one step) and emit_tx: the first in metric order (response)");
}

static void test_negative(void)
{
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;

	/* Unsynchronised clocks can make a component negative: it never wins. */
	l.emit_tx = -5000;
	l.emit_rx = -7000;
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_i64(b.ns[M_EMIT_TX], -5000, "negative emit_tx kept as -5000");
	is_largest(&b, M_NETWORK, "negative components: the largest positive step");

	/* All steps negative: the least negative. */
	l = (struct legs){ .emit_tx = -10, .out = -10, .reflect_rx = -3,
			   .reflect_proc = -20, .reflect_tx = -30, .back = -10,
			   .emit_rx = -40 };
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_REFLECT_RX, "all steps negative: the greatest (reflect_rx, -3)");
}

/*
 * The sender's queue is a part of a step (emit_tx on the emitter,
 * reflect_tx and the response on the reflector), shown with the path;
 * when it holds most of the largest step it is marked instead of it.
 */
static void test_queue_part(void)
{
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;

	full_rec(&r, &l);
	txrec_set_queue(&r, r.t1_wire, r.t1_wire - 5 * SPIKE);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(b.have[M_EMIT_QUEUE] && b.ns[M_EMIT_QUEUE] == 5 * SPIKE,
	   "emitter: emit_queue known (%" PRId64 ")", b.ns[M_EMIT_QUEUE]);
	ok(breakdown_is_part(M_EMIT_QUEUE, true) && !breakdown_is_part(M_REFLECT_QUEUE, true),
	   "emit_queue is a part on the emitter, reflect_queue is not");
	ok(!breakdown_is_step(&b, M_EMIT_QUEUE, true), "emit_queue is no step");
	is_largest(&b, M_NETWORK, "emit_queue, outside the RTT, however long: never marked");
	l.emit_tx += 6 * SPIKE;
	full_rec(&r, &l);
	txrec_set_queue(&r, r.t1_wire, r.t1_wire - 5 * SPIKE);
	breakdown_compute(&r, true, M_RTT, &b);
	is_largest(&b, M_NETWORK, "RTT: emit_tx and its queue outside, whatever their size");
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_EMIT_QUEUE, "rtt_sw: emit_tx the largest, its queue most of it: the queue marked");
	txrec_set_queue(&r, r.t1_wire, r.t1_wire - 200);
	breakdown_compute(&r, true, M_RTT_SW, &b);
	ok(b.largest != M_EMIT_QUEUE, "a queue that is not most of its step is not marked");
	l = quiet;
	reflect_rec(&r, &l, true);
	txrec_set_queue(&r, txrec_stamp(&r, P_T3_WIRE), txrec_stamp(&r, P_T3_WIRE) - 300);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	ok(b.have[M_REFLECT_QUEUE] && b.ns[M_REFLECT_QUEUE] == 300 && !b.have[M_EMIT_QUEUE],
	   "reflector: reflect_queue 300, no emit_queue");
	ok(breakdown_is_part(M_REFLECT_QUEUE, false), "reflect_queue is a part on the reflector");
	/* a pong held in the reflector's qdisc: reflect_tx the largest, the
	 * queue most of it */
	l.reflect_tx += SPIKE;
	reflect_rec(&r, &l, true);
	txrec_set_queue(&r, txrec_stamp(&r, P_T3_WIRE), txrec_stamp(&r, P_T3_WIRE) - SPIKE);
	breakdown_compute(&r, false, M_RESPONSE, &b);
	is_largest(&b, M_REFLECT_QUEUE, "reflector, a pong held in its qdisc: reflect_queue marked");
	ok(breakdown_inside(&b, M_REFLECT_QUEUE) && breakdown_inside(&b, M_REFLECT_TX),
	   "reflect_queue and reflect_tx inside the response");
}

/*
 * The spike is looked for inside the metric that breached: an RTT
 * breach (T4 - T1) is never placed on the emitter's user space around
 * it (emit_tx before T1, emit_rx after T4), however long; a breach of
 * rtt_sw may be.
 */
static void test_within(void)
{
	static const enum metric_id in_rtt[] = {
		M_NETWORK, M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_TX, M_RESPONSE,
		M_REFLECT_QUEUE, M_OWD_FWD, M_OWD_BACK,
	};
	static const enum metric_id out_rtt[] = { M_EMIT_TX, M_EMIT_RX, M_EMIT_QUEUE, M_RTT_SW,
						  M_EMIT_ACK };
	struct legs l = quiet;
	struct breakdown b;
	struct txrec r;
	bool all = true;

	for (size_t i = 0; i < sizeof(in_rtt) / sizeof(in_rtt[0]); i++)
		all &= metric_inside(in_rtt[i], M_RTT);
	ok(all, "network, the reflector's steps and queue, response, the one-way delays: inside rtt");
	all = true;
	for (size_t i = 0; i < sizeof(out_rtt) / sizeof(out_rtt[0]); i++)
		all &= !metric_inside(out_rtt[i], M_RTT);
	ok(all, "emit_tx, emit_rx, emit_queue (before T1), rtt_sw, emit_ack: not inside rtt");
	ok(metric_inside(M_EMIT_TX, M_RTT_SW) && metric_inside(M_EMIT_RX, M_RTT_SW) &&
	   metric_inside(M_EMIT_QUEUE, M_RTT_SW), "the emitter's user space: inside rtt_sw");
	ok(metric_inside(M_REFLECT_RX, M_RESPONSE) && !metric_inside(M_NETWORK, M_RESPONSE) &&
	   metric_inside(M_REFLECT_QUEUE, M_RESPONSE), "response: the reflector's steps and queue");
	ok(!metric_inside(M_REFLECT_RX, M_NETWORK) && metric_inside(M_OWD_FWD, M_NETWORK) &&
	   metric_inside(M_NETWORK, M_NETWORK), "network: both ways, not the reflector");

	/* the breach: 4 ms on reflect_rx, 8 ms on emit_rx after T4 */
	l.reflect_rx += 4000000;
	l.emit_rx += 8000000;
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT, &b);
	is_largest(&b, M_REFLECT_RX, "RTT breach, 8 ms in emit_rx, 4 ms in reflect_rx: reflect_rx");
	ok(b.within == M_RTT && !breakdown_inside(&b, M_EMIT_RX) &&
	   !breakdown_inside(&b, M_EMIT_TX),
	   "emit_rx and emit_tx outside the RTT");
	breakdown_compute(&r, true, M_RTT_SW, &b);
	is_largest(&b, M_EMIT_RX, "the same as an rtt_sw breach: emit_rx");
	l = quiet;
	l.emit_tx += SPIKE;
	full_rec(&r, &l);
	breakdown_compute(&r, true, M_RTT, &b);
	is_largest(&b, M_NETWORK, "RTT breach, a spike in emit_tx: the largest inside (network)");
	breakdown_compute(&r, true, M_RESPONSE, &b);
	is_largest(&b, M_REFLECT_RX, "a response breach on the emitter: the reflector's steps only");
	breakdown_compute(&r, true, M_EMIT_ACK, &b);
	is_largest(&b, -1, "emit_ack: no step inside it, none marked");
}

int main(void)
{
	test_queue_part();
	test_within();
	test_full_arithmetic();
	test_spike_each_step();
	test_no_t3_wire();
	test_no_reflect_sw();
	test_no_stamps();
	test_reflector();
	test_ties();
	test_negative();
	return done_testing();
}
