/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/openloop.h: the in-flight table of open-loop pacing (sizing, slots
 * by seq, in-order retirement, a full table, failed sends) and the loss
 * tracking (longest burst, reordering).
 */
#include <stdint.h>

#include "openloop.h"
#include "tap.h"

#define MS 1000000ll
#define US 1000ll

static void test_slots(void)
{
	is_int(ol_slots(100 * MS, 1 * MS), 256, "100 ms / 1 ms: 102 pings a lifetime, twice that -> 256");
	is_int(ol_slots(100 * MS, 100 * US), 2048, "100 ms / 100 us: 1002 -> 2048");
	is_int(ol_slots(1 * MS, 1000 * MS), 4, "interval above the lifetime: still room for 4");
	is_int(ol_slots(1000 * MS, 15 * US), 0, "1 s / 15 us: above OL_MAX_SLOTS, refused");
	ok(ol_slots(1000 * MS, 16 * US) > 0 && ol_slots(1000 * MS, 16 * US) <= OL_MAX_SLOTS,
	   "1 s / 16 us: fits OL_MAX_SLOTS");
	is_int(ol_slots(100 * MS, 0), 0, "interval 0 (back to back) has no table");
}

static void test_put_get(void)
{
	struct ol_table t;
	struct ol_entry *x;

	if (!ok(ol_create(&t, 8, false) == 0, "create 8 slots"))
		return;
	ok(ol_create(&(struct ol_table){ 0 }, 6, false) != 0, "6 slots (not a power of two) refused");
	ol_reset(&t, 101);
	ok(ol_empty(&t) && !ol_oldest(&t), "a reset table is empty");
	for (uint64_t s = 101; s <= 108; s++)
		ol_put(&t, s);
	is_int(t.inflight, 8, "8 pings in flight");
	x = ol_get(&t, 104);
	ok(x && x->rec.seq == 104 && x->state == OL_SENT, "seq 104 found, sent");
	ok(!ol_get(&t, 100) && !ol_get(&t, 109) && !ol_get(&t, 104 + 8),
	   "seqs never put are not found (not even in 104's slot)");
	ok(!ol_room(&t, 109), "full: no room for seq 109 (101's slot)");
	ok(!ol_put(&t, 109), "full: seq 109 would take 101's slot, refused");
	ok(!ol_put(&t, 105), "a seq already put is refused");

	/* 103 answered first: it waits for 101 and 102 */
	x = ol_get(&t, 103);
	x->state = OL_ANSWERED;
	ol_landed(&t);
	x = ol_oldest(&t);
	ok(x && x->rec.seq == 101, "the oldest is 101, not the answered 103");
	ol_retire(&t, x);
	ol_landed(&t);
	x = ol_oldest(&t);
	ok(x && x->rec.seq == 102, "then 102");
	ol_retire(&t, x);
	ol_landed(&t);
	x = ol_put(&t, 109);
	ok(x && x->rec.seq == 109 && x->rec.t1_wire == TS_NONE &&
	   x->rec.t4_wire_d == TXREC_NO_DELTA, "109 takes 101's slot, cleared");
	ok(!ol_get(&t, 101), "101 is gone from its slot");
	is_int(t.inflight_max, 8, "in flight at most 8");
	is_int(t.inflight, 6, "6 in flight now (103 answered, 101-102 retired, 109 sent)");
	ol_destroy(&t);
}

/* A seq whose send failed never enters: the oldest skips it. */
static void test_gap(void)
{
	struct ol_table t;
	struct ol_entry *x;

	if (!ok(ol_create(&t, 4, false) == 0, "create 4 slots"))
		return;
	ol_reset(&t, 1);
	ol_put(&t, 1);
	ol_put(&t, 3);		/* 2: send failed */
	x = ol_oldest(&t);
	ol_retire(&t, x);
	x = ol_oldest(&t);
	ok(x && x->rec.seq == 3, "after 1, the oldest is 3: 2 never entered");
	ok(ol_put(&t, 6) != NULL, "6 takes 2's slot, free all along");
	ok(!ol_put(&t, 7), "7 would take 3's slot: refused");
	ol_retire(&t, x);
	x = ol_oldest(&t);
	ok(x && x->rec.seq == 6, "then 6 (4 and 5 never entered)");
	ol_retire(&t, x);
	ok(ol_empty(&t) && !ol_oldest(&t), "empty again");
	ol_destroy(&t);
}

static void test_burst(void)
{
	struct loss_track l = { 0 };
	/* 1 = lost, in seq order: bursts of 1, 3, 2 */
	static const int seq[] = { 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0 };

	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (seq[i])
			loss_lost(&l);
		else
			loss_received(&l);
	}
	is_int(l.burst_max, 3, "longest burst of losses: 3");
	is_int(l.burst, 0, "no burst running at the end");
	loss_lost(&l);
	loss_lost(&l);
	loss_lost(&l);
	loss_lost(&l);
	is_int(l.burst_max, 4, "a run that ends the run counts too: 4");
}

static void test_reorder(void)
{
	struct loss_track l = { 0 };
	/* arrival order */
	static const uint64_t arr[] = { 1, 2, 4, 3, 5, 8, 6, 7, 9 };
	int flagged = 0;

	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++)
		flagged += loss_arrived(&l, arr[i]);
	is_int(l.reordered, 3, "3, 6 and 7 came after a later seq's pong");
	is_int(flagged, 3, "loss_arrived says so for each");
	ok(!loss_arrived(&l, 10), "in order again: not reordered");
}

int main(void)
{
	test_slots();
	test_put_get();
	test_gap();
	test_burst();
	test_reorder();
	return done_testing();
}
