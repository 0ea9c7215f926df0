/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of a breach (-t): its stamps, the path's steps in path
 * order with the largest marked, then the totals; as text when the run
 * ends (breach_report()) and as an element of the summary's "breaches".
 */
#ifndef RANT_BREACH_H
#define RANT_BREACH_H

#include "out.h"
#include "snap.h"

void breach_print(struct out *o, const struct snap_breach_ctx *ctx,
		  const struct snap_breach *b);

struct run;
struct breach;

/* The breakdown of breach b of r, as text, at the time it is complete;
 * after the first, what became of the trace (-T). */
void breach_report(const struct run *r, const struct breach *b);

#endif
