/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The largest breaches of a run (-C, --breach-keep N): a min-heap
 * (heap.h) on latency in an array of N allocated at set-up, so keeping
 * one in the loop is a compare and a few memory writes. Sorted, largest
 * first, once the loop is over.
 */
#ifndef RANT_BKEEP_H
#define RANT_BKEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

struct breach {
	struct txrec rec;
	int64_t latency_ns;
};

/*
 * Keep (rec, latency_ns) in the heap a[0..*n) of room cap if it is not
 * full or the breach is larger than the smallest kept, which it
 * replaces. Returns whether it was kept.
 */
bool bkeep_add(struct breach *a, unsigned int *n, unsigned int cap,
	       const struct txrec *rec, int64_t latency_ns);

/* The heap a[0..n) sorted, largest latency first (it is a heap no more). */
void bkeep_sort(struct breach *a, unsigned int n);

#endif
