/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subcommands (rant emit, reflect, probe, read, watch, trace): one row each,
 * with its name, what it does in a line, its command lines, the mode it
 * runs in and the words it takes after its options. The options each
 * takes are the option table's rows whose .who holds it (opttab.c);
 * rant.c dispatches on cfg->sub. A new subcommand is a SUB_* (cfg.h), a
 * row here, its options' W_* bit (opttab.h) and an entry of rant.c's
 * dispatch.
 */
#ifndef RANT_SUBCMD_H
#define RANT_SUBCMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cfg.h"

struct subcmd {
	const char *name;
	enum rant_mode mode;
	const char *summary;		/* one line, for rant --help */
	const char *usage[4];		/* its command lines, the most common first */
	const char *example;		/* the most common command, for rant --help */
	const char *as;			/* how a message names it: "the emitter (rant emit)" */
	/* The words after the options (argv's non-options, in order), given[]
	 * indexed by option value: 0, or -1 after one line on err. */
	int (*words)(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err);
};

extern const struct subcmd subcmd_table[SUB_N];

/* The row named name, or NULL. */
const struct subcmd *subcmd_find(const char *name);

/* The subcommands of set who (W_*) as a message says them: "the emitter
 * (rant emit) or a probe (rant probe)". */
void subcmd_names(unsigned int who, char *buf, size_t len);

#endif
