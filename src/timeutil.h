/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time is kept as int64 nanoseconds everywhere in rant; this is the one
 * place that converts. 0 means "no stamp" (the kernel leaves absent
 * SCM_TIMESTAMPING slots zeroed, and no real stamp is ever exactly 0).
 */
#ifndef RANT_TIMEUTIL_H
#define RANT_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_SEC 1000000000LL
#define TS_NONE 0

static inline int64_t timespec_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_SEC + ts->tv_nsec;
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

#endif
