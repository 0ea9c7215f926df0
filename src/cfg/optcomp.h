/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant help --completion bash: a bash completion script written from the
 * subcommand and option tables, so it offers what the parser takes: the
 * subcommands, each one's options (its --help's), files after a FILE
 * argument, interfaces after -i, the words of an argument that lists them
 * (auto|on|off). make installs it (build/rant.bash); tests/unit/
 * test_completion.sh runs it.
 */
#ifndef RANT_OPTCOMP_H
#define RANT_OPTCOMP_H

#include <stdio.h>

void optcomp_bash(FILE *f);

#endif
