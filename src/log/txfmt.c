// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log's text: column names and one line per record (txfmt.h).
 * Formatting is hand-rolled (no printf per field): the writer formats
 * millions of records a second.
 */
#include <stdio.h>
#include <string.h>

#include "txfmt.h"

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		t -= 2;
		memcpy(t, &digits2[(v % 100) * 2], 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, &digits2[v * 2], 2);
	} else {
		*--t = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Exactly nine digits, zero-padded. */
static char *put_ns9(char *p, uint32_t ns)
{
	p[8] = (char)('0' + ns % 10);
	ns /= 10;
	for (int i = 6; i >= 0; i -= 2) {
		memcpy(p + i, &digits2[(ns % 100) * 2], 2);
		ns /= 100;
	}
	return p + 9;
}

/*
 * The stamps of one record nearly always share their seconds: their text
 * is converted once and copied after that.
 */
struct sec_cache {
	uint64_t sec;
	char txt[24];		/* "seconds." */
	size_t len;		/* 0: empty */
};

/* " seconds.nanoseconds", or " -" for an absent stamp. */
static char *put_stamp(char *p, int64_t t, struct sec_cache *sc)
{
	uint64_t sec, u = (uint64_t)t;

	*p++ = ' ';
	if (t == TS_NONE) {
		*p++ = '-';
		return p;
	}
	if (t < 0) {
		*p++ = '-';
		u = (uint64_t)0 - u;	/* in uint64: INT64_MIN too */
	}
	sec = u / 1000000000u;
	if (!sc->len || sc->sec != sec) {
		char *e = put_u64(sc->txt, sec);

		*e++ = '.';
		sc->len = (size_t)(e - sc->txt);
		sc->sec = sec;
	}
	memcpy(p, sc->txt, sc->len);
	return put_ns9(p + sc->len, (uint32_t)(u % 1000000000u));
}

/* " a-b" in ns, or " -" when either is absent. */
static char *put_diff(char *p, int64_t a, int64_t b)
{
	*p++ = ' ';
	if (a == TS_NONE || b == TS_NONE) {
		*p++ = '-';
		return p;
	}
	return put_i64(p, ns_sub(a, b));
}

/* The stamps' names without their suffix, in enum point's order. */
static const char *const point_names[P_COUNT] = {
	"T1_SW", "T1", "T2", "T2_SW", "T3_SW", "T3", "T4", "T4_SW",
};

bool txlog_point_wire(enum point p)
{
	return p == P_T1_WIRE || p == P_T2_WIRE || p == P_T3_WIRE || p == P_T4_WIRE;
}

const char *txlog_stamp_name(enum point p, const char *w, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", p < P_COUNT ? point_names[p] : "?",
		 txlog_point_wire(p) && w ? w : "");
	return buf;
}

static char *put_name(char *p, const char *name, const char *suffix)
{
	size_t n = strlen(name);

	*p++ = ' ';
	memcpy(p, name, n);
	p += n;
	if (suffix) {
		n = strlen(suffix);
		memcpy(p, suffix, n);
		p += n;
	}
	return p;
}

/* The reflector's columns: "T2_w [T2_SW T3_SW] T3_w3 RESPONSE". */
static char *put_reflect_names(char *p, bool sw, const char *w, const char *w3)
{
	p = put_name(p, point_names[P_T2_WIRE], w);
	if (sw) {
		p = put_name(p, point_names[P_T2_SW], NULL);
		p = put_name(p, point_names[P_T3_SW], NULL);
	}
	p = put_name(p, point_names[P_T3_WIRE], w3 ? w3 : w);
	return put_name(p, TXLOG_COL_RESPONSE, NULL);
}

size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f)
{
	const char *w = f->hw ? TXLOG_HW : TXLOG_KN;
	char line[TXLOG_LINE_MAX], *p = line;
	size_t n;

	memcpy(p, TXLOG_COL_SEQ, strlen(TXLOG_COL_SEQ));
	p += strlen(TXLOG_COL_SEQ);
	if (f->emit) {
		if (f->sw)
			p = put_name(p, point_names[P_T1_SW], NULL);
		p = put_name(p, point_names[P_T1_WIRE], w);
		p = put_name(p, point_names[P_T4_WIRE], w);
		if (f->sw)
			p = put_name(p, point_names[P_T4_SW], NULL);
		p = put_name(p, TXLOG_COL_RTT, NULL);
		if (f->peer)
			p = put_reflect_names(p, f->sw, f->peer_w ? f->peer_w :
					      f->peer_hw ? TXLOG_HW : TXLOG_KN, f->peer_w3);
		if (f->ack) {
			p = put_name(p, TXLOG_COL_T_ACK, NULL);
			p = put_name(p, TXLOG_COL_EMIT_ACK, NULL);
		}
		if (f->sched)
			p = put_name(p, TXLOG_COL_T1_SCHED, NULL);
		if (f->lost)
			p = put_name(p, TXLOG_COL_LOST, NULL);
		if (f->target_names)
			p = put_name(p, TXLOG_COL_TARGET, NULL);
		if (f->path_ids)
			p = put_name(p, TXLOG_COL_PATH, NULL);
	} else {
		p = put_reflect_names(p, f->sw, w, NULL);
		if (f->sched)
			p = put_name(p, TXLOG_COL_T3_SCHED, NULL);
	}
	n = (size_t)(p - line);
	if (2 * n + 2 >= len)
		return 0;
	memcpy(buf, line, n);
	buf[n] = '\n';
	memset(buf + n + 1, '-', n);
	buf[2 * n + 1] = '\n';
	return 2 * n + 2;
}

static char *put_reflect(char *p, const struct txrec *r, bool sw,
			 struct sec_cache *sc)
{
	p = put_stamp(p, r->t2_wire, sc);
	if (sw) {
		p = put_stamp(p, r->t2_sw, sc);
		p = put_stamp(p, txrec_stamp(r, P_T3_SW), sc);
	}
	p = put_stamp(p, txrec_stamp(r, P_T3_WIRE), sc);
	return put_diff(p, txrec_stamp(r, P_T3_WIRE), r->t2_wire);
}

size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f)
{
	struct sec_cache sc = { .len = 0 };
	char *p = put_u64(buf, r->seq);

	if (f->emit) {
		if (f->sw)
			p = put_stamp(p, r->t1_sw, &sc);
		p = put_stamp(p, r->t1_wire, &sc);
		p = put_stamp(p, txrec_stamp(r, P_T4_WIRE), &sc);
		if (f->sw)
			p = put_stamp(p, txrec_stamp(r, P_T4_SW), &sc);
		p = put_diff(p, txrec_stamp(r, P_T4_WIRE), r->t1_wire);
		if (f->peer)
			p = put_reflect(p, r, f->sw, &sc);
		if (f->ack) {
			p = put_stamp(p, txrec_stamp(r, P_T_ACK), &sc);
			p = put_diff(p, txrec_stamp(r, P_T_ACK), r->t1_wire);
		}
	} else {
		p = put_reflect(p, r, f->sw, &sc);
	}
	if (f->sched)
		p = put_stamp(p, txrec_sched(r, f->emit, !f->hw), &sc);
	if (f->emit && f->lost)
		p = put_name(p, txrec_lost(r) ? TXLOG_COL_LOST : "-", NULL);
	if (f->emit && f->target_names)
		p = put_name(p, f->target_names + txrec_fleet_slot(r) * f->target_len, NULL);
	if (f->emit && f->path_ids) {
		*p++ = ' ';
		p = put_u64(p, f->path_ids[txrec_fleet_path(r)]);
	}
	*p++ = '\n';
	return (size_t)(p - buf);
}
