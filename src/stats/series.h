/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interval reports (-I/--report-interval): the measured run cut into
 * intervals of CLOCK_MONOTONIC time from the start of measuring, a row
 * per interval (sent, received, lost, late, and min, p50, p99 and max of
 * the side's main metric), printed while the run goes on and kept whole
 * for the JSON's "series".
 *
 * Two sides, and neither waits for the other:
 *
 * - The packet loop (one thread, the writer) calls series_begin() once,
 *   then per event series_sent(), series_received(), series_lost(),
 *   series_late() (emitter) or series_answered() (reflector). Each
 *   updates the counters and a small log-linear histogram (hist.h) in a
 *   slot of a ring allocated before the run: no allocation, lock, I/O or
 *   system call, never a wait.
 *
 * - The reporter, a thread off the measuring CPU (series_start), closes
 *   each interval once nothing more can fall in it (settle_ns after its
 *   end: the emitter's --timeout plus a margin), reads its slot, prints
 *   the line and keeps the row. series_close_due() is that step alone,
 *   for tests with a fake clock.
 *
 * Each slot's state word holds the interval it serves and whether the
 * reporter has closed it; a generation count is odd while the loop
 * updates the slot. The loop writes only when, after making the count
 * odd, it still finds the slot open; the reporter closes, then waits for
 * an even count, and from then on the slot is its own until it hands it
 * to the interval one ring later. So a closed interval is read whole and
 * nothing is added to it after it was read.
 *
 * Where an event counts:
 * - emitter: every event of a ping in the interval of its send time: a
 *   row holds the fate of the pings sent in it, sent = received + lost +
 *   in_flight (those without a fate when the row was reported), so its
 *   loss is at most 100%; a late pong (after its ping was counted lost,
 *   as a rule after its interval was reported) counts once, as late, in
 *   the interval it was seen in.
 * - reflector: the interval of the ping's arrival.
 * - An event is never counted in another interval than its own: one for
 *   an interval already reported (the loop was held up longer than
 *   settle_ns), or whose slot still serves an older interval (the
 *   reporter fell a whole ring behind), or of a ping whose send was left
 *   out or is forgotten, is left out of the series and counted:
 *   series_missed().
 */
#ifndef RANT_SERIES_H
#define RANT_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "seriesrow.h"

/* Sends whose interval is remembered by seq, at least: a pong or loss
 * of a seq further back counts in the current interval. */
#define SERIES_SEQ_MIN 8192
/* A latency that the event does not have (a stamp missing). */
#define SERIES_NO_VALUE INT64_MIN
/* Rows kept for the JSON at most (11 MiB; 36 hours of -I 1): a service
 * that runs for months keeps its memory flat; the later rows are printed,
 * not kept, and counted (series_rows_dropped). */
#define SERIES_ROWS_MAX (1u << 17)
/* Margin after an interval's end (and --timeout) before it is closed. */
#define SERIES_SETTLE_MARGIN_NS (50 * 1000 * 1000LL)

struct series;

/*
 * interval_ns > 0; settle_ns >= 0: how long after an interval's end
 * events can still fall in it; in_flight: the most pings the emitter may
 * have in flight (the seq map holds twice that, SERIES_SEQ_MIN at
 * least). metric names the main metric ("rtt", "response") in the
 * header line. The ring (about settle_ns / interval_ns + 8 intervals)
 * and the seq map are allocated and touched here. NULL with errno set.
 */
struct series *series_create(int64_t interval_ns, int64_t settle_ns,
			     uint64_t in_flight, const char *metric, bool hugepages);
/* Stops the reporter if it runs (series_finish first for the rows). */
void series_destroy(struct series *s);

/*
 * The reporter thread: lines to out, on the CPUs the calling thread may
 * not use (on all but the one it runs on when it may use them all), at
 * SCHED_OTHER. 0, or -errno with a message in err.
 */
int series_start(struct series *s, FILE *out, char *err, size_t errlen);
/* Which CPUs the reporter was put on, for -v ("1-3", or why not). */
const char *series_cpus(const struct series *s);

/* --- the packet loop --- */

/* Measuring starts: interval 0 begins at t0_mono (CLOCK_MONOTONIC ns),
 * which is t0_real in CLOCK_REALTIME. */
void series_begin(struct series *s, int64_t t0_mono, int64_t t0_real);
/*
 * Emitter: ping seq left at t_real, its T1_SW (CLOCK_REALTIME ns), taken
 * to CLOCK_MONOTONIC by the two clocks' offset (the reporter measures it
 * again at every wake, so a slewed or stepped system clock moves an
 * event by at most one interval's drift). Before the other events of seq.
 */
void series_sent(struct series *s, uint64_t seq, int64_t t_real);
/* Its pong came back with the main metric v (or SERIES_NO_VALUE). */
void series_received(struct series *s, uint64_t seq, int64_t v);
/* No pong within --timeout. */
void series_lost(struct series *s, uint64_t seq);
/* A pong came after its ping was counted lost, at t_real (its ping's
 * interval was reported before it came, as a rule): in the interval it
 * was seen in, which is open (intervals close settle_ns after their end). */
void series_late(struct series *s, int64_t t_real);
/* Reflector: a measured ping arrived at t_mono and was answered (sent)
 * or not, with the main metric v (or SERIES_NO_VALUE). */
void series_answered(struct series *s, int64_t t_mono, bool sent, int64_t v);

/* --- the reporter's side --- */

/*
 * Close every interval whose end plus settle_ns is at or before now_mono:
 * rows kept, lines printed (to the out series_start was given).
 * Returns how many were closed. The reporter thread
 * calls it; tests call it with a fake clock and no thread.
 */
unsigned int series_close_due(struct series *s, int64_t now_mono);
/*
 * The loop has stopped at end_mono: close the rest (the last interval
 * partial; a last sliver under a tenth of -I without an event is not
 * reported) and stop the reporter. Rows are complete after it.
 */
void series_finish(struct series *s, int64_t end_mono);

size_t series_nrows(const struct series *s);
const struct series_row *series_row(const struct series *s, size_t i);
/* Events left out of the series (see above). */
uint64_t series_missed(const struct series *s);
/* Rows not kept for the JSON (no memory, or SERIES_ROWS_MAX kept); their
 * lines were printed. */
uint64_t series_rows_dropped(const struct series *s);

/* The intervals as the run ended (snap.h): a copy of the rows. */
struct series_snap {
	uint64_t missed;		/* series_missed() */
	uint64_t rows_dropped;		/* series_rows_dropped() */
	size_t n;
	struct series_row *rows;
};

/* After series_finish(): 0, or -ENOMEM. */
int series_snapshot(const struct series *s, struct series_snap *ss);
void series_snap_free(struct series_snap *ss);

#endif
