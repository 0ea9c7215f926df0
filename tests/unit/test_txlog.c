/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/log/txlog.h: the in-memory log (linear and ring), the column names, the
 * text of each line, and the file txlog_write() makes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
	txrec_set_t3_wire(r, S + 28545);
	txrec_set_t4_wire(r, S + 39545);
	txrec_set_t4_sw(r, S + 42645);
}

/* The stamps' names, as the header, the breach breakdown and the JSON's
 * breach stamps write them (txlog_stamp_name). */
static void test_stamp_names(void)
{
	char b[24];

	is_str(txlog_stamp_name(P_T1_WIRE, TXLOG_HW, b, sizeof(b)), "T1_HW", "T1's wire stamp, NIC");
	is_str(txlog_stamp_name(P_T3_WIRE, "_PEER_SW", b, sizeof(b)), "T3_PEER_SW",
	       "T3's, as a STAMP reflector said");
	is_str(txlog_stamp_name(P_T2_SW, TXLOG_KN, b, sizeof(b)), "T2_SW", "a SW stamp takes no suffix");
	is_str(txlog_stamp_name(P_T4_WIRE, NULL, b, sizeof(b)), "T4", "no suffix given");
	ok(txlog_point_wire(P_T2_WIRE) && !txlog_point_wire(P_T1_SW) && !txlog_point_wire(P_T4_SW),
	   "T1 to T4's wire stamps take a suffix, the SW ones not");
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
	f = (struct txlog_fmt){ .emit = true, .peer = true, .peer_w = "_PEER_HW",
				.peer_w3 = "_PEER" };
	is_str(header(&f), hdr_of("SEQ T1_KN T4_KN RTT T2_PEER_HW T3_PEER RESPONSE"),
	       "--stamp: T2 and T3 each named as the peer said (T3: not said)");
	f.peer_w3 = NULL;
	is_str(header(&f), hdr_of("SEQ T1_KN T4_KN RTT T2_PEER_HW T3_PEER_HW RESPONSE"),
	       "--stamp: no T3 suffix: T2's");
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
	txrec_set_t3_wire(&r, S + 600);
	f = (struct txlog_fmt){ .emit = true, .peer = true };
	is_str(line(&r, &f),
	       "9 1700000000.000000002 1700000000.000001000 998 - - -\n",
	       "no T2 from the peer: T2, T3 (kept after T2 only) and RESPONSE are -");

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
	r.t2_wire = INT64_MAX - INT32_MAX;
	r.t2_sw = INT64_MAX - 3000000000ll;
	txrec_set_t3_sw(&r, INT64_MAX - 1000000000ll);
	txrec_set_t3_wire(&r, INT64_MAX);	/* the largest response kept */
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
		       " 9223372034.707292160 9223372033.854775807 9223372035.854775807"
		       " 9223372036.854775807 2147483647\n",
		       "longest line's text");
	}
	/* Every column, each stamp as long as it can be: it still fits. */
	txrec_clear(&r);
	r.seq = UINT64_MAX;
	r.t1_sw = INT64_MIN + INT32_MAX;
	r.t1_wire = INT64_MAX;
	r.t2_wire = INT64_MIN + INT32_MAX;
	r.t2_sw = INT64_MIN + INT32_MAX;
	txrec_set_t3_sw(&r, INT64_MIN + 1);
	txrec_set_t3_wire(&r, INT64_MIN + 1);
	txrec_set_t4_wire(&r, INT64_MAX - INT32_MAX);
	txrec_set_t4_sw(&r, INT64_MIN + 1);
	txrec_set_ack(&r, INT64_MIN + 1);
	txrec_set_queue(&r, INT64_MAX, INT64_MAX - INT32_MAX);
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true, .ack = true,
				.sched = true };
	{
		const char *l = line(&r, &f);
		size_t n = strlen(l);
		int cols = 0;

		for (size_t i = 0; i < n; i++)
			cols += l[i] == ' ';
		ok(n > 0 && n <= TXLOG_LINE_MAX && l[n - 1] == '\n' && cols == 13,
		   "every column at its longest (%zu bytes, %d columns) fits in TXLOG_LINE_MAX",
		   n, cols + 1);
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
	txrec_set_t3_wire(&r, INT64_MIN + 1);
	is_str(line(&r, &f),
	       "18446744073709551615 -9223372036.854775808 -9223372036.854775807"
	       " 1\n",
	       "reflector: INT64_MIN stamps");
	r.t2_wire = INT64_MAX - 2;
	txrec_set_t3_wire(&r, INT64_MAX);
	is_str(line(&r, &f),
	       "18446744073709551615 9223372036.854775805 9223372036.854775807"
	       " 2\n",
	       "reflector: INT64_MAX stamps");
	txrec_set_t3_wire(&r, INT64_MIN);
	is_str(line(&r, &f),
	       "18446744073709551615 9223372036.854775805 - -\n",
	       "reflector: T3 too far from T2 to be kept: -");
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
	r.t2_wire = INT64_MIN + 1;
	r.t2_sw = INT64_MIN + 3000000000ll;
	txrec_set_t3_sw(&r, INT64_MIN + 1000000001ll);
	txrec_set_t3_wire(&r, INT64_MIN + 1 + (int64_t)INT32_MAX);
	txrec_set_t4_wire(&r, INT64_MIN + (int64_t)INT32_MAX);
	txrec_set_t4_sw(&r, INT64_MIN + 1000000000ll);
	txrec_set_ack(&r, INT64_MIN + 2000000001ll);
	f = (struct txlog_fmt){ .emit = true, .sw = true, .peer = true, .ack = true,
				.sched = true, .lost = true };
	{
		const char *l = line(&r, &f);
		size_t n = strlen(l);

		ok(n > 250 && n <= TXLOG_LINE_MAX && l[n - 1] == '\n',
		   "longest line with ACK, SCHED and LOST (%zu bytes) fits in TXLOG_LINE_MAX", n);
	}
}

/* A log of the given kind; NULL after a failed check. */
static struct txlog *mklog(size_t cap, bool last, size_t window, bool huge)
{
	struct txlog_opts o = { .cap = cap, .window = window, .last = last,
				.hugepages = huge };

	return txlog_create(&o);
}

static void test_ring(void)
{
	const size_t cap = 5, k = 12;
	struct txlog *l = mklog(cap, true, 0, false);
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
	struct txlog *l = mklog(4, true, 0, false);
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
		struct txlog *e = mklog(2, true, 0, false);
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
	struct txlog *l = mklog(n, true, 0, false);
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
	l = mklog(100000, true, 0, true);	/* 6.4 MB */
	if (l) {
		ok(txlog_next(l) != NULL, "hugepage-backed log gives slots");
		txlog_destroy(l);
	} else {
		ok(errno != 0, "txlog_create with hugepages: NULL with errno set (%d)",
		   errno);
	}
}

/* The text size set-up checks free space against: counted by hand. */
static void test_text_bytes(void)
{
	struct txlog_fmt refl = { .emit = false };
	struct txlog_fmt all = { .emit = true, .sw = true, .peer = true, .ack = true };

	/* "SEQ T2_KN T3_KN RESPONSE" and its dashes: 50; a line:
	 * "1000 1700000000.000020000 1700000000.000032000 12000\n": 53 */
	is_u64(txlog_text_bytes(1000, &refl), 50 + 1000 * 53, "reflector, 1000 records");
	is_u64(txlog_text_bytes(0, &refl), 50, "no records: the header alone");
	/* 13 names, 82 characters: 166 of header; a line of 1 + 8 stamps of
	 * 21 + T_ACK's 21 + three latencies of 6 + newline: 209 */
	is_u64(txlog_text_bytes(7, &all), 166 + 7 * 209, "emitter with every column, 7 records");
	is_u64(txlog_text_bytes(10000000, &refl), 50 + 10000000ULL * 57,
	       "10 million records: the seq's 8 digits in each line");
	is_u64(txlog_text_bytes(UINT64_MAX / 10, &refl), UINT64_MAX, "too many to count: saturates");
}

/* ---- the streamed log: writer thread, window, drops, errors ---- */

/* Read all of fd (a pipe) into a buffer in a thread of its own. */
struct drain {
	int fd;
	char *buf;
	size_t len, cap;
};

static void *drain_run(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	for (;;) {
		if (d->len + 65536 > d->cap) {
			d->cap = d->cap ? 2 * d->cap : 1 << 20;
			d->buf = realloc(d->buf, d->cap);
			if (!d->buf)
				return NULL;
		}
		n = read(d->fd, d->buf + d->len, d->cap - d->len - 1);
		if (n <= 0)
			break;
		d->len += (size_t)n;
	}
	if (d->buf)
		d->buf[d->len] = 0;
	return NULL;
}

/*
 * The seqs of the lines of text (after the 2 header lines), in order:
 * their number, whether each is above the one before, and the T3 column
 * (column col, 1-based) of seq t3_seq in *t3 (0 when absent).
 */
static size_t scan_lines(const char *text, bool *rising, int col,
			 uint64_t t3_seq, char *t3, size_t t3_len)
{
	const char *p = text;
	uint64_t prev = 0;
	size_t n = 0, hdr = 0;

	*rising = true;
	t3[0] = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		uint64_t seq;

		if (!e)
			break;
		if (hdr < 2) {
			hdr++;
			p = e + 1;
			continue;
		}
		seq = strtoull(p, NULL, 10);
		if (n && seq <= prev)
			*rising = false;
		if (seq == t3_seq) {
			const char *c = p;

			for (int i = 1; i < col && c < e; i++)
				c = strchr(c, ' ') + 1;
			snprintf(t3, t3_len, "%.*s", (int)strcspn(c, " \n"), c);
		}
		prev = seq;
		n++;
		p = e + 1;
	}
	return n;
}

/*
 * Records in a shuffled order within the window, T3 patched by seq after
 * newer records came: the file has every record once, in seq order, the
 * patched stamp in its row, and the header first.
 */
static void test_stream_order(void)
{
	const uint64_t n = 30000;
	struct txlog_fmt f = { .emit = true, .peer = true };
	struct txlog *l = mklog(1 << 16, false, 64, false);
	struct drain d = { 0 };
	pthread_t tid;
	int pfd[2];
	bool rising, patched = true;
	char t3[64], want[64];
	size_t lines;

	if (!ok(l && !pipe(pfd), "streamed log and a pipe"))
		return;
	d.fd = pfd[0];
	pthread_create(&tid, NULL, drain_run, &d);
	is_int(txlog_start(l, pfd[1]), 0, "txlog_start: the writer runs");
	txlog_set_format(l, &f);
	/* Pairs swapped: 2 1 4 3 ...; each T3 patched two records later. */
	for (uint64_t s = 1; s <= n; s++) {
		struct txrec r;
		uint64_t seq = s % 2 ? s + 1 : s - 1;

		sample(&r);
		r.seq = seq;
		txrec_set_t3_wire(&r, TS_NONE);
		txlog_add(l, &r);
		if (s > 2 && !txlog_patch_t3(l, s - 2, S + 1000 + (int64_t)(s - 2)))
			patched = false;
	}
	ok(patched, "every T3 patched by seq while in the window");
	ok(!txlog_patch_t3(l, 1, S), "seq 1 has left the window: no patch");
	is_int(txlog_finish(l, &f), 0, "txlog_finish -> 0");
	close(pfd[1]);
	pthread_join(tid, NULL);
	is_u64(txlog_logged(l), n, "logged: every record");
	is_u64(txlog_dropped(l), 0, "dropped: none (the ring holds them all)");
	ok(d.buf && !strncmp(d.buf, "SEQ T1_KN T4_KN RTT T2_KN T3_KN RESPONSE\n", 41),
	   "the header comes first");
	lines = d.buf ? scan_lines(d.buf, &rising, 6, 777, t3, sizeof(t3)) : 0;
	is_u64(lines, n, "a line per record");
	ok(rising, "lines in seq order (the window sorted the swapped pairs)");
	snprintf(want, sizeof(want), "1700000000.000001777");
	is_str(t3, want, "seq 777's row has its patched T3");
	free(d.buf);
	txlog_destroy(l);
}

/*
 * A writer that cannot write (its pipe is not read) makes the ring fill:
 * the loop's records are dropped and counted, never waited for. Once the
 * pipe is read, the end writes what was queued and what the window held:
 * written + dropped == added.
 */
static void test_stream_drops(void)
{
	const uint64_t n = 20000;
	struct txlog_fmt f = { .emit = true };
	struct txlog *l = mklog(1024, false, 64, false);
	struct drain d = { 0 };
	pthread_t tid;
	int pfd[2];
	bool rising;
	char t3[8];
	size_t lines;

	if (!ok(l && !pipe(pfd), "streamed log of 1024 and a pipe"))
		return;
	is_int(txlog_start(l, pfd[1]), 0, "txlog_start");
	txlog_set_format(l, &f);
	for (uint64_t s = 1; s <= n; s++) {
		struct txrec r;

		sample(&r);
		r.seq = s;
		txlog_add(l, &r);
	}
	/* At most: the ring, the writer's chunk in hand, the pipe's 64 KiB
	 * (lines of about 60 bytes) and the window are not dropped. */
	ok(txlog_dropped(l) >= n - 1024 - 1024 - 65536 / 50 - 64,
	   "the unread pipe made %llu of %llu records drop",
	   (unsigned long long)txlog_dropped(l), (unsigned long long)n);
	ok(!txlog_failed(l), "a slow writer is no failed writer");
	d.fd = pfd[0];
	pthread_create(&tid, NULL, drain_run, &d);
	is_int(txlog_finish(l, &f), 0, "txlog_finish once the pipe is read -> 0");
	close(pfd[1]);
	pthread_join(tid, NULL);
	is_u64(txlog_logged(l) + txlog_dropped(l), n,
	       "written %llu + dropped %llu == added",
	       (unsigned long long)txlog_logged(l), (unsigned long long)txlog_dropped(l));
	lines = d.buf ? scan_lines(d.buf, &rising, 2, 0, t3, sizeof(t3)) : 0;
	is_u64(lines, txlog_logged(l), "the file has the lines written");
	ok(rising, "in seq order, with gaps where records dropped");
	ok(d.buf && strstr(d.buf, "\n20000 "), "the window's last record was written at the end");
	free(d.buf);
	txlog_destroy(l);
}

/* A write error (disk full): txlog_failed() says so to the loop, the
 * records go on being taken off the ring, txlog_finish returns it. */
static void test_stream_error(void)
{
	struct txlog_fmt f = { .emit = true };
	struct txlog *l = mklog(1024, false, 0, false);
	int full = open("/dev/full", O_WRONLY);
	int waited = 0;

	if (full < 0 || !l) {
		skip(4, "no /dev/full");
		txlog_destroy(l);
		return;
	}
	is_int(txlog_start(l, full), 0, "txlog_start on /dev/full");
	txlog_set_format(l, &f);
	for (uint64_t s = 1; s <= 100; s++) {
		struct txrec r;

		sample(&r);
		r.seq = s;
		txlog_add(l, &r);
	}
	while (!txlog_failed(l) && waited++ < 5000)
		usleep(1000);
	ok(txlog_failed(l), "txlog_failed() after the writer's first write");
	for (uint64_t s = 101; s <= 5000; s++) {
		struct txrec r;

		sample(&r);
		r.seq = s;
		txlog_add(l, &r);
	}
	is_int(txlog_finish(l, &f), -ENOSPC, "txlog_finish -> -ENOSPC");
	is_u64(txlog_logged(l), 0, "nothing counted as written");
	close(full);
	txlog_destroy(l);
}

/* A run that logged nothing still writes the header (from finish). */
static void test_stream_empty(void)
{
	struct txlog_fmt f = { .emit = false };
	struct txlog *l = mklog(1024, false, 0, false);
	char path[] = "/tmp/rant-txlog-XXXXXX";
	int fd = mkstemp(path);
	char got[256];
	ssize_t gn;

	if (!l || fd < 0) {
		fail("txlog and mkstemp");
		return;
	}
	is_int(txlog_start(l, fd), 0, "txlog_start");
	is_int(txlog_finish(l, &f), 0, "txlog_finish with no record");
	gn = pread(fd, got, sizeof(got) - 1, 0);
	got[gn > 0 ? gn : 0] = 0;
	is_str(got, hdr_of("SEQ T2_KN T3_KN RESPONSE"), "empty streamed log: header only");
	close(fd);
	unlink(path);
	txlog_destroy(l);
}

int main(void)
{
	test_text_bytes();
	test_ack_columns();
	test_lost_column();
	ok(sizeof(struct txrec) <= 64, "sizeof(struct txrec) %zu <= 64",
	   sizeof(struct txrec));
	test_stamp_names();
	test_header();
	test_lines();
	test_extreme();
	test_ring();
	test_write();
	test_big();
	test_huge();
	test_stream_order();
	test_stream_drops();
	test_stream_error();
	test_stream_empty();
	return done_testing();
}
