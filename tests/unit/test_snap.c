// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/print/snap.h: a final snapshot holds what the run measured (counts,
 * statistics and percentiles, the histogram, the breaches' breakdowns),
 * rendered without the run; a live one is taken from another thread
 * while a writer adds samples, as a metrics exporter would: its counts
 * never go backwards and its percentiles stay within min and max.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "snap.h"
#include "tap.h"

#define LIVE_SAMPLES 2000000

static struct rant_cfg cfg = {
	.mode = MODE_EMIT, .iface = "lo", .bucket_ns = 1000, .overflow_ns = 100000,
	.threshold_ns = 5000, .size = 72,
};
static struct run run;
static atomic_bool writer_done;
static atomic_uint_fast64_t snaps_taken;

/* The loop's part: samples and counts, no lock. Halfway it waits for a
 * snapshot (a loaded machine may not run the reader before the writer is
 * done), so at least one is taken during the writes. */
static void *writer(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; i <= LIVE_SAMPLES; i++) {
		if (i == LIVE_SAMPLES / 2)
			while (!atomic_load(&snaps_taken))
				sched_yield();
		hist_add(run.hist[M_RTT], 1000 + (int64_t)(i % 5000), i);
		run.cnt.sent = i;
		run.cnt.received = i;
	}
	atomic_store(&writer_done, true);
	return NULL;
}

static void test_live(void)
{
	uint64_t last = 0, last_sent = 0, snaps = 0;
	bool monotonic = true, bounded = true, absent = true;
	pthread_t t;

	if (pthread_create(&t, NULL, writer, NULL))
		BAIL_OUT("pthread_create failed");
	while (!atomic_load(&writer_done)) {
		struct snap *s = snap_build(&run, SNAP_LIVE);
		const struct snap_stats *st;

		if (!s)
			BAIL_OUT("snap_build failed");
		st = &s->metric[M_RTT];
		if (st->st.samples < last || s->cnt.sent < last_sent)
			monotonic = false;
		last = st->st.samples;
		last_sent = s->cnt.sent;
		for (int i = 0; i < SNAP_NPCT && st->st.samples; i++)
			if (st->pct[i] < 1000 || st->pct[i] > 5999)
				bounded = false;
		if (s->have_clock || s->have_sessions || s->have_series || s->nbreach ||
		    s->have_log || s->stop_reason)
			absent = false;
		snap_free(s);
		atomic_store(&snaps_taken, ++snaps);
	}
	pthread_join(t, NULL);
	ok(monotonic, "live: %" PRIu64 " snapshots during the writes, samples and counts never go backwards",
	   snaps);
	ok(bounded, "live: every percentile within the values written");
	ok(absent, "live: nothing that only the end of the run may read");
}

static void test_final(void)
{
	static struct breach kept[1];
	struct snap *s;

	run.breach = kept;
	run.nbreach = 1;
	run.breach[0].latency_ns = 9000;
	run.breach[0].rec.seq = 77;
	s = snap_build(&run, SNAP_FINAL);
	if (!ok(s != NULL, "final: built"))
		return;
	is_int((long long)s->metric[M_RTT].st.samples, LIVE_SAMPLES, "final: every sample");
	ok(llabs(s->metric[M_RTT].pct[0] - 3500) <= 4, "final: p50 of 1000..5999 ns within 0.1%% (%"
	   PRId64 ")", s->metric[M_RTT].pct[0]);
	ok(s->shown[M_RTT] && s->primary == M_RTT, "final: rtt is the primary metric, shown");
	is_int((long long)s->hist.n, 5, "final: the linear histogram's 5 non-empty 1 us buckets");
	ok(s->hist.b[0].lo_ns == 1000 && s->hist.b[0].count == LIVE_SAMPLES / 5,
	   "final: first bucket 1000 ns, a fifth of the samples");
	ok(s->nbreach == 1 && s->breach[0].rec.seq == 77 && s->breach_ctx.threshold_ns == 5000,
	   "final: the breach and its threshold");
	ok(s->stop_reason == NULL && !s->have_log, "final: no stop reason set, no log");
	snap_free(s);
}

int main(void)
{
	run.cfg = &cfg;
	run.sk.fd = -1;
	run.hist[M_RTT] = hist_create(cfg.bucket_ns, cfg.overflow_ns, false);
	if (!run.hist[M_RTT])
		BAIL_OUT("hist_create failed");
	test_live();
	test_final();
	hist_destroy(run.hist[M_RTT]);
	return done_testing();
}
