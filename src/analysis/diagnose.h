/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known causes of latency that a run's numbers show, named with their
 * fix. Today: Nagle's algorithm meeting delayed ACKs over TCP (a message
 * sent in several writes waits for the ACK of the first write, which the
 * peer holds back until its delayed-ACK timer fires).
 */
#ifndef RANT_DIAGNOSE_H
#define RANT_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

/* Round-trip quantiles 5, 10, ... 95 %: what the diagnosis reads. */
#define DIAG_NQ 19

/*
 * With Nagle on (no --nodelay, no --cork) and more than one write per
 * message over TCP: when at least a quarter of the round trips (q[i],
 * the (i + 1) * 5th percentiles, ns) sit near a known delayed-ACK timer
 * (five of the nineteen quantiles or more),
 * write one line naming the cause and the fix into buf and return true.
 */
bool diagnose_delack(const struct rant_cfg *c, const int64_t q[DIAG_NQ],
		     char *buf, size_t len);

#endif
