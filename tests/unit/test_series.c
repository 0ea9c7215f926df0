/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/series.h: the interval reports with a fake clock (which interval
 * an event counts in, a closed interval, a reporter a ring behind, the
 * last partial interval), the lines, the small histogram (hist.h) and,
 * with a real clock, the reporter thread.
 */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "series.h"
#include "tap.h"
#include "timeutil.h"

#define SEC NS_PER_SEC
#define MS NS_PER_MS
#define T0 (1000 * SEC)		/* the fake clock's start of measuring */
/* The fake CLOCK_REALTIME of the fake CLOCK_MONOTONIC t: sends carry T1_SW. */
#define RT(t) ((t) + 1700000000 * SEC)

static const struct series_row *row(const struct series *s, size_t i)
{
	static const struct series_row none;
	const struct series_row *r = series_row(s, i);

	return r ? r : &none;
}

/* Sent, received, lost and late of row i as "s/r/l/l". */
static const char *counts(const struct series *s, size_t i)
{
	static char buf[4][64];
	static int n;
	const struct series_row *r = row(s, i);
	char *b = buf[n++ % 4];

	snprintf(b, 64, "%llu/%llu/%llu/%llu", (unsigned long long)r->sent,
		 (unsigned long long)r->received, (unsigned long long)r->lost,
		 (unsigned long long)r->late);
	return b;
}

static void test_interval_index(void)
{
	struct series *s = series_create(SEC, 100 * MS, 1, "rtt", false);

	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0));
	series_sent(s, 2, RT(T0 + SEC - 1));
	series_sent(s, 3, RT(T0 + SEC));
	series_sent(s, 4, RT(T0 + 2 * SEC + SEC / 2));
	is_u64(series_close_due(s, T0 + SEC + 100 * MS - 1), 0,
	       "interval 0 stays open until its end plus settle_ns");
	is_u64(series_close_due(s, T0 + SEC + 100 * MS), 1, "then it closes");
	is_str(counts(s, 0), "2/0/0/0", "[0 s, 1 s) holds the sends at 0 and 1 s - 1 ns");
	is_u64(series_close_due(s, T0 + 3 * SEC + 100 * MS), 2, "two more close at 3.1 s");
	is_str(counts(s, 1), "1/0/0/0", "the send at 1 s exactly opens [1 s, 2 s)");
	is_str(counts(s, 2), "1/0/0/0", "the one at 2.5 s is in [2 s, 3 s)");
	is_i64(row(s, 2)->t_ns, 2 * SEC, "t_ns is the interval's start since measuring began");
	is_i64(row(s, 2)->duration_ns, SEC, "a whole interval lasts -I");
	series_destroy(s);
}

static void test_loss_and_late_attribution(void)
{
	struct series *s = series_create(SEC, 100 * MS, 1, "rtt", false);

	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0 + 900 * MS));
	series_received(s, 1, 20000);
	series_sent(s, 2, RT(T0 + 950 * MS));	/* in flight across the boundary */
	series_sent(s, 3, RT(T0 + 1050 * MS));
	series_lost(s, 2);			/* found lost at 1.05 s */
	series_received(s, 3, 30000);
	series_late(s, RT(T0 + 1060 * MS));	/* seq 2's pong, seen at 1.06 s */
	series_close_due(s, T0 + 2 * SEC + 100 * MS);
	is_u64(series_nrows(s), 2, "two intervals");
	is_str(counts(s, 0), "2/1/1/0", "a loss counts in the interval of its ping's send");
	is_str(counts(s, 1), "1/1/0/1", "a late pong once, as late, in the interval it was seen in");
	is_u64(row(s, 0)->in_flight, 0, "every ping of the interval resolved: none in flight");
	is_i64(row(s, 0)->p50, 20000, "an interval's samples are its own pings'");
	is_i64(row(s, 1)->max, 30000, "and the next one's");
	series_destroy(s);
}

static void test_late_after_close(void)
{
	struct series *s = series_create(SEC, 100 * MS, 1, "rtt", false);

	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0 + 950 * MS));
	series_lost(s, 1);
	series_close_due(s, T0 + 1100 * MS);	/* the latest send's interval read */
	series_late(s, RT(T0 + 1200 * MS));	/* seq 1's pong, seen at 1.2 s */
	series_close_due(s, T0 + 2100 * MS);
	is_str(counts(s, 1), "0/0/0/1", "a late pong seen after its ping's interval closed: in the open one");
	is_u64(series_missed(s), 0, "none missed");
	series_destroy(s);
}

static void test_closed_interval(void)
{
	struct series *s = series_create(SEC, 100 * MS, 1, "rtt", false);

	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0 + 500 * MS));
	series_close_due(s, T0 + 1100 * MS);	/* the loop was held up */
	series_received(s, 1, 5000);
	series_sent(s, 2, RT(T0 + 1200 * MS));
	series_close_due(s, T0 + 2100 * MS);
	is_str(counts(s, 0), "1/0/0/0", "nothing is added to an interval once it was read");
	is_u64(row(s, 0)->in_flight, 1, "its ping unresolved when reported: in flight");
	is_str(counts(s, 1), "1/0/0/0", "the pong is not counted in another interval (sent >= received + lost)");
	is_u64(series_missed(s), 1, "it is left out, and counted missed");
	series_destroy(s);
}

static void test_ring_overrun(void)
{
	struct series *s = series_create(SEC, 0, 1, "rtt", false);
	uint64_t seq = 0;

	series_begin(s, T0, RT(T0));
	/* The reporter sleeps for 20 intervals: the ring holds 8 (settle 0). */
	for (int k = 0; k < 20; k++)
		series_sent(s, ++seq, RT(T0 + k * SEC));
	ok(series_missed(s) > 0, "a reporter a ring behind: events are missed (%llu)",
	   (unsigned long long)series_missed(s));
	series_close_due(s, T0 + 20 * SEC);
	is_u64(series_nrows(s), 20, "every interval still gets its row");
	{
		uint64_t sent = 0;

		for (size_t i = 0; i < series_nrows(s); i++)
			sent += row(s, i)->sent;
		is_u64(sent + series_missed(s), 20, "and rows plus missed are every event");
	}
	series_sent(s, ++seq, RT(T0 + 20 * SEC));
	series_finish(s, T0 + 21 * SEC);
	is_str(counts(s, 20), "1/0/0/0", "once it catches up, the slots serve again");
	series_destroy(s);
}

static void test_last_interval(void)
{
	struct series *s = series_create(SEC, 100 * MS, 1, "rtt", false);

	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0 + 100 * MS));
	series_sent(s, 2, RT(T0 + 2400 * MS));
	series_finish(s, T0 + 2500 * MS);
	is_u64(series_nrows(s), 3, "finish closes every interval up to the end");
	is_i64(row(s, 2)->duration_ns, 500 * MS, "the last one is partial");
	is_str(counts(s, 1), "0/0/0/0", "an interval without an event still has its row");
	series_destroy(s);

	s = series_create(SEC, 100 * MS, 1, "rtt", false);
	series_begin(s, T0, RT(T0));
	series_sent(s, 1, RT(T0 + 2900 * MS));
	series_finish(s, T0 + 3 * SEC + 50 * MS);
	is_u64(series_nrows(s), 3, "an empty last sliver under -I / 10 is not reported");
	series_destroy(s);

	s = series_create(SEC, 100 * MS, 1, "rtt", false);
	series_finish(s, T0 + 3 * SEC);
	is_u64(series_nrows(s), 0, "nothing measured: no rows");
	series_destroy(s);
}

/* A pong of a ping sent long before (many in flight, open loop): its
 * interval is remembered when the seq map holds twice the pings in flight. */
static void test_in_flight(void)
{
	for (int big = 0; big < 2; big++) {
		struct series *s = series_create(SEC, 100 * MS, big ? 100000 : 1, "rtt", false);
		uint64_t seq;

		series_begin(s, T0, RT(T0));
		for (seq = 1; seq <= 50000; seq++)
			series_sent(s, seq, RT(T0 + 500 * MS));
		for (; seq <= 100000; seq++)
			series_sent(s, seq, RT(T0 + 1500 * MS));
		series_received(s, 1, 1000);
		series_finish(s, T0 + 2 * SEC);
		if (big)
			is_u64(row(s, 0)->received, 1, "100000 in flight: a pong 99999 sends later counts where its ping was sent");
		else
			ok(row(s, 1)->received == 0 && row(s, 0)->received == 0 &&
			   series_missed(s) == 1,
			   "beyond the seq map: left out (missed), never counted in another interval");
		series_destroy(s);
	}
}

static void test_reflector(void)
{
	struct series *s = series_create(500 * MS, 0, 1, "response", false);

	series_begin(s, T0, RT(T0));
	series_answered(s, T0 + 10 * MS, true, 3000);
	series_answered(s, T0 + 20 * MS, false, 4000);
	series_answered(s, T0 + 600 * MS, true, SERIES_NO_VALUE);
	series_finish(s, T0 + SEC);
	is_str(counts(s, 0), "1/2/0/0", "received every answered ping, sent each pong that left");
	is_u64(row(s, 0)->samples, 2, "both with a value sampled");
	is_u64(row(s, 1)->samples, 0, "one without a value (a stamp missing) is not");
	series_destroy(s);
}

static void test_percentiles(void)
{
	struct series *s = series_create(SEC, 0, 1, "rtt", false);
	const struct series_row *r;

	series_begin(s, T0, RT(T0));
	for (uint64_t i = 1; i <= 1000; i++) {
		series_sent(s, i, RT(T0 + (int64_t)i));
		series_received(s, i, (int64_t)i * 1000 + 7);
	}
	series_finish(s, T0 + SEC);
	r = row(s, 0);
	is_i64(r->min, 1007, "min exact");
	is_i64(r->max, 1000007, "max exact");
	ok(r->p50 >= 500007 && r->p50 <= 500007 + 500007 / 128,
	   "p50 at or above the exact 500007 by under 0.8%% (%lld)", (long long)r->p50);
	ok(r->p99 >= 990007 && r->p99 <= 990007 + 990007 / 128,
	   "p99 at or above the exact 990007 by under 0.8%% (%lld)", (long long)r->p99);
	series_destroy(s);
}

static void test_small_hist(void)
{
	static uint32_t c[HIST_SMALL_COUNTS];
	bool ordered = true, within = true;
	size_t prev = 0;

	is_u64(hist_small_index(-5), 0, "negative values count as 0");
	is_u64(hist_small_index(255), 255, "exact below 256");
	is_u64(hist_small_index(INT64_MAX), HIST_SMALL_COUNTS - 1, "huge values in the top bucket");
	for (int64_t v = 1; v < ((int64_t)1 << 40); v += v / 7 + 1) {
		size_t i = hist_small_index(v);
		int64_t hi;

		ordered &= i >= prev;
		prev = i;
		memset(c, 0, sizeof(c));
		c[i] = 1;
		hi = hist_small_percentile(c, 1, 50, 0, INT64_MAX);
		within &= hi >= v && hi - v <= v / 128;
	}
	ok(ordered, "buckets in the order of their values");
	ok(within, "a bucket's top is its values' within 1/128");
	is_i64(hist_small_percentile(c, 0, 50, 0, 0), 0, "no samples: 0");
}

static void test_lines(void)
{
	struct series_row r = { .t_ns = 1500 * MS, .duration_ns = 500 * MS, .sent = 200,
				.received = 190, .lost = 10, .late = 3, .samples = 190,
				.min = 11200, .p50 = 12960, .p99 = 20000, .max = 48100 };
	char line[256], head[256];

	series_format_header("rtt", head, sizeof(head));
	series_format_row(&r, line, sizeof(line));
	ok(strstr(head, "(rtt, us)") != NULL, "the header names the metric and unit");
	is_str(line, "1.50-2.00             200       190      10       0    5.00      3      11.2      13.0      20.0      48.1",
	       "a line: interval, counts, in flight, loss %%, latencies in us");
	ok(strlen(line) <= strlen(head), "the columns fit under the header");
	r.samples = 0;
	series_format_row(&r, line, sizeof(line));
	ok(strstr(line, "      -         -         -         -") != NULL,
	   "without samples the latencies are '-'");
}

/* The reporter thread, real clock: lines while the "loop" goes on. */
static void test_thread(void)
{
	struct series *s = series_create(20 * MS, 5 * MS, 1, "rtt", false);
	char *text = NULL, err[200];
	size_t len = 0, nlines = 0;
	FILE *out = open_memstream(&text, &len);
	uint64_t seq = 0, sent = 0, rows_sent = 0, rows_recv = 0;
	int64_t t0, end, fin;

	if (!ok(s && out && series_start(s, out, err, sizeof(err)) == 0, "the reporter starts"))
		return;
	note("reporter on %s", series_cpus(s));
	t0 = monotonic_ns();
	series_begin(s, t0, realtime_ns());
	end = t0 + 200 * MS;
	while (monotonic_ns() < end) {
		series_sent(s, ++seq, realtime_ns());
		series_received(s, seq, 10000);
		sent++;
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	fin = monotonic_ns();
	series_finish(s, fin);
	for (size_t i = 0; i < series_nrows(s); i++) {
		rows_sent += row(s, i)->sent;
		rows_recv += row(s, i)->received;
	}
	fclose(out);
	for (char *p = text; p && *p; p++)
		nlines += *p == '\n';
	ok(series_nrows(s) == (size_t)((fin - t0) / (20 * MS)) ||
	   series_nrows(s) == (size_t)((fin - t0) / (20 * MS)) + 1,
	   "a row per 20 ms up to the end, the last partial (%zu in %lld ns)",
	   series_nrows(s), (long long)(fin - t0));
	is_u64(rows_sent, sent - series_missed(s), "the rows' sent add up to the sends");
	is_u64(rows_recv, sent - series_missed(s), "and received to the pongs");
	is_u64(series_missed(s), 0, "nothing missed");
	is_u64(nlines, series_nrows(s) + 1, "a header and a line per row were printed");
	free(text);
	series_destroy(s);
}

/*
 * The loop and the reporter racing: 1 ms intervals closed at once
 * (settle 0), events back to back, each pong counted for a ping sent a
 * few events before (often in an interval closed since). Nothing may be
 * lost or counted twice: rows plus missed are every event.
 */
static void test_thread_race(void)
{
	struct series *s = series_create(MS, 0, 1, "rtt", false);
	uint64_t seq = 0, rows_sent = 0, rows_recv = 0, recv = 0;
	bool within = true, adds_up = true;
	char err[200];
	int64_t t0, end, fin;

	if (!ok(s && series_start(s, NULL, err, sizeof(err)) == 0, "race: the reporter starts"))
		return;
	t0 = monotonic_ns();
	series_begin(s, t0, realtime_ns());
	end = t0 + 300 * MS;
	while (monotonic_ns() < end) {
		series_sent(s, ++seq, realtime_ns());
		if (seq > 8) {
			series_received(s, seq - 8, 1000 + (int64_t)(seq & 1023));
			recv++;
		}
	}
	fin = monotonic_ns();
	series_finish(s, fin);
	for (size_t i = 0; i < series_nrows(s); i++) {
		const struct series_row *r = row(s, i);

		rows_sent += r->sent;
		rows_recv += r->received;
		within &= r->received + r->lost <= r->sent;
		adds_up &= r->received + r->lost + r->in_flight == r->sent;
	}
	ok(within, "race: no row received or lost more than it sent (loss at most 100%%)");
	ok(adds_up, "race: every row's sent = received + lost + in flight");
	note("race: %llu sends, %zu rows, %llu missed", (unsigned long long)seq,
	     series_nrows(s), (unsigned long long)series_missed(s));
	is_u64(rows_sent + rows_recv + series_missed(s), seq + recv,
	       "race: rows plus missed are every event, none twice");
	ok(series_nrows(s) == (size_t)((fin - t0) / MS) ||
	   series_nrows(s) == (size_t)((fin - t0) / MS) + 1,
	   "race: a row per 1 ms up to the end, the last partial (%zu in %lld ns)",
	   series_nrows(s), (long long)(fin - t0));
	series_destroy(s);
}

/* A run of months: the rows kept stop at SERIES_ROWS_MAX, the rest are
 * counted (printed, not kept), so the memory stays flat. */
static void test_rows_bounded(void)
{
	struct series *s = series_create(MS, 0, 1, "rtt", false);
	size_t n = SERIES_ROWS_MAX + 1000, closed = 0;

	series_begin(s, T0, RT(T0));
	for (size_t i = 0; i < n; i++) {
		series_sent(s, i + 1, RT(T0 + (int64_t)i * MS));
		closed += series_close_due(s, T0 + (int64_t)i * MS);
	}
	ok(closed > SERIES_ROWS_MAX, "%zu intervals closed", closed);
	is_u64(series_missed(s), 0, "every send in an interval");
	is_u64(series_nrows(s), SERIES_ROWS_MAX, "at most SERIES_ROWS_MAX rows kept");
	is_u64(series_rows_dropped(s), closed - SERIES_ROWS_MAX, "the rest counted as not kept");
	is_str(counts(s, SERIES_ROWS_MAX - 1), "1/0/0/0", "the last kept is whole");
	series_destroy(s);
}

int main(void)
{
	test_rows_bounded();
	test_interval_index();
	test_loss_and_late_attribution();
	test_late_after_close();
	test_closed_interval();
	test_ring_overrun();
	test_last_interval();
	test_in_flight();
	test_reflector();
	test_percentiles();
	test_small_hist();
	test_lines();
	test_thread();
	test_thread_race();
	return done_testing();
}
