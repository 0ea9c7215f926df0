/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/cfg/optnum.h: numbers on the command line, with their one-line
 * rejections (a number outside the range is "out of range" whatever its
 * form; a number in a form rant does not take says so).
 */
#include "optnum.h"
#include "tap.h"

static void test_u64(void)
{
	static const struct {
		const char *s, *msg;	/* msg: NULL, accepted */
		uint64_t want;
	} rows[] = {
		{ "0", NULL, 0 }, { "65535", NULL, 65535 }, { "7", NULL, 7 },
		{ "65536", "65536 is out of range. Must be in the range 0 to 65535", 0 },
		{ "-1", "-1 is out of range. Must be in the range 0 to 65535", 0 },
		{ "1e308", "1e308 is out of range. Must be in the range 0 to 65535", 0 },
		{ "1e3", "'1e3' is not written in digits only: give an integer from 0 to 65535", 0 },
		{ "+5", "'+5' is not written in digits only: give an integer from 0 to 65535", 0 },
		{ "1.5", "'1.5' is not written in digits only: give an integer from 0 to 65535", 0 },
		{ "x", "'x' is not a number: give an integer from 0 to 65535", 0 },
		{ "", "'' is not a number: give an integer from 0 to 65535", 0 },
		{ "99999999999999999999999", "99999999999999999999999 is out of range. Must be in the range 0 to 65535", 0 },
	};
	char msg[200];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t v = 12345678;
		int ret;

		msg[0] = 0;
		ret = optnum_u64(rows[i].s, 0, 65535, &v, msg, sizeof(msg));
		if (!rows[i].msg) {
			ok(ret == 0 && v == rows[i].want, "'%s' is %" PRIu64, rows[i].s, v);
		} else {
			is_int(ret, -1, "'%s' refused", rows[i].s);
			is_str(msg, rows[i].msg, "... in one line");
			is_u64(v, 12345678, "... and *out untouched");
		}
	}
}

static void test_ns(void)
{
	int64_t v = 0;
	char msg[200] = "", buf[32];

	ok(!optnum_ns("1.5", 1000, 1, 1000000000, &v, msg, sizeof(msg)) && v == 1500,
	   "1.5 us is 1500 ns");
	ok(!optnum_ns("0.001", 1000, 1, 1000000000, &v, msg, sizeof(msg)) && v == 1,
	   "0.001 us is 1 ns");
	is_int(optnum_ns("0.0001", 1000, 1, 1000000000, &v, msg, sizeof(msg)), -1,
	       "finer than a ns refused");
	ok(strstr(msg, "finer than a nanosecond") != NULL, "... saying so: %s", msg);
	is_int(optnum_ns("-1", 1000000000, 0, 3600000000000LL, &v, msg, sizeof(msg)), -1, "-d -1");
	is_str(msg, "-1 is out of range. Must be in the range 0 to 3600", "... out of range");
	is_int(optnum_ns("1e308", 1000000000, 0, 3600000000000LL, &v, msg, sizeof(msg)), -1,
	       "-d 1e308");
	is_str(msg, "1e308 is out of range. Must be in the range 0 to 3600", "... out of range");
	is_int(optnum_ns("99999999999999999999", 1, 0, INT64_MAX, &v, msg, sizeof(msg)), -1,
	       "too large for int64 ns: out of range, never wrapped");
	optnum_units(buf, sizeof(buf), 1500, 1000);
	is_str(buf, "1.5", "1500 ns in us");
	optnum_units(buf, sizeof(buf), 3000000000LL, 1000000000);
	is_str(buf, "3", "3 s without a point");
}

int main(void)
{
	test_u64();
	test_ns();
	return done_testing();
}
