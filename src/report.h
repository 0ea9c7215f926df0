/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a run prints and writes: the start-up lines, the breakdown of a
 * breach, the summary on stdout and in JSON (from one set of print
 * calls, so the two cannot disagree), and the transaction log.
 */
#ifndef RANT_REPORT_H
#define RANT_REPORT_H

#include <stdio.h>

#include "run.h"

/* Where the text goes: stdout, or stderr when the JSON or the log takes stdout. */
FILE *report_text_stream(const struct run *r);
void report_start(const struct run *r);
/* The breakdown of breach b, as text, at the time it is complete. */
void report_breach(const struct run *r, const struct breach *b);
/* Summary, JSON and log. 0, or -errno after a message (exit 2). */
int report_end(struct run *r);

#endif
