/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line: one option table drives getopt_long and --help.
 * opts_parse() checks every value against its range and the options
 * against each other; what needs the system (the interface, the route,
 * files, privileges) is checked later, at setup.
 */
#ifndef RANT_OPTS_H
#define RANT_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"

enum opts_result {
	OPTS_OK = 0,
	OPTS_HELP = 1,		/* --help printed: exit 0 */
	OPTS_ERROR = 2,		/* message printed on err: exit 1 */
};

/* Parse argv into cfg (defaults first). Messages go to err. */
enum opts_result opts_parse(int argc, char **argv, struct rant_cfg *cfg,
			    FILE *err);
void opts_usage(FILE *f);

#endif
