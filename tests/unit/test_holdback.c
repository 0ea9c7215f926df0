/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/log/holdback.h: the log's hold-back window: records leave in seq
 * order when newer ones push them out, records come in any order within
 * the window, a record is patched by seq while held, a record older
 * than the window goes on at once, long gaps, flush at the end.
 */
#include <stdlib.h>

#include "holdback.h"
#include "record.h"
#include "tap.h"

/* What the window handed on, in order. */
static uint64_t out_seq[100000];
static int64_t out_t3[100000];
static size_t nout;

static void collect(void *ctx, const struct txrec *r)
{
	(void)ctx;
	if (nout < sizeof(out_seq) / sizeof(out_seq[0])) {
		out_seq[nout] = r->seq;
		out_t3[nout] = r->t1_wire;
	}
	nout++;
}

static void add(struct holdback *w, uint64_t seq)
{
	struct txrec r;

	txrec_clear(&r);
	r.seq = seq;
	holdback_add(w, &r);
}

static bool rising(size_t from, size_t to)
{
	for (size_t i = from + 1; i < to; i++)
		if (out_seq[i] <= out_seq[i - 1])
			return false;
	return true;
}

static void test_order(void)
{
	struct holdback *w = holdback_create(64, false, collect, NULL);

	nout = 0;
	if (!ok(w != NULL, "holdback_create(64)"))
		return;
	for (uint64_t s = 1; s <= 64; s++)
		add(w, s);
	is_u64(nout, 0, "64 records in a window of 64: none leaves");
	is_u64(holdback_held(w), 64, "64 held");
	add(w, 65);
	is_u64(nout, 1, "the 65th pushes one out");
	is_u64(out_seq[0], 1, "the oldest, seq 1");
	/* Out of order within the window: 70 before 66..69. */
	add(w, 70);
	add(w, 67);
	add(w, 66);
	add(w, 69);
	add(w, 68);
	holdback_flush(w);
	is_u64(holdback_held(w), 0, "nothing held after flush");
	is_u64(nout, 70, "70 records handed on");
	ok(rising(0, nout), "in seq order, whatever order they came in");
	holdback_destroy(w);
}

static void test_patch(void)
{
	struct holdback *w = holdback_create(64, false, collect, NULL);
	struct txrec *r;

	nout = 0;
	if (!w)
		return;
	add(w, 10);
	add(w, 11);
	r = holdback_find(w, 10);
	ok(r && r->seq == 10, "find seq 10 while held");
	if (r)
		r->t1_wire = 12345;	/* patched in place */
	ok(holdback_find(w, 12) == NULL, "seq 12 was never added: not found");
	ok(holdback_find(w, 9) == NULL, "seq 9 is below: not found");
	add(w, 10 + 64);
	is_u64(nout, 1, "seq 74 pushes seq 10 out");
	is_i64(out_t3[0], 12345, "seq 10 left with what was patched in it");
	ok(holdback_find(w, 10) == NULL, "gone: no more patching");
	ok(holdback_find(w, 11) != NULL, "seq 11 still held");
	holdback_destroy(w);
}

static void test_late_and_gap(void)
{
	struct holdback *w = holdback_create(100, false, collect, NULL);

	nout = 0;
	if (!w)
		return;
	/* 100 rounds up to 128. */
	add(w, 1);
	add(w, 128);
	is_u64(nout, 0, "window of 128 (100 rounded up): 1 and 128 both held");
	add(w, 129);
	is_u64(nout, 1, "129 pushes 1 out");
	add(w, 1);
	is_u64(holdback_late(w), 1, "seq 1 again, below the window: late");
	is_u64(nout, 2, "... and handed on at once");
	/* A gap of a billion seqs: everything held leaves, in order. */
	add(w, 1000000000ULL);
	is_u64(nout, 4, "a long gap hands on 128 and 129");
	ok(out_seq[2] == 128 && out_seq[3] == 129, "in order");
	is_u64(holdback_held(w), 1, "only the newest held");
	/* The same seq twice: the first copy goes on, the second is held. */
	add(w, 1000000000ULL);
	is_u64(nout, 5, "a second copy of a held seq hands the first on");
	holdback_flush(w);
	is_u64(nout, 6, "flush hands on the second");
	holdback_destroy(w);
}

/* Many records in a shuffled order within the window: each once, sorted. */
static void test_shuffle(void)
{
	const size_t n = 50000, win = 256;
	struct holdback *w = holdback_create(win, false, collect, NULL);
	uint64_t *seq = malloc(n * sizeof(*seq));
	unsigned int x = 12345;

	nout = 0;
	if (!w || !seq)
		return;
	for (size_t i = 0; i < n; i++)
		seq[i] = i + 1;
	/* Shuffled within blocks of win/2: each comes less than a window
	 * after its place. */
	for (size_t b = 0; b < n; b += win / 2) {
		size_t len = n - b < win / 2 ? n - b : win / 2;

		for (size_t i = len - 1; i > 0; i--) {
			size_t j;
			uint64_t t;

			x = x * 1103515245 + 12345;
			j = (x >> 16) % (i + 1);
			t = seq[b + i];
			seq[b + i] = seq[b + j];
			seq[b + j] = t;
		}
	}
	for (size_t i = 0; i < n; i++)
		add(w, seq[i]);
	holdback_flush(w);
	is_u64(nout, n, "%zu shuffled records: each handed on once", n);
	ok(rising(0, nout < n ? nout : n), "in seq order");
	is_u64(holdback_late(w), 0, "none came later than the window");
	free(seq);
	holdback_destroy(w);
}

int main(void)
{
	test_order();
	test_patch();
	test_late_and_gap();
	test_shuffle();
	return done_testing();
}
