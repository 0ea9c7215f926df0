/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant trace's command line (--trace, or the subcommand: rant.c): the
 * options it takes (its own, TRACE_ONLY, and a few of the others), its
 * defaults (-c 3, --port 80 for TCP, 33434 for UDP) and the address as
 * its one argument.
 */
#ifndef RANT_OPTTRACE_H
#define RANT_OPTTRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "cfg.h"

#define OPTTRACE_COUNT 3		/* -c: probes a hop and path */
#define OPTTRACE_PORT_TCP 80
#define OPTTRACE_PORT_UDP 33434

/* After every option is read (given: by O_* or letter, as opts.c keeps
 * them), arg the one argument left or NULL: 0 with the mode MODE_TRACE,
 * or -1 after one line on err naming the problem and the fix. */
int opttrace_check(struct rant_cfg *c, const bool *given, const char *arg, FILE *err);

#endif
