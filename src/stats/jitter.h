/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Jitter, as the two documents a network engineer reads it from define
 * it, for the round trip and each way:
 *
 * - IPDV, the inter-packet delay variation of RFC 5481 §1.1 (RFC 3393's
 *   ipdv): of two packets of consecutive sequence numbers, both
 *   delivered, the later one's delay minus the earlier one's; a pair
 *   with a packet lost or unmeasured has none (RFC 5481's selection
 *   function: consecutive packets). Reported as the distribution of its
 *   magnitude (p50, p99, max: how far one packet's delay strays from the
 *   one before's) and its signed range.
 * - RFC 3550's interarrival jitter (§6.4.1, A.8): J += (|D| - J) / 16 for
 *   each such difference D, in the order the pairs complete: the smoothed
 *   figure RTP's receivers report, for those who expect it.
 *
 * Each way is a one-way delay taken across the two hosts' clocks (T2 - T1
 * forward, T4 - T3 backward): the clocks' offset cancels in a difference
 * of two of them, so IPDV needs no synchronized clocks (their drift
 * between two packets is a few ns). The round trip's is T4 - T1.
 * Backward waits for T3, which the follow-up brings a pong late: pairs
 * are matched by sequence number in a window of JITTER_WINDOW, whatever
 * order the delays come in.
 *
 * jitter_sample() is O(1), allocates nothing and takes no lock (the
 * packet loop's); the statistics (jitter_get) may be read from another
 * thread while the loop adds, as a sweepstat (64-bit words, one writer).
 */
#ifndef RANT_JITTER_H
#define RANT_JITTER_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

enum jitter_way { JITTER_RTT, JITTER_FWD, JITTER_BACK, JITTER_NWAYS };

#define JITTER_WINDOW 1024	/* sequence numbers a pair is matched across */

struct jitter;

/* Memory for the three ways, touched (mem.h; huge: the hugepage pool).
 * NULL with errno set. */
struct jitter *jitter_create(bool huge);
void jitter_destroy(struct jitter *j);

/* A measured record's delays, at one of metric.h's two steps: the round
 * trip and forward (METRIC_NO_T3), backward (METRIC_T3). */
void jitter_sample(struct jitter *j, const struct txrec *rec, unsigned int which);

/* One way's figures, ns. */
struct jitter_stats {
	uint64_t pairs;		/* IPDVs: consecutive packets both measured */
	int64_t abs_p50, abs_p99, abs_max;	/* |IPDV| */
	int64_t min, max;	/* IPDV, signed */
	double rfc3550;		/* J after the last pair */
};

void jitter_get(const struct jitter *j, enum jitter_way w, struct jitter_stats *out);

/* "rtt", "fwd", "back": the JSON's keys and the metrics' labels. */
const char *jitter_way_name(enum jitter_way w);

#endif
