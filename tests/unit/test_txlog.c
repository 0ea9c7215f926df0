/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/txlog.h: the in-memory log (linear and ring), the column names, the
 * text of each line, and the file txlog_write() makes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "tap.h"
#include "txlog.h"

/* Header text (names line + dashes line) as a C string. */
static char *header(const struct txlog_fmt *f)
{
	static char buf[1024];
	size_t n = txlog_format_header(buf, sizeof(buf) - 1, f);

	buf[n < sizeof(buf) ? n : 0] = 0;
	return buf;
}

/* Names line + dashes line for the names in want. */
static char *hdr_of(const char *names)
{
	static char buf[1024];
	size_t n = strlen(names);

	memcpy(buf, names, n);
	buf[n] = '\n';
	memset(buf + n + 1, '-', n);
	buf[2 * n + 1] = '\n';
	buf[2 * n + 2] = 0;
	return buf;
}

/* One line as a C string; checks the guard past TXLOG_LINE_MAX. */
static char *line(const struct txrec *r, const struct txlog_fmt *f)
{
	static char buf[TXLOG_LINE_MAX + 16];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = txlog_format_line(buf, r, f);
	if (n > TXLOG_LINE_MAX || buf[TXLOG_LINE_MAX] != 'X')
		diag("txlog_format_line wrote past TXLOG_LINE_MAX (%zu)", n);
	buf[n <= TXLOG_LINE_MAX ? n : 0] = 0;
	return buf;
}

#define S 1700000000000000000ll		/* 1700000000.000000000 */

static void sample(struct txrec *r)
{
	txrec_clear(r);
	r->seq = 7;
	r->t1_sw = S + 12345;
	r->t1_wire = S + 13845;
	r->t2_wire = S + 23845;
	r->t2_sw = S + 26045;
	txrec_set_t3_sw(r, S + 27245);
	r->t3_wire = S + 28545;
	txrec_set_t4_wire(r, S + 39545);
	txrec_set_t4_sw(r, S + 42645);
}

static void test_header(void)
{
	struct txlog_fmt f = { .emit = true, .sw = true, .hw = false,
			       .peer = true, .peer_hw = false };

	is_str(header(&f),
	       hdr_of("SEQ T1_SW T1_KN T4_KN T4_SW RTT T2_KN T2_SW T3_SW T3_KN RESPONSE"),
	       "emitter, sw, kernel, peer (kernel)");
	f = (struct txlog_fmt){ .emit = true };
	is_str(header(&f), hdr_of("SEQ T1_KN T4_KN RTT"), "emitter, kernel");
	f = (struct txlog_fmt){ .emit = true, .hw = true };
	is_str(header(&f), hdr_of("SEQ T1_HW T4_HW RTT"), "emitter, hardware");
	f = (struct txlog_fmt){ .emit = true, .sw = true, .hw = true };
	is_str(header(&f), hdr_of("SEQ T1_SW T1_HW T4_HW T4_SW RTT"),
	       "emitter, sw, hardware (the seed's client columns)");
	f = (struct txlog_fmt){ .emit = true, .hw = true, .peer = true };
	is_str(header(&f), hdr_of("SEQ T1_HW T4_HW RTT T2_KN T3_KN RESPONSE"),
	       "emitter hardware, peer kernel: each side named by its own source");
	f = (struct txlog_fmt){ .emit = true, .peer = true, .peer_hw = true };
	is_str(header(&f), hdr_of("SEQ T1_KN T4_KN RTT T2_HW T3_HW RESPONSE"),
	       "emitter kernel, peer hardware");
	f = (struct txlog_fmt){ .emit = false, .sw = true };
	is_str(header(&f), hdr_of("SEQ T2_KN T2_SW T3_SW T3_KN RESPONSE"),
	       "reflector, sw, kernel");
	f = (struct txlog_fmt){ .emit = false, .sw = true, .hw = true };
	is_str(header(&f), hdr_of("SEQ T2_HW T2_SW T3_SW T3_HW RESPONSE"),
	       "reflector, sw, hardware (the seed's server columns)");
	f = (struct txlog_fmt){ .emit = false };
	is_str(header(&f), hdr_of("SEQ T2_KN T3_KN RESPONSE"), "reflector, kernel");
	f = (struct txlog_fmt){ .emit = false, .hw = true, .peer = true,
				.peer_hw = false };
	is_str(header(&f), hdr_of("SEQ T2_HW T3_HW RESPONSE"),
	       "reflector: peer flags ignored, own source names the columns");
	{
		char buf[1024];
		size_t n;

		f = (struct txlog_fmt){ .emit = true };
		n = txlog_format_header(buf, sizeof(buf), &f);
		is_int(n, strlen(hdr_of("SEQ T1_KN T4_KN RTT")),
		       "txlog_format_header returns the length it wrote");
	}
}

static void test_lines(void)
{
	struct txrec r;
	struct txlog_fmt f = { .emit = true, .sw = true, .peer = true };

	sample(&r);
	is_str(line(&r, &f),
	       "7 1700000000.000012345 1700000000.000013845 1700000000.000039545"
	       " 1700000000.000042645 25700 1700000000.000023845"
	       " 1700000000.000026045 1700000000.000027245"
	       " 1700000000.000028545 4700\n",
	       "emitter sw peer: every column, RTT = T4-T1, RESPONSE = T3-T2");
	f = (struct txlog_fmt){ .emit = true };
	is_str(line(&r, &f),
	       "7 1700000000.000013845 1700000000.000039545 25700\n", "emitter");
	f = (struct txlog_fmt){ .emit = true, .hw = true, .peer = true };
	is_str(line(&r, &f),
	       "7 1700000000.000013845 1700000000.000039545 25700"
	       " 1700000000.000023845 1700000000.000028545 4700\n",
	       "emitter peer, no sw");
	f = (struct txlog_fmt){ .emit = false, .sw = true };
	is_str(line(&r, &f),
	       "7 1700000000.000023845 1700000000.000026045 1700000000.000027245"
	       " 1700000000.000028545 4700\n", "reflector sw");
	f = (struct txlog_fmt){ .emit = false };
	is_str(line(&r, &f), "7 1700000000.000023845 1700000000.000028545 4700\n",
	       "reflector");
	{
		char buf[TXLOG_LINE_MAX];

		f = (struct txlog_fmt){ .emit = false };
		is_int(txlog_format_line(buf, &r, &f),
		       strlen("7 1700000000.000023845 1700000000.000028545 4700\n"),
		       "txlog_format_line returns the length");
	}

	/* absent values */
	txrec_clear(&r);
	r.seq = 8;
	r.t1_sw = S + 1;
	r.t1_wire = S + 2;
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true };
	is_str(line(&r, &f), "8 1700000000.000000001 1700000000.000000002 - - - - - - - -\n",
	       "lost pong: T4, T4_SW, RTT and the peer's columns are -");
	txrec_clear(&r);
	r.seq = 9;
	r.t1_wire = S + 2;
	txrec_set_t4_wire(&r, S + 1000);
	r.t3_wire = S + 600;
	f = (struct txlog_fmt){ .emit = true, .peer = true };
	is_str(line(&r, &f),
	       "9 1700000000.000000002 1700000000.000001000 998 - 1700000000.000000600 -\n",
	       "no T2 from the peer: T2 and RESPONSE are -");

	/* negative latency, seconds boundary */
	txrec_clear(&r);
	r.seq = 0;
	r.t1_wire = 1700000001000000000ll;
	txrec_set_t4_wire(&r, 1700000000999999500ll);
	f = (struct txlog_fmt){ .emit = true };
	is_str(line(&r, &f), "0 1700000001.000000000 1700000000.999999500 -500\n",
	       "negative RTT as signed ns; .000000000 and .999999500");

	/* small stamps: still nine digits */
	txrec_clear(&r);
	r.seq = 1;
	r.t1_wire = 5;
	txrec_set_t4_wire(&r, 1000000000);
	is_str(line(&r, &f), "1 0.000000005 1.000000000 999999995\n",
	       "stamps below one second: 0.000000005");

	/* the longest line fits in TXLOG_LINE_MAX */
	txrec_clear(&r);
	r.seq = UINT64_MAX;
	r.t1_sw = 1;
	r.t1_wire = 1;
	r.t2_wire = 1;
	r.t2_sw = INT64_MAX - 3000000000ll;
	txrec_set_t3_sw(&r, INT64_MAX - 1000000000ll);
	r.t3_wire = INT64_MAX;
	txrec_set_t4_wire(&r, 1 + (int64_t)INT32_MAX);	/* the largest RTT kept */
	txrec_set_t4_sw(&r, 2000000001ll);
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true };
	{
		const char *l = line(&r, &f);
		size_t n = strlen(l);

		ok(n > 0 && n <= TXLOG_LINE_MAX && l[n - 1] == '\n',
		   "longest line (%zu bytes) fits in TXLOG_LINE_MAX", n);
		is_str(l,
		       "18446744073709551615 0.000000001 0.000000001"
		       " 2.147483648 2.000000001 2147483647"
		       " 0.000000001 9223372033.854775807 9223372035.854775807"
		       " 9223372036.854775807 9223372036854775806\n",
		       "longest line's text");
	}
}

/* Stamps a hostile pong can carry: the ends of int64 (fuzz_wire found
 * INT64_MIN negated and T3 - T2 overflowing). */
static void test_extreme(void)
{
	struct txrec r;
	struct txlog_fmt f = { .emit = false };

	txrec_clear(&r);
	r.seq = UINT64_MAX;
	r.t2_wire = INT64_MIN;
	r.t3_wire = INT64_MAX;
	is_str(line(&r, &f),
	       "18446744073709551615 -9223372036.854775808 9223372036.854775807"
	       " 9223372036854775807\n",
	       "reflector: INT64_MIN and INT64_MAX stamps, RESPONSE saturates");
	r.t2_wire = INT64_MAX;
	r.t3_wire = INT64_MIN;
	is_str(line(&r, &f),
	       "18446744073709551615 9223372036.854775807 -9223372036.854775808"
	       " -9223372036854775808\n",
	       "reflector: the other way round saturates low");
}

/* Over TCP the emitter's log ends with the ACK stamp and emit_ack. */
static void test_ack_columns(void)
{
	struct txlog_fmt f = { .emit = true, .ack = true };
	struct txrec r;

	is_str(header(&f), "SEQ T1_KN T4_KN RTT T_ACK_KN EMIT_ACK\n"
	       "-------------------------------------\n",
	       "TCP emitter header: T_ACK_KN and EMIT_ACK on the right");
	txrec_clear(&r);
	r.seq = 3;
	r.t1_sw = S + 100;
	r.t1_wire = S + 1100;
	txrec_set_t4_wire(&r, S + 41000000);
	txrec_set_ack(&r, S + 40999000);
	is_str(line(&r, &f), "3 1700000000.000001100 1700000000.041000000 40998900"
	       " 1700000000.040999000 40997900\n", "TCP emitter line: T_ACK and T_ACK - T1");
	txrec_set_ack(&r, TS_NONE);
	is_str(line(&r, &f), "3 1700000000.000001100 1700000000.041000000 40998900 - -\n",
	       "no ACK stamp: - -");
	f.sw = true;
	f.peer = true;
	ok(strlen(header(&f)) / 2 < TXLOG_LINE_MAX, "every column with ACK: the header fits");
}

/* Lost pings keep a row: the stamps they have, "-" for T4, LOST last. */
static void test_lost_column(void)
{
	struct txlog_fmt f = { .emit = true, .lost = true };
	struct txrec r;

	is_str(header(&f), hdr_of("SEQ T1_KN T4_KN RTT LOST"), "emitter: LOST is the last column");
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true, .ack = true, .lost = true };
	is_str(header(&f),
	       hdr_of("SEQ T1_SW T1_KN T4_KN T4_SW RTT T2_KN T2_SW T3_SW T3_KN RESPONSE T_ACK_KN EMIT_ACK LOST"),
	       "every column: LOST after the ACK columns");
	f = (struct txlog_fmt){ .emit = false, .lost = true };
	is_str(header(&f), hdr_of("SEQ T2_KN T3_KN RESPONSE"), "reflector: no LOST column");

	sample(&r);
	f = (struct txlog_fmt){ .emit = true, .lost = true };
	is_str(line(&r, &f), "7 1700000000.000013845 1700000000.000039545 25700 -\n",
	       "a received ping: LOST is -");
	txrec_set_lost(&r);
	ok(txrec_lost(&r), "txrec_set_lost marks it");
	is_str(line(&r, &f), "7 1700000000.000013845 - - LOST\n",
	       "a lost ping: T1 kept, T4 and RTT -, LOST");
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true, .lost = true };
	is_str(line(&r, &f),
	       "7 1700000000.000012345 1700000000.000013845 - - -"
	       " 1700000000.000023845 1700000000.000026045 1700000000.000027245"
	       " 1700000000.000028545 4700 LOST\n",
	       "a lost ping with -s: T4_SW - too, the rest kept");

	/* the longest emitter line, every column, fits */
	txrec_clear(&r);
	r.seq = UINT64_MAX;
	r.t1_sw = INT64_MIN + 2000000000ll;
	r.t1_wire = INT64_MIN;
	r.t2_wire = INT64_MIN;
	r.t2_sw = INT64_MIN + 3000000000ll;
	txrec_set_t3_sw(&r, INT64_MIN + 1000000001ll);
	r.t3_wire = INT64_MAX;
	txrec_set_t4_wire(&r, INT64_MIN + (int64_t)INT32_MAX);
	txrec_set_t4_sw(&r, INT64_MIN + 1000000000ll);
	txrec_set_ack(&r, INT64_MIN + 2000000001ll);
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true, .ack = true, .lost = true };
	{
		const char *l = line(&r, &f);
		size_t n = strlen(l);

		ok(n > 250 && n <= TXLOG_LINE_MAX && l[n - 1] == '\n',
		   "longest line with ACK and LOST (%zu bytes) fits in TXLOG_LINE_MAX", n);
	}
}

static void test_linear(void)
{
	struct txlog *l = txlog_create(3, false, false);
	struct txrec *a, *b, *c;

	if (!ok(l != NULL, "txlog_create(3, linear)"))
		return;
	is_u64(txlog_len(l), 0, "empty");
	a = txlog_next(l);
	b = txlog_next(l);
	c = txlog_next(l);
	ok(a && b && c && a != b && b != c && a != c, "three distinct slots");
	if (!(a && b && c)) {
		txlog_destroy(l);
		return;
	}
	a->seq = 1;
	b->seq = 2;
	c->seq = 3;
	is_u64(txlog_len(l), 3, "len 3");
	ok(txlog_next(l) == NULL, "linear log full: txlog_next returns NULL");
	is_u64(txlog_len(l), 3, "len still 3");
	is_u64(txlog_overwritten(l), 0, "a linear log overwrites nothing");
	ok(txlog_get(l, 0)->seq == 1 && txlog_get(l, 1)->seq == 2 &&
	   txlog_get(l, 2)->seq == 3, "records 1 2 3 in order");
	txlog_destroy(l);
}

static void test_ring(void)
{
	const size_t cap = 5, k = 12;
	struct txlog *l = txlog_create(cap, true, false);
	bool order = true;

	if (!ok(l != NULL, "txlog_create(5, ring)"))
		return;
	for (uint64_t s = 1; s <= 3; s++)
		txlog_next(l)->seq = s;
	is_u64(txlog_len(l), 3, "ring before wrap: len 3");
	ok(txlog_get(l, 0)->seq == 1 && txlog_get(l, 2)->seq == 3,
	   "ring before wrap: oldest first");
	for (uint64_t s = 4; s <= cap + k; s++) {
		struct txrec *r = txlog_next(l);

		if (!r) {
			fail("ring: txlog_next never returns NULL");
			txlog_destroy(l);
			return;
		}
		is_u64(r->seq, 0, "ring: reused slot for seq %llu is zeroed",
		       (unsigned long long)s);
		r->seq = s;
	}
	is_u64(txlog_len(l), cap, "after cap+%zu records: len == cap", k);
	is_u64(txlog_overwritten(l), k, "after cap+%zu records: overwritten == %zu",
	       k, k);
	is_u64(txlog_get(l, 0)->seq, k + 1, "txlog_get(0) is the oldest kept (seq %zu)",
	       k + 1);
	for (size_t i = 0; i < cap; i++)
		if (txlog_get(l, i)->seq != k + 1 + i)
			order = false;
	ok(order, "order preserved: seqs %zu..%zu", k + 1, k + cap);

	txlog_next(l)->seq = 99;
	is_u64(txlog_get(l, cap - 1)->seq, 99, "ring: the newest is last");
	txlog_destroy(l);
}

static void test_write(void)
{
	struct txlog_fmt f = { .emit = true, .sw = true, .peer = true };
	char path[] = "/tmp/rant-txlog-XXXXXX";
	struct txlog *l = txlog_create(4, true, false);
	char want[4096], got[4096];
	size_t wn = 0;
	ssize_t gn;
	int fd = mkstemp(path);

	if (fd < 0 || !l) {
		fail("mkstemp and txlog_create");
		return;
	}
	for (uint64_t s = 1; s <= 6; s++) {
		struct txrec *r = txlog_next(l);

		sample(r);
		r->seq = s;
		txrec_set_t4_wire(r, txrec_stamp(r, P_T4_WIRE) + (int64_t)s * 1000);
	}
	wn = txlog_format_header(want, sizeof(want), &f);
	for (size_t i = 0; i < txlog_len(l); i++)
		wn += txlog_format_line(want + wn, txlog_get(l, i), &f);
	is_int(txlog_write(l, fd, &f), 0, "txlog_write -> 0");
	gn = pread(fd, got, sizeof(got), 0);
	ok(gn == (ssize_t)wn && !memcmp(got, want, wn),
	   "the file is the header and each record's line (%zd of %zu bytes)",
	   gn, wn);
	got[gn > 0 ? gn : 0] = 0;
	ok(!strncmp(got, "SEQ T1_SW T1_KN", 15), "file starts with the names line");
	{
		char *p = strchr(got, '\n');
		char *q = p ? strchr(p + 1, '\n') : NULL;

		ok(q && q[1] == '3' && q[2] == ' ',
		   "first record is seq 3: the ring wrote oldest first");
		ok(gn > 2 && got[gn - 1] == '\n' && got[gn - 2] != '\n',
		   "ends with one newline");
		{
			int lines = 0;

			for (ssize_t i = 0; i < gn; i++)
				lines += got[i] == '\n';
			is_int(lines, 2 + 4, "2 header lines + 4 records");
		}
	}
	close(fd);
	unlink(path);

	/* an empty log: header only */
	{
		struct txlog *e = txlog_create(2, false, false);
		char p2[] = "/tmp/rant-txlog-XXXXXX";
		int fd2 = mkstemp(p2);
		struct txlog_fmt rf = { .emit = false };

		is_int(txlog_write(e, fd2, &rf), 0, "empty log written");
		gn = pread(fd2, got, sizeof(got) - 1, 0);
		got[gn > 0 ? gn : 0] = 0;
		is_str(got, hdr_of("SEQ T2_KN T3_KN RESPONSE"), "empty log: header only");
		close(fd2);
		unlink(p2);
		txlog_destroy(e);
	}

	ok(txlog_write(l, -1, &f) < 0, "txlog_write to a bad fd -> -errno");
	{
		int full = open("/dev/full", O_WRONLY);

		if (full >= 0) {
			is_int(txlog_write(l, full, &f), -ENOSPC,
			       "txlog_write to /dev/full -> -ENOSPC");
			close(full);
		} else {
			skip(1, "no /dev/full");
		}
	}
	txlog_destroy(l);
}

static void test_big(void)
{
	/* Enough lines to cross any internal write buffer. */
	const size_t n = 20000;
	struct txlog *l = txlog_create(n, false, false);
	struct txlog_fmt f = { .emit = true, .sw = true, .peer = true };
	char path[] = "/tmp/rant-txlog-XXXXXX";
	int fd = mkstemp(path);
	size_t want = 0, lines = 0;
	char buf[TXLOG_LINE_MAX + 8], hb[1024];
	off_t size;

	if (!l || fd < 0) {
		fail("txlog_create(%zu) and mkstemp", n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct txrec *r = txlog_next(l);

		sample(r);
		r->seq = i + 1;
		want += txlog_format_line(buf, r, &f);
	}
	want += txlog_format_header(hb, sizeof(hb), &f);
	is_int(txlog_write(l, fd, &f), 0, "%zu records written", n);
	size = lseek(fd, 0, SEEK_END);
	is_int(size, want, "file size is the sum of the lines");
	{
		FILE *fp = fdopen(fd, "r");
		char lb[512];
		uint64_t expect = 1;
		bool seqs = true;

		rewind(fp);
		while (fgets(lb, sizeof(lb), fp)) {
			if (++lines > 2 && strtoull(lb, NULL, 10) != expect++)
				seqs = false;
		}
		ok(seqs && lines == n + 2, "every record once, in order (%zu lines)",
		   lines);
		fclose(fp);
	}
	unlink(path);
	txlog_destroy(l);
}

/* -G: hugepages asked; where the pool is empty, NULL must say why. */
static void test_huge(void)
{
	struct txlog *l;

	errno = 0;
	l = txlog_create(100000, true, true);	/* 6.4 MB */
	if (l) {
		ok(txlog_next(l) != NULL, "hugepage-backed log gives slots");
		txlog_destroy(l);
	} else {
		ok(errno != 0, "txlog_create with hugepages: NULL with errno set (%d)",
		   errno);
	}
}

int main(void)
{
	test_ack_columns();
	test_lost_column();
	ok(sizeof(struct txrec) <= 64, "sizeof(struct txrec) %zu <= 64",
	   sizeof(struct txrec));
	test_header();
	test_lines();
	test_extreme();
	test_linear();
	test_ring();
	test_write();
	test_big();
	test_huge();
	return done_testing();
}
