/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The warnings of a run: each printed where it is found (at set-up,
 * before the first packet) and kept, with a stable code and its fix, in
 * memory the summary reads at the end, so that the JSON's "warnings"
 * holds every one the text showed. Nothing here runs in the loop.
 */
#ifndef RANT_WARN_H
#define RANT_WARN_H

#include <stdio.h>

#include "out.h"

#define WARN_MAX 16
#define WARN_TEXT_LEN 640

struct warning {
	const char *code;		/* stable: "rt_throttle", "cpu_shared", ... */
	const char *fix;		/* what to do about it */
	char text[WARN_TEXT_LEN];	/* the line printed, without "warning: " */
};

struct warnings {
	unsigned int n;
	unsigned int lost;		/* beyond WARN_MAX: printed, not kept */
	struct warning w[WARN_MAX];
};

/*
 * Print "warning: TEXT" as a line to f (when f) and keep it in ws with
 * code and fix (string constants: they are not copied).
 */
void warn_add(struct warnings *ws, FILE *f, const char *code, const char *fix,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* One element {code, text, fix} of the JSON's "warnings" (JSON only). */
void warn_print_one(struct out *o, const char *code, const char *text, const char *fix);

#endif
