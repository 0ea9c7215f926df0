// SPDX-License-Identifier: GPL-2.0-or-later
/* The largest breaches kept (src/stats/bkeep.c). */
#include <stdlib.h>

#include "bkeep.h"
#include "tap.h"

#define CAP 8
#define N 1000

/* N breaches in a shuffled order: the CAP largest kept, sorted largest first. */
static void test_largest(void)
{
	struct breach a[CAP];
	unsigned int n = 0, kept = 0;
	int64_t lat[N];
	bool sorted = true, largest = true;

	for (int i = 0; i < N; i++)
		lat[i] = 1000 + i;
	srand(7);
	for (int i = N - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		int64_t t = lat[i];

		lat[i] = lat[j];
		lat[j] = t;
	}
	for (int i = 0; i < N; i++) {
		struct txrec rec = { .seq = (uint64_t)lat[i] };

		kept += bkeep_add(a, &n, CAP, &rec, lat[i]);
	}
	is_int(n, CAP, "largest: the heap holds %d", CAP);
	ok(kept >= CAP && kept < N, "largest: %u of %d taken on the way", kept, N);
	bkeep_sort(a, n);
	for (unsigned int i = 0; i < n; i++) {
		if (i && a[i - 1].latency_ns < a[i].latency_ns)
			sorted = false;
		if (a[i].latency_ns != 1000 + N - 1 - (int64_t)i ||
		    a[i].rec.seq != (uint64_t)a[i].latency_ns)
			largest = false;
	}
	ok(sorted, "largest: sorted largest first");
	ok(largest, "largest: exactly the %d largest, each with its record", CAP);
}

/* Fewer breaches than room: all kept; a smaller one than all kept is refused. */
static void test_few(void)
{
	struct breach a[CAP];
	unsigned int n = 0;
	struct txrec rec = { .seq = 1 };

	ok(bkeep_add(a, &n, CAP, &rec, 500) && bkeep_add(a, &n, CAP, &rec, 300) &&
	   bkeep_add(a, &n, CAP, &rec, 400), "few: three kept");
	bkeep_sort(a, n);
	ok(n == 3 && a[0].latency_ns == 500 && a[1].latency_ns == 400 && a[2].latency_ns == 300,
	   "few: 500 400 300");
	n = 0;
	for (int i = 0; i < CAP; i++)
		bkeep_add(a, &n, CAP, &rec, 100 + i);
	ok(!bkeep_add(a, &n, CAP, &rec, 50), "full: a smaller breach is not kept");
	ok(bkeep_add(a, &n, CAP, &rec, 5000) && a[0].latency_ns == 101,
	   "full: a larger one replaces the smallest (now 101)");
}

int main(void)
{
	test_largest();
	test_few();
	return done_testing();
}
