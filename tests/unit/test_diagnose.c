/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/analysis/diagnose.h: Nagle's algorithm meeting delayed ACKs is named, with
 * its fix, only where it can be the cause and the round trips show it.
 */
#include <string.h>

#include "diagnose.h"
#include "tap.h"
#include "timeutil.h"

static int64_t q[DIAG_NQ];
static char line[512];

/* n of the 19 quantiles at hi_ns, the rest at lo_ns. */
static void shape(int n, int64_t lo_ns, int64_t hi_ns)
{
	for (int i = 0; i < DIAG_NQ; i++)
		q[i] = i >= DIAG_NQ - n ? hi_ns : lo_ns;
}

static bool diag_of(const struct rant_cfg *c)
{
	line[0] = '\0';
	return diagnose_delack(c, q, line, sizeof(line));
}

int main(void)
{
	struct rant_cfg c = { .mode = MODE_EMIT, .tcp = true, .writes = 2 };
	struct rant_cfg x;

	shape(DIAG_NQ, 0, 41 * NS_PER_MS);
	ok(diag_of(&c), "all near 41 ms, Nagle on, two writes: diagnosed");
	ok(strstr(line, "40 ms") && strstr(line, "Nagle") && strstr(line, "--nodelay") &&
	   strstr(line, "one write"), "... names 40 ms, Nagle and both fixes: %s", line);
	ok(!strchr(line, '\n'), "... in one line");
	ok(strstr(line, "p5 to p95") != NULL, "... says which quantiles: p5 to p95");

	x = c;
	x.nodelay = true;
	ok(!diag_of(&x), "--nodelay: not Nagle");
	x = c;
	x.writes = 1;
	ok(!diag_of(&x), "one write per message: not Nagle");
	x = c;
	x.cork = true;
	ok(!diag_of(&x), "--cork: the writes leave together");
	x = c;
	x.tcp = false;
	ok(!diag_of(&x), "UDP: no Nagle");

	shape(DIAG_NQ, 20000, 20000);
	ok(!diag_of(&c), "all at 20 us: nothing to say");
	shape(5, 20000, 42 * NS_PER_MS);
	ok(diag_of(&c) && strstr(line, "p75 to p95"),
	   "5 of 19 quantiles (p75 to p95, a quarter) at 42 ms: diagnosed: %s", line);
	shape(4, 20000, 42 * NS_PER_MS);
	ok(!diag_of(&c), "4 of 19 at 42 ms: not a cluster");
	shape(DIAG_NQ, 0, 10 * NS_PER_MS);
	ok(!diag_of(&c), "all at 10 ms: not a delayed-ACK timer");
	shape(DIAG_NQ, 0, 101 * NS_PER_MS);
	ok(diag_of(&c) && strstr(line, "100 ms") && strstr(line, "BSD"),
	   "all near 101 ms: the BSD/macOS timer: %s", line);
	shape(DIAG_NQ, 0, 205 * NS_PER_MS);
	ok(diag_of(&c) && strstr(line, "200 ms"), "all near 205 ms: the 200 ms timer");
	shape(DIAG_NQ, 0, 500 * NS_PER_MS);
	ok(!diag_of(&c), "all at 500 ms: beyond any delayed-ACK timer");
	return done_testing();
}
