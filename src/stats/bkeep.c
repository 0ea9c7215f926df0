// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The largest breaches (bkeep.h): a binary min-heap (heap.h), the
 * smallest kept at a[0], so a breach larger than it takes its place.
 */
#include <stdbool.h>

#include "bkeep.h"
#include "heap.h"

static bool smaller(const void *a, const void *b)
{
	return ((const struct breach *)a)->latency_ns < ((const struct breach *)b)->latency_ns;
}

static const struct heap_ops ops = { .size = sizeof(struct breach), .before = smaller };

bool bkeep_add(struct breach *a, unsigned int *n, unsigned int cap,
	       const struct txrec *rec, int64_t latency_ns)
{
	struct breach b = { .rec = *rec, .latency_ns = latency_ns };

	if (*n < cap)
		heap_up(a, (*n)++, &b, &ops, NULL);
	else if (cap && latency_ns > a[0].latency_ns)
		heap_down(a, *n, 0, &b, &ops, NULL);
	else
		return false;
	return true;
}

void bkeep_sort(struct breach *a, unsigned int n)
{
	/* heap sort on a min-heap: each smallest goes to the end */
	while (n > 1) {
		struct breach top = a[0];

		n--;
		heap_down(a, n, 0, &a[n], &ops, NULL);
		a[n] = top;
	}
}
