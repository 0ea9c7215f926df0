/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of a probe of a TCP service (--syn, --http, --request)
 * against each other and the rest of the command line, and the defaults
 * a probe changes (the port, --timeout) (opts.c's); and what they make of
 * the Host header (the probe's request, the start-up line, the JSON).
 */
#ifndef RANT_OPTPROBE_H
#define RANT_OPTPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cfg.h"

/*
 * After every option is read and the mode set (given: by O_* or
 * letter, as opts.c keeps them). 0, or -1 after one line on err naming
 * the problem and the fix.
 */
int optprobe_check(struct rant_cfg *c, bool *given, FILE *err);

/* --http's Host header: --host, or -a (bracketed when IPv6) with --port
 * unless it is 80. */
/* rant probe's words: syn|http|request, then ADDR[:PORT][/PATH] or
 * http://ADDR[:PORT][/PATH] (subcmd.h's words). */
int optprobe_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err);

void optprobe_host(const struct rant_cfg *c, char *buf, size_t len);

#endif
