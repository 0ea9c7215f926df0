/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lines a run prints before its first packet, to the run's text
 * stream: what it measures and how, the settings it found or made, and
 * the warnings about them.
 */
#ifndef RANT_STARTUP_H
#define RANT_STARTUP_H

#include "run.h"

/* ... and keeps each warning in r->warn for the summary (warn.h). */
void startup_print(struct run *r);

#endif
