// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Transaction log: in-memory records, written as text at the end of the
 * run. Formatting is hand-rolled (no printf per field): writing 10 million
 * records must take about a second, not a minute.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"
#include "txlog.h"

struct txlog {
	struct txrec *rec;
	size_t cap;
	size_t head;		/* next slot */
	size_t len;		/* records held */
	uint64_t overwritten;
	bool ring;
	bool huge;
};

struct txlog *txlog_create(size_t cap, bool ring, bool hugepages)
{
	struct txlog *l;

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cap = cap;
	l->ring = ring;
	l->huge = hugepages;
	l->rec = mem_alloc(cap * sizeof(*l->rec), hugepages);
	if (!l->rec) {
		free(l);
		return NULL;
	}
	return l;
}

void txlog_destroy(struct txlog *l)
{
	if (!l)
		return;
	mem_free(l->rec, l->cap * sizeof(*l->rec), l->huge);
	free(l);
}

struct txrec *txlog_next(struct txlog *l)
{
	struct txrec *r;

	if (l->len == l->cap) {
		if (!l->ring)
			return NULL;
		l->len--;
		l->overwritten++;
	}
	r = &l->rec[l->head];
	l->head = l->head + 1 == l->cap ? 0 : l->head + 1;
	l->len++;
	txrec_clear(r);
	return r;
}

size_t txlog_len(const struct txlog *l)
{
	return l->len;
}

uint64_t txlog_overwritten(const struct txlog *l)
{
	return l->overwritten;
}

const struct txrec *txlog_get(const struct txlog *l, size_t i)
{
	size_t first = (l->head + l->cap - l->len) % l->cap;

	return &l->rec[(first + i) % l->cap];
}

/* ---- formatting ---- */

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

/* " seconds.nanoseconds", or " -" for an absent stamp. */
static char *put_stamp(char *p, int64_t t)
{
	*p++ = ' ';
	if (t == TS_NONE) {
		*p++ = '-';
		return p;
	}
	if (t < 0) {
		*p++ = '-';
		t = -t;
	}
	p = put_u64(p, (uint64_t)t / 1000000000u);
	*p++ = '.';
	return put_ns9(p, (uint32_t)((uint64_t)t % 1000000000u));
}

/* " a-b" in ns, or " -" when either is absent. */
static char *put_diff(char *p, int64_t a, int64_t b)
{
	*p++ = ' ';
	if (a == TS_NONE || b == TS_NONE) {
		*p++ = '-';
		return p;
	}
	return put_i64(p, a - b);
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

/* The reflector's columns: "T2_w [T2_SW T3_SW] T3_w RESPONSE". */
static char *put_reflect_names(char *p, bool sw, const char *w)
{
	p = put_name(p, "T2", w);
	if (sw) {
		p = put_name(p, "T2_SW", NULL);
		p = put_name(p, "T3_SW", NULL);
	}
	p = put_name(p, "T3", w);
	return put_name(p, "RESPONSE", NULL);
}

size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f)
{
	const char *w = f->hw ? "_HW" : "_KN";
	char line[TXLOG_LINE_MAX], *p = line;
	size_t n;

	memcpy(p, "SEQ", 3);
	p += 3;
	if (f->emit) {
		if (f->sw)
			p = put_name(p, "T1_SW", NULL);
		p = put_name(p, "T1", w);
		p = put_name(p, "T4", w);
		if (f->sw)
			p = put_name(p, "T4_SW", NULL);
		p = put_name(p, "RTT", NULL);
		if (f->peer)
			p = put_reflect_names(p, f->sw, f->peer_hw ? "_HW" : "_KN");
	} else {
		p = put_reflect_names(p, f->sw, w);
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

static char *put_reflect(char *p, const struct txrec *r, bool sw)
{
	p = put_stamp(p, r->t2_wire);
	if (sw) {
		p = put_stamp(p, r->t2_sw);
		p = put_stamp(p, txrec_stamp(r, P_T3_SW));
	}
	p = put_stamp(p, r->t3_wire);
	return put_diff(p, r->t3_wire, r->t2_wire);
}

size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f)
{
	char *p = put_u64(buf, r->seq);

	if (f->emit) {
		if (f->sw)
			p = put_stamp(p, r->t1_sw);
		p = put_stamp(p, r->t1_wire);
		p = put_stamp(p, r->t4_wire);
		if (f->sw)
			p = put_stamp(p, txrec_stamp(r, P_T4_SW));
		p = put_diff(p, r->t4_wire, r->t1_wire);
		if (f->peer)
			p = put_reflect(p, r, f->sw);
	} else {
		p = put_reflect(p, r, f->sw);
	}
	*p++ = '\n';
	return (size_t)(p - buf);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

#define WBUF_SIZE (1 << 20)

int txlog_write(const struct txlog *l, int fd, const struct txlog_fmt *f)
{
	char *buf = malloc(WBUF_SIZE);
	size_t used, i;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	used = txlog_format_header(buf, WBUF_SIZE, f);
	for (i = 0; i < l->len && !err; i++) {
		if (WBUF_SIZE - used < TXLOG_LINE_MAX) {
			err = write_all(fd, buf, used);
			used = 0;
		}
		used += txlog_format_line(buf + used, txlog_get(l, i), f);
	}
	if (!err)
		err = write_all(fd, buf, used);
	free(buf);
	return err;
}
