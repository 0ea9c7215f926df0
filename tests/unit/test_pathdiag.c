/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/analysis/pathdiag.h: the paths that stand out. Half the paths on a
 * loaded link (p50 4x): exactly those named path_latency, whether they
 * are a quarter, a half or three quarters of the paths; a 2x path named,
 * a 1.5x one not; every path alike (all slow, all lossy): none; one lossy
 * path among clean ones: path_loss names it alone; too few samples or
 * paths: nothing.
 */
#include "pathdiag.h"
#include "tap.h"

#define N 16

static uint64_t slow_mask(unsigned int slow)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < slow; i++)
		m |= 1ULL << (i * 5 % N);
	return m;
}

static void set(struct pathdiag_in *p, uint64_t slow, int64_t fast_ns, int64_t slow_ns)
{
	for (unsigned int i = 0; i < N; i++) {
		int64_t p50 = (slow >> i & 1) ? slow_ns : fast_ns + i * 100;

		p[i] = (struct pathdiag_in){ .sent = 100, .samples = 100, .p50_ns = p50 };
	}
}

int main(void)
{
	struct pathdiag_in p[N];
	struct pathdiag d[2];
	unsigned int k;

	for (unsigned int slow = 1; slow <= 12; slow++) {
		set(p, slow_mask(slow), 30000, 120000);
		k = pathdiag_find(p, N, d);
		ok(k == 1 && d[0].kind == PATHDIAG_LATENCY && d[0].paths == slow_mask(slow),
		   "%u of 16 paths 4x slower: exactly they are named", slow);
	}
	set(p, 0, 30000, 0);
	is_int(pathdiag_find(p, N, d), 0, "every path alike: none named");
	set(p, slow_mask(3), 20000, 41000);
	k = pathdiag_find(p, N, d);
	ok(k == 1 && d[0].paths == slow_mask(3), "a 20 us target, three 41 us paths: named");
	is_str(pathdiag_kind_name(d[0].kind), "path_latency", "as path_latency");
	set(p, slow_mask(3), 20000, 30000);
	is_int(pathdiag_find(p, N, d), 0, "1.5x: not named");
	set(p, slow_mask(3), 500, 1800);
	is_int(pathdiag_find(p, N, d), 0, "2x but 1.3 us apart: not named");
	set(p, slow_mask(5), 30000, 120000);
	p[0].samples = 5;
	p[0].p50_ns = 900000;
	k = pathdiag_find(p, N, d);
	ok(k == 1 && !(d[0].paths & 1), "a path of 5 samples is not judged");
	set(p, 0, 30000, 0);
	for (unsigned int i = 0; i < N; i++)
		p[i].lost = 50;
	is_int(pathdiag_find(p, N, d), 0, "every path losing alike: none named");
	set(p, 0, 30000, 0);
	p[7].lost = 20;
	p[3].lost = 1;
	k = pathdiag_find(p, N, d);
	ok(k == 1 && d[0].kind == PATHDIAG_LOSS && d[0].paths == 1ULL << 7,
	   "one path losing 20%%: path_loss names it alone");
	ok(d[0].worst_loss > 0.19 && d[0].ref_loss < 0.001, "its rate and the others'");
	p[7].lost = 2;
	is_int(pathdiag_find(p, N, d), 0, "two pings lost: too few to name");
	set(p, slow_mask(2), 30000, 120000);
	is_int(pathdiag_find(p, 3, d), 0, "three paths: too few to judge latency");
	is_int(pathdiag_find(p, 1, d), 0, "one path: nothing to compare");
	return done_testing();
}
