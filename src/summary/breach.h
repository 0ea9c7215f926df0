/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of a breach (-t): its stamps, the path's steps in path
 * order with the largest marked, then the totals; as text when the run
 * ends (breach_report()) and as an element of the summary's "breaches".
 */
#ifndef RANT_BREACH_H
#define RANT_BREACH_H

#include <stdio.h>

#include "out.h"
#include "snap.h"

void breach_print(struct out *o, const struct snap_breach_ctx *ctx,
		  const struct snap_breach *b);

/* Breakdowns printed in the text at the end of a run. */
#define BREACH_TEXT 3

/*
 * The breaches of a final snapshot as text to f: the first (after it,
 * what became of the trace, -T), then the largest up to BREACH_TEXT,
 * then how many more there were and where the largest are kept.
 */
void breach_report(FILE *f, const struct snap *s);

#endif
