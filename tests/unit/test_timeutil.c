/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/timeutil.h: conversions and stamp arithmetic at the ends of int64.
 * timespec_to_ns rejects (TS_NONE) what is not a time in int64 ns; ns_add
 * and ns_sub saturate. Run under UBSan by make asan, where an overflow
 * aborts.
 */
#include <stdint.h>
#include <time.h>

#include "tap.h"
#include "timeutil.h"

static int64_t ts_ns(time_t sec, long nsec)
{
	struct timespec ts = { .tv_sec = sec, .tv_nsec = nsec };

	return timespec_to_ns(&ts);
}

static void test_timespec_to_ns(void)
{
	const time_t max_sec = (time_t)(INT64_MAX / NS_PER_SEC);	/* 9223372036 */
	const long max_nsec = (long)(INT64_MAX % NS_PER_SEC);		/* 854775807 */

	is_i64(ts_ns(1, 5), 1000000005, "1 s 5 ns");
	is_i64(ts_ns(1700000000, 123456789), 1700000000123456789LL, "a 2023 stamp");
	is_i64(ts_ns(-1, 999999999), -1, "-1 s + 999999999 ns is -1 ns");
	is_i64(ts_ns(max_sec - 1, 999999999), 9223372035999999999LL,
	       "the last second of the unchecked range (1970 to 2262)");
	is_i64(ts_ns(max_sec, max_nsec), INT64_MAX, "the last representable time");
	is_i64(ts_ns(max_sec, max_nsec + 1), TS_NONE, "one ns later: TS_NONE");
	is_i64(ts_ns(max_sec + 1, 0), TS_NONE, "tv_sec past 2262: TS_NONE");
	is_i64(ts_ns((time_t)INT64_MAX, 999999999), TS_NONE, "tv_sec INT64_MAX: TS_NONE");
	is_i64(ts_ns(-max_sec - 1, 145224192), INT64_MIN, "the first representable time");
	is_i64(ts_ns(-max_sec - 1, 145224191), TS_NONE, "one ns earlier: TS_NONE");
	is_i64(ts_ns((time_t)INT64_MIN, 0), TS_NONE, "tv_sec INT64_MIN: TS_NONE");
	is_i64(ts_ns(5, -1), TS_NONE, "tv_nsec -1: TS_NONE");
	is_i64(ts_ns(5, 1000000000), TS_NONE, "tv_nsec 1e9: TS_NONE");
	is_i64(ts_ns(5, (long)INT64_MIN), TS_NONE, "tv_nsec INT64_MIN: TS_NONE");
}

static void test_ns_to_timespec(void)
{
	const int64_t v[] = { 0, 1, -1, 999999999, -1000000000, 1700000000123456789LL,
			      INT64_MAX, INT64_MIN, INT64_MIN + 1 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct timespec ts = ns_to_timespec(v[i]);

		ok(ts.tv_nsec >= 0 && ts.tv_nsec < NS_PER_SEC && timespec_to_ns(&ts) == v[i],
		   "ns_to_timespec(%" PRId64 ") is normalised and converts back", v[i]);
	}
}

static void test_add_sub(void)
{
	is_i64(ns_sub(10, 3), 7, "10 - 3");
	is_i64(ns_sub(-3, 10), -13, "-3 - 10");
	is_i64(ns_sub(INT64_MAX, -1), INT64_MAX, "INT64_MAX - -1 saturates high");
	is_i64(ns_sub(INT64_MIN, 1), INT64_MIN, "INT64_MIN - 1 saturates low");
	is_i64(ns_sub(0, INT64_MIN), INT64_MAX, "0 - INT64_MIN saturates high");
	is_i64(ns_sub(-1, INT64_MIN), INT64_MAX, "-1 - INT64_MIN is INT64_MAX exactly");
	is_i64(ns_sub(INT64_MIN, INT64_MIN), 0, "INT64_MIN - INT64_MIN is 0");
	is_i64(ns_sub(INT64_MAX, INT64_MIN), INT64_MAX, "INT64_MAX - INT64_MIN saturates");
	is_i64(ns_sub(INT64_MIN, INT64_MAX), INT64_MIN, "INT64_MIN - INT64_MAX saturates");
	is_i64(ns_add(3, 4), 7, "3 + 4");
	is_i64(ns_add(INT64_MAX, 1), INT64_MAX, "INT64_MAX + 1 saturates high");
	is_i64(ns_add(INT64_MIN, -1), INT64_MIN, "INT64_MIN + -1 saturates low");
	is_i64(ns_add(INT64_MAX, INT64_MIN), -1, "INT64_MAX + INT64_MIN is -1");
	is_i64(ns_add(INT64_MIN, INT64_MIN), INT64_MIN, "INT64_MIN + INT64_MIN saturates");
}

int main(void)
{
	test_timespec_to_ns();
	test_ns_to_timespec();
	test_add_sub();
	return done_testing();
}
