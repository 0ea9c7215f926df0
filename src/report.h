/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a run prints and writes, around the packet loop: the start-up
 * lines (startup.c), the breakdown of each breach (breach.c), and at the
 * end the summary and the output files (report.c, from one snapshot:
 * snap.h, summary.h, outputs.h).
 */
#ifndef RANT_REPORT_H
#define RANT_REPORT_H

#include <stdio.h>

#include "run.h"

/* Where the text goes (set once at set-up: out_text_stream()). */
FILE *report_text_stream(const struct run *r);
void report_start(const struct run *r);
/* The breakdown of breach b, as text, at the time it is complete. */
void report_breach(const struct run *r, const struct breach *b);
/* Summary, JSON and log. 0, or -errno after a message (exit 2). */
int report_end(struct run *r);

#endif
