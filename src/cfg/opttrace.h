/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant trace's command line: its one word (the address), and its
 * options against each other once they are read (opts.c's check); the
 * option rows it takes are opttab.c's with W_TRACE.
 */
#ifndef RANT_OPTTRACE_H
#define RANT_OPTTRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "cfg.h"

#define OPTTRACE_PORT_UDP 33434	/* --proto udp's --port, unless given */
#define OPTTRACE_MAX_COUNT 100	/* -c: probes a hop and path */

/* rant trace [-a] ADDR: the words after the options (subcmd.h). */
int opttrace_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err);

/* After every option is read (given: by O_* or letter, as opts.c keeps
 * them): 0, or -1 after one line on err naming the problem and the fix. */
int opttrace_check(struct rant_cfg *c, const bool *given, FILE *err);

#endif
