/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet ping's end (fleetdone.c), for the loop (fleet.c), its pongs and
 * stamps (fleetrx.c) and SIGHUP's changes (fleetreload.c): retired,
 * counted, into its target's and path's statistics, logged, checked
 * against -t; a target started and stopped.
 */
#ifndef RANT_FLEETDONE_H
#define RANT_FLEETDONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleetloop.h"

/* Retire slot's pings whose end is known at now, oldest first (all:
 * every one, its pong or stamp not waited for); a target added (its
 * schedule begins at due) or retired. */
void fl_settle(struct fleetloop *L, size_t slot, int64_t now, bool all);
void fl_target_start(struct fleetloop *L, size_t slot, int64_t due);
void fl_target_stop(struct fleetloop *L, size_t slot, int64_t now);

#endif
