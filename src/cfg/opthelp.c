// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --help from the option and subcommand tables (opthelp.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "opthelp.h"
#include "optnum.h"
#include "opttab.h"
#include "subcmd.h"

#define HELP_COLS 80
#define HELP_INDENT 29		/* where an option's text begins */
#define SUB_ALL SUB_N		/* the union: rant help --all */

/* "-p" or "--trace-instance": the short form --help uses. */
static const char *opt_short(const struct opt *o, char *buf, size_t len)
{
	if (o->val < 256)
		snprintf(buf, len, "-%c", o->val);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

static void format_def(const struct opt *o, int64_t def, char *buf, size_t len)
{
	if ((o->type == T_UINT || o->type == T_SIZES) && def)
		snprintf(buf, len, "%" PRId64, def);
	else if ((o->type == T_NS || o->type == T_USEC) && def)
		optnum_units(buf, len, def, o->unit_ns);
}

/* Row o's default in subcommand sub as --help says it, or "". */
static void help_default(const struct opt *o, unsigned int sub, char *buf, size_t len)
{
	*buf = '\0';
	if (sub < SUB_N && (o->alt.who & (1u << sub))) {
		if (o->alt.help)
			snprintf(buf, len, "%s", o->alt.help);
		else
			format_def(o, o->alt.def, buf, len);
	} else if (sub == SUB_ALL && o->defhelp_all) {
		snprintf(buf, len, "%s", o->defhelp_all);
	} else if (o->defhelp) {
		snprintf(buf, len, "%s", o->defhelp);
	} else if (o->sdef && o->type != T_OPTARG) {	/* T_OPTARG: its value, no default */
		snprintf(buf, len, "%s", o->sdef);
	} else {
		format_def(o, o->def, buf, len);
	}
}

/* Row o's range as --help and the errors say it ("0.1 to 3600"), or "". */
static void help_range(const struct opt *o, char *buf, size_t len)
{
	char lo[40], hi[40];

	*buf = '\0';
	if (o->type == T_UINT) {
		snprintf(buf, len, "%" PRId64 " to %" PRId64, o->min, o->max);
	} else if (o->type == T_NS || o->type == T_USEC) {
		optnum_units(lo, sizeof(lo), o->min, o->unit_ns);
		optnum_units(hi, sizeof(hi), o->max, o->unit_ns);
		snprintf(buf, len, "%s to %s", lo, hi);
	}
}

/* " (RANGE; default X; needs -Y)", any part left out where the row has
 * none, or "" (each subcommand's page repeats it: tests/check-man.py). */
static void help_tail(const struct opt *o, unsigned int sub, char *buf, size_t len)
{
	char range[96], def[64], need[40] = "";
	const char *part[3];
	int n = 0, w = 0;

	help_range(o, range, sizeof(range));
	help_default(o, sub, def, sizeof(def));
	if (o->needs)
		opt_short(opt_find(o->needs), need, sizeof(need));
	if (*range)
		part[n++] = range;
	if (*def)
		part[n++] = def;
	if (*need)
		part[n++] = need;
	*buf = '\0';
	for (int i = 0; i < n && w >= 0 && (size_t)w < len; i++)
		w += snprintf(buf + w, len - (size_t)w, "%s%s%s%s", i ? "; " : " (",
			      part[i] == def ? "default " : part[i] == need ? "needs " : "",
			      part[i], i == n - 1 ? ")" : "");
}

/* The title of the group that begins at row o, or NULL. */
static const char *help_group(const struct opt *o)
{
	for (size_t g = 0; g < opt_ngroups; g++)
		if (!strcmp(opt_groups[g].first, o->name))
			return opt_groups[g].title;
	return NULL;
}

/* text from column col (the head's end), wrapped at HELP_COLS under
 * HELP_INDENT; a word is never cut. */
static void wrap(FILE *f, int col, const char *text)
{
	bool first = true;

	for (const char *p = text; *p; first = false) {
		int wl = (int)strcspn(p, " ");

		if (!first && col + 1 + wl > HELP_COLS) {
			fprintf(f, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", wl, p);
		col += wl;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* " [emit, probe]": the subcommands of a row that not all take. */
static void help_marker(const struct opt *o, char *buf, size_t len)
{
	int w = 0;

	*buf = '\0';
	if ((o->who & W_ALL) == W_ALL)
		return;
	for (int i = 0; i < SUB_N && w >= 0 && (size_t)w < len; i++)
		if (o->who & (1u << i))
			w += snprintf(buf + w, len - (size_t)w, "%s%s", w ? ", " : " [",
				      subcmd_table[i].name);
	if (w > 0 && (size_t)w < len - 1)
		snprintf(buf + w, len - (size_t)w, "]");
}

static void help_row(FILE *f, const struct opt *o, unsigned int sub)
{
	char head[48], tail[224], marker[64] = "", text[1024];
	int n;

	if (o->val < 256)
		n = snprintf(head, sizeof(head), "  -%c, --%s", o->val, o->name);
	else
		n = snprintf(head, sizeof(head), "      --%s", o->name);
	if (o->arg)
		n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
	help_tail(o, sub, tail, sizeof(tail));
	if (sub == SUB_ALL)
		help_marker(o, marker, sizeof(marker));
	snprintf(text, sizeof(text), "%s%s%s",
		 sub < SUB_N && (o->other.who & (1u << sub)) ? o->other.help : o->help, tail,
		 marker);
	if (n <= HELP_INDENT - 2)
		fprintf(f, "%-*s", HELP_INDENT, head);
	else
		fprintf(f, "%s  ", head);
	wrap(f, n <= HELP_INDENT - 2 ? HELP_INDENT : n + 2, text);
}

static const char durations[] =
	"Durations take a unit: ns, us, ms, s, m, h (200us, 50ms, 10m); a bare\n"
	"number is in the unit its argument names (US microseconds, S seconds).\n";

/* The rows sub takes (SUB_ALL: every row), in their groups. */
static void help_rows(FILE *f, unsigned int sub)
{
	const char *group = NULL;

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		if (help_group(o))
			group = help_group(o);
		if (sub < SUB_N && (!opt_takes(o, sub) || (o->quiet & (1u << sub))))
			continue;
		if (group) {
			fprintf(f, "\n%s:\n", group);
			group = NULL;
		}
		help_row(f, o, sub);
	}
}

void opthelp_sub(FILE *f, enum rant_sub sub)
{
	const struct subcmd *s = &subcmd_table[sub];

	for (int i = 0; i < (int)(sizeof(s->usage) / sizeof(s->usage[0])) && s->usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "       " : "usage: ", s->usage[i]);
	fprintf(f, "\n%s: %s.\n%s", s->name, s->summary, durations);
	help_rows(f, sub);
	fprintf(f, "\nExit status: 0 finished, 1 usage or setup error, 2 failure during\n"
		"the run, 3 threshold breached. See rant(8).\n");
}

void opthelp_all(FILE *f)
{
	fprintf(f, "usage: rant SUBCOMMAND [options]: every option, [marked] with the\n"
		"subcommands that take it where not all do.\n%s", durations);
	help_rows(f, SUB_ALL);
}

void opthelp_overview(FILE *f)
{
	fprintf(f, "usage: rant SUBCOMMAND [options]\n"
		"       rant help SUBCOMMAND          its options (or rant SUBCOMMAND --help)\n\n"
		"Measures UDP (or TCP) round trips with NIC (or kernel) timestamps.\n\n"
		"Subcommands:\n");
	for (int i = 0; i < SUB_N; i++)
		fprintf(f, "  %-9s %s\n            %s\n", subcmd_table[i].name, subcmd_table[i].summary,
			subcmd_table[i].example);
	fprintf(f, "\nThe old spellings still work: rant -i IFACE (reflect), rant -i IFACE\n"
		"-a ADDR (emit), --syn/--http/--request (probe), --read, --watch.\n%s"
		"\nExit status: 0 finished, 1 usage or setup error, 2 failure during\n"
		"the run, 3 threshold breached. See rant(8).\n", durations);
}
