// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The largest breaches (bkeep.h): a binary min-heap, the smallest kept
 * at a[0], so a breach larger than it takes its place.
 */
#include <stdbool.h>

#include "bkeep.h"

static void swap(struct breach *a, unsigned int i, unsigned int j)
{
	struct breach t = a[i];

	a[i] = a[j];
	a[j] = t;
}

static void sift_up(struct breach *a, unsigned int i)
{
	while (i > 0 && a[(i - 1) / 2].latency_ns > a[i].latency_ns) {
		swap(a, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* The smallest of i and its children to i, down the heap a[0..n). */
static void sift_down(struct breach *a, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && a[l].latency_ns < a[m].latency_ns)
			m = l;
		if (r < n && a[r].latency_ns < a[m].latency_ns)
			m = r;
		if (m == i)
			return;
		swap(a, i, m);
		i = m;
	}
}

bool bkeep_add(struct breach *a, unsigned int *n, unsigned int cap,
	       const struct txrec *rec, int64_t latency_ns)
{
	if (*n < cap) {
		a[*n] = (struct breach){ .rec = *rec, .latency_ns = latency_ns };
		sift_up(a, (*n)++);
	} else if (cap && latency_ns > a[0].latency_ns) {
		a[0] = (struct breach){ .rec = *rec, .latency_ns = latency_ns };
		sift_down(a, *n, 0);
	} else {
		return false;
	}
	return true;
}

void bkeep_sort(struct breach *a, unsigned int n)
{
	/* heap sort on a min-heap: each smallest goes to the end */
	while (n > 1) {
		swap(a, 0, --n);
		sift_down(a, n, 0);
	}
}
