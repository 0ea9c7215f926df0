// SPDX-License-Identifier: GPL-2.0-or-later
/* The warnings of a run, printed and kept (warn.h). */
#include <stdarg.h>

#include "warn.h"

void warn_add(struct warnings *ws, FILE *f, const char *code, const char *fix,
	      const char *fmt, ...)
{
	struct warning *w = ws->n < WARN_MAX ? &ws->w[ws->n] : NULL;
	char text[WARN_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (f)
		fprintf(f, "warning: %s\n", text);
	if (!w) {
		ws->lost++;
		return;
	}
	w->code = code;
	w->fix = fix;
	snprintf(w->text, sizeof(w->text), "%s", text);
	ws->n++;
}

void warn_print_one(struct out *o, const char *code, const char *text, const char *fix)
{
	struct out jo = out_json_only(o);

	out_obj(&jo, NULL);
	out_str(&jo, "code", NULL, code);
	out_str(&jo, "text", NULL, text);
	out_str(&jo, "fix", NULL, fix);
	out_obj_end(&jo);
}
