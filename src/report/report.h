/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a run prints and writes at its end: each breach's breakdown, the
 * summary and the output files, from one snapshot (snap.h, breach.h,
 * summary.h, outputs.h). Before the run: the start-up lines (startup.h).
 */
#ifndef RANT_REPORT_H
#define RANT_REPORT_H

#include <stdio.h>

#include "run.h"

/* Breaches, summary, JSON and log. 0, or -errno after a message (exit 2). */
int report_end(struct run *r);

#endif
