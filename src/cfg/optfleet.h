/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's options against the rest (--targets, --paths, --dscp,
 * --flow-label): opts.c's check() asks these, with given by O_* or
 * letter as opts.c keeps them. Each returns 0, or -1 after one line on
 * err naming the problem and the fix.
 */
#ifndef RANT_OPTFLEET_H
#define RANT_OPTFLEET_H

#include <stdbool.h>
#include <stdio.h>

#include "cfg.h"

/* The emitter's target: -a (one reflector) or --targets (a file of
 * them), never both. */
int optfleet_mode(const bool *given, FILE *err);

/*
 * --targets, or -a with --paths: the fleet's loop, open loop and paced
 * (--interval, 100 ms unless given), a warm-up of RANT_FLEET_WARMUP pings
 * a target unless -w, no SCHED stamp, never stopped by a breach; what it
 * cannot do refused. --flow-label needs --paths 2 or more.
 */
int optfleet_check(struct rant_cfg *c, const bool *given, FILE *err);

#endif
