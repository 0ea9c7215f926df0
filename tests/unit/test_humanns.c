/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/print/statout.c: a line's figures in one unit, its largest's
 * (2ac8a55 printed "typical 1524.8 us (max 12.2 ms)").
 */
#include <string.h>

#include "statout.h"
#include "tap.h"

int main(void)
{
	char a[32], b[32];

	ok(!strcmp(statout_human_ns(1524800, a, sizeof(a)), "1524.8 us"), "alone: %s", a);
	ok(!strcmp(statout_human_ns_in(1524800, 12200000, a, sizeof(a)), "1.5 ms"),
	   "beside 12.2 ms: %s", a);
	ok(!strcmp(statout_human_ns_in(12200000, 12200000, b, sizeof(b)), "12.2 ms"), "the max: %s", b);
	ok(!strcmp(statout_human_ns_in(6800, 26700000, a, sizeof(a)), "0.007 ms"),
	   "an idle RTT beside a queue's: %s", a);
	ok(!strcmp(statout_human_ns_in(2500, 20000000000LL, a, sizeof(a)), "0.000 s"), "in s: %s", a);
	return done_testing();
}
