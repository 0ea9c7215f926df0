/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a run prints and writes at its end: the summary and the output
 * files, from one snapshot (snap.h, summary.h, outputs.h). Before it:
 * the start-up lines (startup.h) and each breach's breakdown (breach.h).
 */
#ifndef RANT_REPORT_H
#define RANT_REPORT_H

#include <stdio.h>

#include "run.h"

/* Summary, JSON and log. 0, or -errno after a message (exit 2). */
int report_end(struct run *r);

#endif
