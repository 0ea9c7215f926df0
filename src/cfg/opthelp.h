/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --help from the tables: rant's overview (the subcommands, one line
 * each, with the most common command of each), one subcommand's options
 * in its groups, and every option marked with the subcommands that take
 * it (rant help --all). Each subcommand's page, rant-SUB.8, follows its
 * --help (tests/check-man.py).
 * Every line fits 80 columns; a long help text wraps under its own.
 */
#ifndef RANT_OPTHELP_H
#define RANT_OPTHELP_H

#include <stdio.h>

#include "cfg.h"

void opthelp_overview(FILE *f);
void opthelp_sub(FILE *f, enum rant_sub sub);
void opthelp_all(FILE *f);

#endif
