/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/log/record.h and src/stats/metric.h: the stamps of a transaction record, the
 * int32 offsets of T3_SW, T4_SW, T4_wire and T_ACK, and every metric
 * computed from them.
 */
#include <string.h>

#include "metric.h"
#include "record.h"
#include "tap.h"

static const char *const point_name[P_COUNT] = {
	"T1_SW", "T1_WIRE", "T2_WIRE", "T2_SW",
	"T3_SW", "T3_WIRE", "T4_WIRE", "T4_SW",
};

/* A point's name, the ACK (outside P_COUNT) included. */
static const char *pname(int p)
{
	return p == P_T_ACK ? "T_ACK" : point_name[p];
}

/* Hand-made stamps of one transaction, ns since the epoch. */
#define BASE 1700000000000000000ll
static const int64_t st[P_COUNT] = {
	[P_T1_SW] = BASE,
	[P_T1_WIRE] = BASE + 1500,	/* emit TX 1500 */
	[P_T2_WIRE] = BASE + 11500,	/* one way ~10 us */
	[P_T2_SW] = BASE + 13700,	/* reflect RX 2200 */
	[P_T3_SW] = BASE + 14900,	/* processing 1200 */
	[P_T3_WIRE] = BASE + 16200,	/* reflect TX 1300 */
	[P_T4_WIRE] = BASE + 27200,	/* back ~11 us */
	[P_T4_SW] = BASE + 30300,	/* emit RX 3100 */
};
#define ST_ACK (BASE + 12600)	/* P_T_ACK: the reflector ACKed at once */

static void fill(struct txrec *r)
{
	txrec_clear(r);
	r->seq = 77;
	r->t1_sw = st[P_T1_SW];
	r->t1_wire = st[P_T1_WIRE];
	r->t2_wire = st[P_T2_WIRE];
	r->t2_sw = st[P_T2_SW];
	txrec_set_t3_wire(r, st[P_T3_WIRE]);
	txrec_set_t4_wire(r, st[P_T4_WIRE]);
	txrec_set_t3_sw(r, st[P_T3_SW]);
	txrec_set_t4_sw(r, st[P_T4_SW]);
	txrec_set_ack(r, ST_ACK);
}

/* Absent the stamp at point p in r. */
static void drop(struct txrec *r, enum point p)
{
	switch (p) {
	case P_T1_SW: r->t1_sw = TS_NONE; break;
	case P_T1_WIRE: r->t1_wire = TS_NONE; break;
	case P_T2_WIRE: r->t2_wire = TS_NONE; break;
	case P_T2_SW: r->t2_sw = TS_NONE; break;
	case P_T3_SW: txrec_set_t3_sw(r, TS_NONE); break;
	case P_T3_WIRE: txrec_set_t3_wire(r, TS_NONE); break;
	case P_T4_WIRE: txrec_set_t4_wire(r, TS_NONE); break;
	case P_T4_SW: txrec_set_t4_sw(r, TS_NONE); break;
	case P_T_ACK: txrec_set_ack(r, TS_NONE); break;
	default: break;
	}
}

static void test_record(void)
{
	struct txrec r;

	is_int(sizeof(struct txrec), 64, "struct txrec is 64 bytes");

	memset(&r, 0xa5, sizeof(r));
	txrec_clear(&r);
	is_u64(r.seq, 0, "txrec_clear: seq 0");
	for (int p = 0; p < P_COUNT; p++)
		is_i64(txrec_stamp(&r, (enum point)p), TS_NONE,
		       "txrec_clear: %s absent", point_name[p]);
	is_i64(txrec_stamp(&r, P_T_ACK), TS_NONE, "txrec_clear: T_ACK absent");
	is_int(r.t3_sw_d, TXREC_NO_DELTA, "txrec_clear: t3_sw_d is TXREC_NO_DELTA");
	is_int(r.t4_sw_d, TXREC_NO_DELTA, "txrec_clear: t4_sw_d is TXREC_NO_DELTA");

	fill(&r);
	for (int p = 0; p < P_COUNT; p++)
		is_i64(txrec_stamp(&r, (enum point)p), st[p],
		       "txrec_stamp(%s)", point_name[p]);
	is_int(r.t3_sw_d, 1200, "t3_sw_d holds T3_SW - T2_SW");
	is_int(r.t4_sw_d, 30300, "t4_sw_d holds T4_SW - T1_SW");
	is_i64(txrec_stamp(&r, P_T_ACK), ST_ACK, "txrec_stamp(T_ACK)");
	is_int(r.t4_wire_d, 25700, "t4_wire_d holds T4_wire - T1_wire");
	is_int(r.t_ack_d, 12600, "t_ack_d holds T_ACK - T1_SW");
}

/* T4_wire and T_ACK: kept as offsets, within int32, from their bases. */
static void test_wire_offsets(void)
{
	struct txrec r;

	fill(&r);
	txrec_set_t4_wire(&r, st[P_T1_WIRE] + 1000000000ll);
	is_i64(txrec_stamp(&r, P_T4_WIRE), st[P_T1_WIRE] + 1000000000ll,
	       "T4_wire 1 s (the longest --timeout) after T1_wire is kept");
	txrec_set_t4_wire(&r, st[P_T1_WIRE] + INT32_MAX + 1);
	is_i64(txrec_stamp(&r, P_T4_WIRE), TS_NONE,
	       "T4_wire offset INT32_MAX+1 is stored as absent");
	txrec_set_t4_wire(&r, st[P_T1_WIRE] - 700);
	is_i64(txrec_stamp(&r, P_T4_WIRE), st[P_T1_WIRE] - 700,
	       "T4_wire before T1_wire (-700) is kept");
	txrec_clear(&r);
	txrec_set_t4_wire(&r, st[P_T4_WIRE]);
	is_i64(txrec_stamp(&r, P_T4_WIRE), TS_NONE,
	       "T4_wire without T1_wire is not kept");
	fill(&r);
	txrec_set_ack(&r, st[P_T1_SW] + 40000000);
	is_i64(txrec_stamp(&r, P_T_ACK), st[P_T1_SW] + 40000000,
	       "T_ACK 40 ms after T1_SW is kept");
	txrec_set_ack(&r, TS_NONE);
	is_i64(txrec_stamp(&r, P_T_ACK), TS_NONE, "T_ACK TS_NONE is absent");
	is_int(r.t_ack_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");
}

static void test_offsets(void)
{
	struct txrec r;

	fill(&r);
	txrec_set_t3_sw(&r, st[P_T2_SW]);
	is_i64(txrec_stamp(&r, P_T3_SW), st[P_T2_SW], "T3_SW offset 0 is kept");
	txrec_set_t3_sw(&r, st[P_T2_SW] - 5);
	is_i64(txrec_stamp(&r, P_T3_SW), st[P_T2_SW] - 5,
	       "T3_SW negative offset -5 is kept");
	txrec_set_t3_sw(&r, st[P_T2_SW] + INT32_MAX);
	is_i64(txrec_stamp(&r, P_T3_SW), st[P_T2_SW] + INT32_MAX,
	       "T3_SW offset INT32_MAX is kept");
	txrec_set_t3_sw(&r, st[P_T2_SW] + INT32_MAX + 1);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW offset INT32_MAX+1 is stored as absent");
	is_int(r.t3_sw_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");
	txrec_set_t3_sw(&r, st[P_T2_SW] + INT32_MIN + 2);
	is_i64(txrec_stamp(&r, P_T3_SW), st[P_T2_SW] + INT32_MIN + 2,
	       "T3_SW offset INT32_MIN+2 is kept");
	txrec_set_t3_sw(&r, st[P_T2_SW] + TXREC_LOST);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW offset INT32_MIN+1 (the lost marker) is stored as absent");
	txrec_set_t3_sw(&r, st[P_T2_SW] + INT32_MIN);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW offset INT32_MIN (the marker itself) reads as absent");
	txrec_set_t3_sw(&r, st[P_T2_SW] + INT32_MIN - 1);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW offset INT32_MIN-1 is stored as absent");
	txrec_set_t3_sw(&r, st[P_T2_SW] - 10 * 1000000000ll);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW 10 s before T2_SW is stored as absent");
	txrec_set_t3_sw(&r, st[P_T3_SW]);
	txrec_set_t3_sw(&r, TS_NONE);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW TS_NONE over a kept one is stored as absent");
	is_int(r.t3_sw_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");

	fill(&r);
	txrec_set_t4_sw(&r, st[P_T1_SW] + INT32_MAX);
	is_i64(txrec_stamp(&r, P_T4_SW), st[P_T1_SW] + INT32_MAX,
	       "T4_SW offset INT32_MAX is kept");
	txrec_set_t4_sw(&r, st[P_T1_SW] + INT32_MAX + 1);
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE,
	       "T4_SW offset INT32_MAX+1 is stored as absent");
	is_int(r.t4_sw_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");
	txrec_set_t4_sw(&r, st[P_T1_SW] - 1);
	is_i64(txrec_stamp(&r, P_T4_SW), st[P_T1_SW] - 1,
	       "T4_SW offset -1 is kept");
	txrec_set_t4_sw(&r, st[P_T1_SW] + INT32_MIN);
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE,
	       "T4_SW offset INT32_MIN reads as absent");
	txrec_set_t4_sw(&r, TS_NONE);
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE, "T4_SW TS_NONE is absent");
	is_int(r.t4_sw_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");
	is_i64(txrec_stamp(&r, P_T1_SW), st[P_T1_SW],
	       "setting T4_SW leaves T1_SW alone");

	/* No base: an offset from an absent stamp cannot be kept. */
	txrec_clear(&r);
	txrec_set_t3_sw(&r, st[P_T3_SW]);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW without T2_SW is stored as absent");
	txrec_set_t4_sw(&r, st[P_T4_SW]);
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE,
	       "T4_SW without T1_SW is stored as absent");
	/* A small stamp (tests, a clock near its epoch) with no base. */
	txrec_set_t4_sw(&r, 1000);
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE,
	       "T4_SW 1000 without T1_SW is absent, not 1000");

	fill(&r);
	r.t2_sw = TS_NONE;
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW reads as absent once its base T2_SW is gone");
	fill(&r);
	r.t1_sw = TS_NONE;
	is_i64(txrec_stamp(&r, P_T4_SW), TS_NONE,
	       "T4_SW reads as absent once its base T1_SW is gone");
}

/* What each metric is, from metric.h's comments, independent of the table. */
static void expected(enum metric_id m, int64_t *v, unsigned *needs)
{
#define N(p) (1u << (p))
	switch (m) {
	case M_RTT:
		*v = st[P_T4_WIRE] - st[P_T1_WIRE];
		*needs = N(P_T4_WIRE) | N(P_T1_WIRE);
		break;
	case M_RESPONSE:
		*v = st[P_T3_WIRE] - st[P_T2_WIRE];
		*needs = N(P_T3_WIRE) | N(P_T2_WIRE);
		break;
	case M_NETWORK:
		*v = (st[P_T4_WIRE] - st[P_T1_WIRE]) -
		     (st[P_T3_WIRE] - st[P_T2_WIRE]);
		*needs = N(P_T4_WIRE) | N(P_T1_WIRE) | N(P_T3_WIRE) |
			 N(P_T2_WIRE);
		break;
	case M_RTT_SW:
		*v = st[P_T4_SW] - st[P_T1_SW];
		*needs = N(P_T4_SW) | N(P_T1_SW);
		break;
	case M_EMIT_TX:
		*v = st[P_T1_WIRE] - st[P_T1_SW];
		*needs = N(P_T1_WIRE) | N(P_T1_SW);
		break;
	case M_REFLECT_RX:
		*v = st[P_T2_SW] - st[P_T2_WIRE];
		*needs = N(P_T2_SW) | N(P_T2_WIRE);
		break;
	case M_REFLECT_PROC:
		*v = st[P_T3_SW] - st[P_T2_SW];
		*needs = N(P_T3_SW) | N(P_T2_SW);
		break;
	case M_REFLECT_TX:
		*v = st[P_T3_WIRE] - st[P_T3_SW];
		*needs = N(P_T3_WIRE) | N(P_T3_SW);
		break;
	case M_EMIT_RX:
		*v = st[P_T4_SW] - st[P_T4_WIRE];
		*needs = N(P_T4_SW) | N(P_T4_WIRE);
		break;
	case M_EMIT_ACK:
		*v = ST_ACK - st[P_T1_WIRE];
		*needs = N(P_T_ACK) | N(P_T1_WIRE);
		break;
	case M_OWD_FWD:
		*v = st[P_T2_WIRE] - st[P_T1_WIRE];
		*needs = N(P_T2_WIRE) | N(P_T1_WIRE);
		break;
	case M_OWD_BACK:
		*v = st[P_T4_WIRE] - st[P_T3_WIRE];
		*needs = N(P_T4_WIRE) | N(P_T3_WIRE);
		break;
	case M_SYN_RTT:		/* a probe's: the SYN's and the SYN-ACK's */
	case M_REQUEST:		/* the request's and its response's last byte */
		*v = st[P_T4_WIRE] - st[P_T1_WIRE];
		*needs = N(P_T4_WIRE) | N(P_T1_WIRE);
		break;
	case M_FIRST_BYTE:	/* the response's first byte, kept as T2 */
		*v = st[P_T2_WIRE] - st[P_T1_WIRE];
		*needs = N(P_T2_WIRE) | N(P_T1_WIRE);
		break;
	default:
		*v = 0;
		*needs = 0;
	}
#undef N
}

static void test_metric_values(void)
{
	struct txrec r;

	for (int m = 0; m < M_COUNT; m++) {
		const char *name = metric_defs[m].name ? metric_defs[m].name : "?";
		int64_t want, got = -12345;
		unsigned needs;
		bool all_false = true, others_ok = true;

		if (metric_is_queue((enum metric_id)m))
			continue;	/* a length, not stamps: test_queue */
		if (!metric_of_record((enum metric_id)m)) {
			fill(&r);
			ok(!metric_value((enum metric_id)m, &r, &got),
			   "metric %s: not from a record", name);
			continue;
		}
		expected((enum metric_id)m, &want, &needs);
		fill(&r);
		ok(metric_value((enum metric_id)m, &r, &got),
		   "metric %s: computed from a full record", name);
		is_i64(got, want, "metric %s = %lld", name, (long long)want);

		/* Any needed stamp absent: false. */
		for (int p = 0; p <= P_T_ACK; p++) {
			int64_t v = -12345;
			bool res;

			fill(&r);
			drop(&r, (enum point)p);
			/* dropping a SW base also drops its offset stamp */
			res = metric_value((enum metric_id)m, &r, &v);
			if (needs & (1u << p)) {
				if (res) {
					all_false = false;
					diag("%s: true without %s", name,
					     pname(p));
				}
			} else if (p != P_T2_SW && p != P_T1_SW && p != P_T1_WIRE &&
				   p != P_T2_WIRE) {
				/* (T1_wire is T4_wire's base in the record,
				 * T2_wire T3_wire's) */
				/* a stamp it does not need changes nothing */
				if (!res || v != want) {
					others_ok = false;
					diag("%s: changed by absent %s", name,
					     pname(p));
				}
			}
		}
		ok(all_false, "metric %s: false when any stamp it needs is absent",
		   name);
		ok(others_ok, "metric %s: unaffected by stamps it does not need",
		   name);
	}

	/* Only the two wire stamps of RTT set. */
	{
		int64_t v = 0;

		txrec_clear(&r);
		r.t1_wire = 5000;
		txrec_set_t4_wire(&r, 3000);
		ok(metric_value(M_RTT, &r, &v) && v == -2000,
		   "RTT from only T1/T4 wire stamps, negative allowed (-2000)");
		ok(!metric_value(M_NETWORK, &r, &v),
		   "network false without the reflector's stamps");
		ok(!metric_value(M_RESPONSE, &r, &v), "response false without T2/T3");
	}
}

static void test_metric_table(void)
{
	bool unique = true, named = true, consistent = true;

	for (int m = 0; m < M_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];
		bool uses_sw = false;
		enum point pts[4] = { d->a, d->b, d->c, d->d };

		if (metric_is_queue((enum metric_id)m) && (d->sw || d->path)) {
			consistent = false;
			diag("metric %s: a queue needs no SW stamps and is no step", d->name);
		}
		if (metric_is_queue((enum metric_id)m) || !metric_of_record((enum metric_id)m))
			continue;	/* no points of a record */
		if (!d->name || !d->name[0] || !d->label || !d->label[0]) {
			named = false;
			diag("metric %d lacks a name or label", m);
			continue;
		}
		for (const char *c = d->name; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
			      *c == '_'))
				named = false;
		for (int n = m + 1; n < M_COUNT; n++)
			if (metric_defs[n].name &&
			    !strcmp(d->name, metric_defs[n].name)) {
				unique = false;
				diag("metric name %s twice", d->name);
			}
		for (int i = 0; i < (d->c != d->d ? 4 : 2); i++)
			if (pts[i] == P_T1_SW || pts[i] == P_T2_SW ||
			    pts[i] == P_T3_SW || pts[i] == P_T4_SW)
				uses_sw = true;
		if (uses_sw != d->sw) {
			consistent = false;
			diag("metric %s: sw flag %d, uses SW stamps %d", d->name,
			     d->sw, uses_sw);
		}
	}
	ok(named, "every metric has a name ([a-z0-9_]+) and a label");
	ok(unique, "metric names are unique");
	ok(consistent, "sw is set exactly for metrics that use SW stamps");
	is_str(metric_defs[M_RTT].name, "rtt", "M_RTT is \"rtt\" (the JSON key)");
	is_str(metric_defs[M_RESPONSE].name, "response",
	       "M_RESPONSE is \"response\"");
	is_str(metric_defs[M_REFLECT_RX].name, "reflect_rx",
	       "M_REFLECT_RX is \"reflect_rx\" (metric.h's example)");
	ok(metric_defs[M_EMIT_TX].path && metric_defs[M_REFLECT_RX].path &&
	   metric_defs[M_REFLECT_PROC].path && metric_defs[M_REFLECT_TX].path &&
	   metric_defs[M_EMIT_RX].path,
	   "the five steps of the SW decomposition are path steps");
	ok(!metric_defs[M_RTT].path && !metric_defs[M_RTT_SW].path,
	   "the round trips are not path steps");
}

/* Peer stamps off the wire may be anything: differences saturate. */
static void test_extreme(void)
{
	struct txrec r;
	int64_t v = 0;

	txrec_clear(&r);
	r.t1_wire = 1700000000000000000LL;
	txrec_set_t4_wire(&r, r.t1_wire + 20000);
	r.t2_wire = INT64_MIN;
	txrec_set_t3_wire(&r, INT64_MAX);
	ok(!metric_value(M_RESPONSE, &r, &v) && txrec_stamp(&r, P_T3_WIRE) == TS_NONE,
	   "T3 wire more than 2.1 s from T2 (INT64_MIN to INT64_MAX): kept as absent");
	r.t2_wire = INT64_MAX - 5;
	txrec_set_t3_wire(&r, INT64_MAX);
	ok(metric_value(M_RESPONSE, &r, &v) && v == 5,
	   "T3 wire 5 ns after T2 at the top of int64: response 5");
	r.t2_wire = INT64_MIN;
	txrec_set_t3_wire(&r, INT64_MIN + 7);
	ok(metric_value(M_NETWORK, &r, &v) && v == 20000 - 7,
	   "network = RTT - response at the bottom of int64 (%" PRId64 ")", v);
	r.t2_wire = 100;
	txrec_set_t3_wire(&r, TS_NONE);
	ok(!metric_value(M_RESPONSE, &r, &v), "no T3 wire: no response");
	r.t2_sw = INT64_MAX - 5;
	txrec_set_t3_sw(&r, INT64_MIN);
	is_i64(txrec_stamp(&r, P_T3_SW), TS_NONE,
	       "T3_SW too far from T2_SW: stored as absent");
	r.t2_sw = INT64_MAX - 5;
	txrec_set_t3_sw(&r, INT64_MAX);
	is_i64(txrec_stamp(&r, P_T3_SW), INT64_MAX, "T3_SW 5 ns after T2_SW at the top");
}

/*
 * The sender's queue: kept as SND_KN - SCHED in one field of two names;
 * the emitter's record (it has T1_SW) gives emit_queue, the reflector's
 * reflect_queue, never the other; the SCHED stamp is told only with
 * kernel wire stamps.
 */
static void test_queue(void)
{
	const int64_t t = 1700000000000000000LL;
	struct txrec r;
	int64_t v = 0;

	txrec_clear(&r);
	ok(!metric_value(M_EMIT_QUEUE, &r, &v) && !metric_value(M_REFLECT_QUEUE, &r, &v),
	   "a cleared record has no queue");
	r.t1_sw = t;
	r.t1_wire = t + 23000;
	txrec_set_queue(&r, t + 23000, t + 4000);
	ok(metric_value(M_EMIT_QUEUE, &r, &v) && v == 19000,
	   "emitter: emit_queue = T1_KN - T1_SCHED = 19000");
	ok(!metric_value(M_REFLECT_QUEUE, &r, &v), "emitter's record: no reflect_queue");
	is_i64(txrec_sched(&r, true, true), t + 4000, "T1_SCHED = T1_KN - queue, kernel wire stamps");
	is_i64(txrec_sched(&r, true, false), TS_NONE, "T1_SCHED unknown with HW wire stamps");
	is_i64(txrec_sched(&r, false, true), TS_NONE, "no T3_SCHED in the emitter's record");
	txrec_set_queue(&r, TS_NONE, t + 4000);
	ok(!metric_value(M_EMIT_QUEUE, &r, &v), "no SND stamp (HW runs): no queue");
	txrec_set_queue(&r, t + 3 * NS_PER_SEC, t);
	ok(!metric_value(M_EMIT_QUEUE, &r, &v), "a queue of 3 s does not fit: absent");

	txrec_clear(&r);
	r.t2_wire = t;
	txrec_set_t3_wire(&r, t + 9000);
	txrec_set_queue(&r, t + 9000, t + 8000);
	ok(metric_value(M_REFLECT_QUEUE, &r, &v) && v == 1000,
	   "reflector: reflect_queue = T3_KN - T3_SCHED = 1000");
	ok(!metric_value(M_EMIT_QUEUE, &r, &v), "reflector's record: no emit_queue");
	is_i64(txrec_sched(&r, false, true), t + 8000, "T3_SCHED = T3_KN - queue");
	txrec_set_queue(&r, t + 9000, TS_NONE);
	ok(!metric_value(M_REFLECT_QUEUE, &r, &v), "no SCHED stamp: no queue");
	ok(metric_in_run(&(struct rant_cfg){ .mode = MODE_EMIT }, M_EMIT_QUEUE) &&
	   !metric_in_run(&(struct rant_cfg){ .mode = MODE_EMIT }, M_REFLECT_QUEUE) &&
	   metric_in_run(&(struct rant_cfg){ .mode = MODE_REFLECT }, M_REFLECT_QUEUE) &&
	   !metric_in_run(&(struct rant_cfg){ .mode = MODE_REFLECT }, M_EMIT_QUEUE),
	   "each side measures its own queue, without -s");
}

/* A lost ping's marker: never a stamp, and T4 reads absent. */
static void test_lost(void)
{
	struct txrec r;
	int64_t v;

	txrec_clear(&r);
	ok(!txrec_lost(&r), "a cleared record is not lost");
	r.t1_sw = 1700000000000000000ll;
	r.t1_wire = r.t1_sw + 500;
	txrec_set_t4_wire(&r, r.t1_wire + (TXREC_LOST - 0ll));
	ok(!txrec_lost(&r), "an offset equal to the marker is stored as absent, not as lost");
	is_int(r.t4_wire_d, TXREC_NO_DELTA, "... as TXREC_NO_DELTA");
	txrec_set_t4_wire(&r, r.t1_wire + 20000);
	txrec_set_t4_sw(&r, r.t1_sw + 21000);
	txrec_set_lost(&r);
	ok(txrec_lost(&r), "txrec_set_lost marks it lost");
	ok(txrec_stamp(&r, P_T4_WIRE) == TS_NONE && txrec_stamp(&r, P_T4_SW) == TS_NONE,
	   "a lost record has no T4 stamps");
	ok(txrec_stamp(&r, P_T1_WIRE) == r.t1_wire && txrec_stamp(&r, P_T1_SW) == r.t1_sw,
	   "and keeps its T1 stamps");
	ok(!metric_value(M_RTT, &r, &v), "a lost record has no RTT");
}

int main(void)
{
	test_queue();
	test_lost();
	test_record();
	test_offsets();
	test_wire_offsets();
	test_metric_values();
	test_metric_table();
	test_extreme();
	return done_testing();
}
