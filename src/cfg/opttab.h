/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option table (opttab.c): one row per option, which opts.c reads
 * for getopt_long's tables, the defaults, the parsing, the checks and
 * --help. For opts.c alone.
 */
#ifndef RANT_OPTTAB_H
#define RANT_OPTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

enum {
	O_PORT = 256, O_TIMEOUT, O_INTERVAL, O_BLOCK, O_TRACE_INSTANCE,
	O_VERSION, O_MAX_SESSIONS, O_TCP, O_WRITES, O_NODELAY, O_QUICKACK, O_CORK,
	O_PCAP, O_ALLOW, O_KEY, O_MAX_CLOCK_OFFSET, O_PHC_INTERVAL, O_ONE_WAY, O_PTP_MODE,
	O_LOG_BUFFER, O_OPEN_LOOP, O_FOLLOW_LINKS, O_MAX_PER_ADDRESS, O_KEY_WINDOW,
	O_TCP_IDLE_TIMEOUT, O_METRICS, O_METRICS_LISTEN, O_METRICS_BUCKETS, O_BREACH_KEEP,
	O_STAMP, O_STAMP_TS, O_STAMP_STATEFUL, O_SSID, O_WARMUP_TIMEOUT, O_NO_QUEUE_STAMPS,
	O_MAX_RATE, O_SYN, O_HTTP, O_HOST, O_CONNECTIONS, O_REQUEST, O_RESPONSE_BYTES,
	O_READ, O_WATCH, O_FILTER, O_FLOWS, O_MAX_FLOWS, O_FLOW_IDLE, O_THRESHOLD_METRIC,
	O_TARGETS, O_PATHS, O_DSCP, O_FLOW_LABEL, O_DIAGNOSIS,
	O_TRACE, O_PROTO, O_MAX_HOPS, O_RATE,
	O_MAX
};

/* Who may use an option (BOTH: the emitter and the reflector). */
enum { BOTH, EMIT_ONLY, REFLECT_ONLY, WATCH_ONLY, TRACE_ONLY };

/* How an option's argument is stored. */
enum opt_type {
	T_FLAG,		/* bool, set */
	T_COUNT,	/* int, incremented */
	T_STR,		/* const char *, not empty */
	T_UINT,		/* unsigned integer of the field's size, in [min, max] */
	T_NS,		/* int64 ns from a decimal number of units, in [min, max] */
	T_SIZES,	/* -m: sizes, nsizes and size from a size, list or range */
	T_ALLOW,	/* --allow: a prefix added to the list (repeatable) */
	T_HELP,
	T_VERSION,
};

struct opt {
	const char *name;
	int val;		/* short option letter or O_* */
	const char *arg;	/* argument name; NULL: no argument */
	int who;
	enum opt_type type;
	size_t off, size;	/* the field in struct rant_cfg */
	int64_t def;		/* default (T_UINT, T_NS) */
	int64_t min, max;	/* range (T_UINT; T_NS in ns) */
	int64_t unit_ns;	/* T_NS: ns per unit of the argument */
	const char *sdef;	/* default (T_STR) */
	const char *defhelp;	/* the default as --help says it, when not def */
	int needs;		/* given only with this option (val), or 0 */
	const char *help;
};

#define DURATION_BY_MODE (-1)	/* -d default: 10 s emitting, none reflecting */

#define OPTS_MAX 96		/* rows the table may have (opttab.c checks) */

extern const struct opt opt_table[];
extern const size_t opt_count;

/*
 * --help's groups, in the table's order: each begins at the row of the
 * option named first and runs to the next group's (rant.8's OPTIONS has
 * the same groups, under the same titles: tests/check-man.py).
 */
struct opt_group {
	const char *first;	/* the long name of its first option */
	const char *title;
};

extern const struct opt_group opt_groups[];
extern const size_t opt_ngroups;

#endif
