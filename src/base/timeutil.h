/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time is kept as int64 nanoseconds everywhere in rant; this is the one
 * place that converts. 0 means "no stamp" (the kernel leaves absent
 * SCM_TIMESTAMPING slots zeroed, and no real stamp is ever exactly 0).
 *
 * None of these helpers overflows, whatever it is given (stamps come from
 * the kernel and, in a pong, from the network):
 * - timespec_to_ns() rejects what is not a time in int64 ns (tv_nsec
 *   outside 0..999999999, or a time before 1677 or after 2262): it gives
 *   TS_NONE, so a bogus stamp counts as a missing one.
 * - ns_to_timespec() is defined for every int64.
 * - ns_add() and ns_sub() saturate at INT64_MIN and INT64_MAX: a
 *   difference of two hostile stamps is absurd, never undefined.
 */
#ifndef RANT_TIMEUTIL_H
#define RANT_TIMEUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_SEC 1000000000LL
#define TS_NONE 0

static inline int64_t ns_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b */
static inline int64_t ns_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t timespec_to_ns(const struct timespec *ts)
{
	int64_t sec = ts->tv_sec, nsec = ts->tv_nsec, ns;

	if ((uint64_t)nsec >= (uint64_t)NS_PER_SEC)	/* nsec < 0 too */
		return TS_NONE;
	/* Every clock reading and stamp from 1970 to 2262: no overflow
	 * possible, no check needed (a clock read per ping on the hot path,
	 * and each stamp parsed) */
	if ((uint64_t)sec < (uint64_t)(INT64_MAX / NS_PER_SEC))
		return sec * NS_PER_SEC + nsec;
	if (sec < 0 && nsec) {	/* so that INT64_MIN itself is reached */
		sec++;
		nsec -= NS_PER_SEC;
	}
	if (__builtin_mul_overflow(sec, NS_PER_SEC, &ns) ||
	    __builtin_add_overflow(ns, nsec, &ns))
		return TS_NONE;
	return ns;
}

static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC,
			       .tv_nsec = ns % NS_PER_SEC };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NS_PER_SEC;
	}
	return ts;
}

/* SW stamps: same clock as the kernel's software stamps. */
static inline int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return timespec_to_ns(&ts);
}

/* Deadlines and pacing: immune to clock steps. */
static inline int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_to_ns(&ts);
}

/* qsort()'s order of int64 values (ns), ascending. */
static inline int ns_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* v[0..n) sorted ascending in place. */
static inline void ns_sort(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), ns_cmp);
}

#endif
