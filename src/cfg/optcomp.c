// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bash completion script from the tables (optcomp.h).
 */
#include <stdbool.h>
#include <string.h>

#include "optcomp.h"
#include "opttab.h"
#include "subcmd.h"

#define SUB_ANY SUB_N		/* no subcommand yet: the old spellings */

/* "-x --name" of every row sub takes and shows in its --help (SUB_ANY:
 * every row), one word after another. */
static void comp_words(FILE *f, unsigned int sub)
{
	bool first = true;

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		if (sub < SUB_N && (!opt_takes(o, sub) || (o->quiet & (1u << sub))))
			continue;
		if (o->val < 256)
			fprintf(f, "%s-%c", first ? "" : " ", o->val);
		fprintf(f, "%s--%s", first && o->val >= 256 ? "" : " ", o->name);
		first = false;
	}
}

/* The case patterns "-x|--name" of the rows whose argument is kind
 * (FILE, IFACE), or that take an argument of another kind (kind NULL). */
static bool comp_pattern(FILE *f, const char *kind)
{
	bool any = false;

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		bool listed = o->arg && strchr(o->arg, '|') && !strchr(o->arg, '/');

		if (!o->arg || (kind ? strcmp(o->arg, kind) : !strcmp(o->arg, "FILE") ||
				!strcmp(o->arg, "IFACE") || listed))
			continue;
		if (o->val < 256)
			fprintf(f, "%s-%c", any ? "|" : "\t", o->val);
		fprintf(f, "%s--%s", any || o->val < 256 ? "|" : "\t", o->name);
		any = true;
	}
	return any;
}

/* One case arm for each row whose argument lists its words (auto|on|off). */
static void comp_listed(FILE *f)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		char words[64];

		if (!o->arg || !strchr(o->arg, '|') || strchr(o->arg, '/'))
			continue;
		snprintf(words, sizeof(words), "%s", o->arg);
		for (char *p = words; (p = strchr(p, '|'));)
			*p = ' ';
		fputc('\t', f);
		if (o->val < 256)
			fprintf(f, "-%c|", o->val);
		fprintf(f, "--%s)\n\t\tmapfile -t COMPREPLY < <(compgen -W '%s' -- \"$cur\")\n"
			"\t\treturn ;;\n", o->name, words);
	}
}

static void comp_subs(FILE *f, const char *sep)
{
	for (int i = 0; i < SUB_N; i++)
		fprintf(f, "%s%s", i ? sep : "", subcmd_table[i].name);
}

/* The arguments' arms: interfaces, files, listed words, nothing. */
static void comp_args(FILE *f)
{
	fputs("\tcase $prev in\n", f);
	if (comp_pattern(f, "IFACE"))
		fputs(")\n\t\tmapfile -t COMPREPLY < <(compgen -W \"$(ls /sys/class/net 2>/dev/null)\" -- \"$cur\")\n"
		      "\t\treturn ;;\n", f);
	if (comp_pattern(f, "FILE"))
		fputs(")\n\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n\t\treturn ;;\n", f);
	comp_listed(f);
	if (comp_pattern(f, NULL))
		fputs(")\n\t\treturn ;;\t# a value: nothing to offer\n", f);
	fputs("\tesac\n", f);
}

/* The options of each subcommand, and the words after them. */
static void comp_opts(FILE *f)
{
	fputs("\tcase $sub in\n\thelp)\n\t\tmapfile -t COMPREPLY < <(compgen -W '", f);
	comp_subs(f, " ");
	fputs(" --all' -- \"$cur\")\n\t\treturn ;;\n\t'')\n\t\topts='", f);
	comp_words(f, SUB_ANY);
	fputs("'\n\t\twords='", f);
	comp_subs(f, " ");
	fputs(" help' ;;\n", f);
	for (int s = 0; s < SUB_N; s++) {
		fprintf(f, "\t%s)\n\t\topts='", subcmd_table[s].name);
		comp_words(f, (unsigned int)s);
		fputs("' ;;\n", f);
	}
	fputs("\tesac\n", f);
}

void optcomp_bash(FILE *f)
{
	fputs("# bash completion for rant: rant help --completion bash writes it from\n"
	      "# its option table (src/cfg/opttab.c, src/cfg/optcomp.c).\n"
	      "_rant()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal sub='' kind='' opts words='' i\n"
	      "\tCOMPREPLY=()\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n\t\t", f);
	comp_subs(f, "|");
	fputs("|help)\n\t\t\t[ -z \"$sub\" ] && sub=${COMP_WORDS[i]} && continue ;;\n"
	      "\t\tsyn|http|request)\n"
	      "\t\t\t[ \"$sub\" = probe ] && [ -z \"$kind\" ] && kind=${COMP_WORDS[i]} ;;\n"
	      "\t\tesac\n\tdone\n", f);
	comp_args(f);
	comp_opts(f);
	fputs("\tif [[ $cur == -* ]]; then\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
	      "\telif [ \"$sub\" = probe ] && [ -z \"$kind\" ]; then\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -W 'syn http request' -- \"$cur\")\n"
	      "\telif [ \"$sub\" = read ]; then\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
	      "\telse\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
	      "\tfi\n"
	      "}\ncomplete -F _rant rant\n", f);
}
