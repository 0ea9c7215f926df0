/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/stamppeer.h: loss by direction from a STAMP reflector's
 * replies: its own numbers (a stateful reflector's) or its Direct
 * Measurement counters, and none from a stateless reflector's numbers,
 * which are the sender's.
 */
#include <string.h>

#include "stamppeer.h"
#include "tap.h"

/* Pings 1..10; lost_fwd and lost_back: bits of the seqs lost each way.
 * The reflector numbers its replies (stateful) or echoes the seq (its
 * number seq - 1, as STAMP's from 0), counts with Direct Measurement
 * when dm. */
static void run(struct stamppeer *sp, unsigned int lost_fwd, unsigned int lost_back,
		bool stateful, bool dm)
{
	uint32_t rx = 0, tx = 0;

	memset(sp, 0, sizeof(*sp));
	for (uint64_t seq = 1; seq <= 10; seq++) {
		struct msg_body b = { .has_dm = dm };

		if (lost_fwd & 1u << seq)
			continue;
		b.pong_no = stateful ? tx : seq - 1;
		rx++;
		tx++;
		b.dm_s_tx = (uint32_t)seq;
		b.dm_r_rx = rx;
		b.dm_r_tx = tx;
		if (!(lost_back & 1u << seq))
			stamppeer_reply(sp, seq, &b);
	}
}

static void test_numbers(void)
{
	struct stamppeer sp;
	struct stamp_loss_dir l;

	run(&sp, 1u << 4 | 1u << 5, 0, true, false);
	stamppeer_loss(&sp, 2, 0, &l);
	ok(l.from && !strcmp(l.from, "reflector_numbers") && l.forward == 2 && l.backward == 0 &&
	   l.other == 0, "stateful, 4 and 5 lost on the way there: forward 2");
	run(&sp, 0, 1u << 3 | 1u << 4, true, false);
	stamppeer_loss(&sp, 2, 0, &l);
	ok(!l.from && l.why, "stateful, 3 and 4 lost on the way back, no follow-up: its numbers are the sender's, unknown");
	sp.followups = 5;
	stamppeer_loss(&sp, 2, 0, &l);
	ok(l.from && l.forward == 0 && l.backward == 2,
	   "... with follow-ups (a stateful reflector): backward 2");
	run(&sp, 1u << 2, 1u << 10, true, false);
	stamppeer_loss(&sp, 2, 0, &l);
	ok(l.forward == 1 && l.backward == 0 && l.other == 1,
	   "one lost each way, the last reply's after the last reply came: forward 1, other 1");
	run(&sp, 1u << 4 | 1u << 5, 0, false, false);
	stamppeer_loss(&sp, 2, 0, &l);
	ok(!l.from, "stateless (the sender's numbers), no Direct Measurement: unknown");
}

static void test_direct(void)
{
	struct stamppeer sp;
	struct stamp_loss_dir l;

	run(&sp, 1u << 4 | 1u << 5, 1u << 8, false, true);
	stamppeer_loss(&sp, 3, 0, &l);
	ok(l.from && !strcmp(l.from, "direct_measurement") && l.forward == 2 && l.backward == 1 &&
	   l.other == 0, "stateless with Direct Measurement: forward 2, backward 1");
	run(&sp, 0, 0, false, true);
	stamppeer_loss(&sp, 0, 0, &l);
	ok(l.from && !l.forward && !l.backward && !l.other, "no loss: 0, 0, 0");
	run(&sp, 1u << 4, 1u << 6 | 1u << 7, false, true);
	stamppeer_loss(&sp, 3, 1, &l);
	ok(l.forward == 1 && l.backward == 1 && l.other == 0,
	   "two pongs missed, one of them came late: backward 1");
}

int main(void)
{
	test_numbers();
	test_direct();
	return done_testing();
}
