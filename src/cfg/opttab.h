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
	O_TARGETS, O_PATHS, O_DSCP, O_FLOW_LABEL, O_DIAGNOSIS, O_SESSION_WARMUP,
	O_LOG_RING, O_TRACE_SNAPSHOT, O_SERVER_PID, O_CLIENT_PID, O_XDP, O_PROTO, O_MAX_HOPS,
	O_RATE, O_ICMP, O_AFXDP, O_RCVBUF, O_THREADS,
	O_MAX
};

/* Who may use an option: a set of subcommands (cfg.h's SUB_*). */
#define W_EMIT (1u << SUB_EMIT)
#define W_REFLECT (1u << SUB_REFLECT)
#define W_PROBE (1u << SUB_PROBE)
#define W_READ (1u << SUB_READ)
#define W_WATCH (1u << SUB_WATCH)
#define W_TRACE (1u << SUB_TRACE)
#define W_SOCKETS (1u << SUB_SOCKETS)
#define W_PAIR (W_EMIT | W_REFLECT)		/* rant's own pair */
#define W_SEND (W_EMIT | W_PROBE)		/* what sends: emit, probe */
#define W_RUN (W_EMIT | W_REFLECT | W_PROBE)	/* what measures its own packets */
#define W_CAP (W_READ | W_WATCH)		/* traffic rant did not send */
#define W_MEASURED (W_RUN | W_CAP)	/* what has latency statistics (not trace) */
#define W_ALL (W_MEASURED | W_TRACE)

/* How an option's argument is stored. */
enum opt_type {
	T_FLAG,		/* bool, set */
	T_COUNT,	/* int, incremented */
	T_STR,		/* const char *, not empty */
	T_UINT,		/* unsigned integer of the field's size, in [min, max] */
	T_NS,		/* int64 ns from a duration (200us, 5s; a bare number in
			 * unit_ns), in [min, max] */
	T_USEC,		/* int, whole us, from a duration as T_NS */
	T_SIZES,	/* -m: sizes, nsizes and size from a size, list or range */
	T_ALLOW,	/* --allow: a prefix added to the list (repeatable) */
	T_OPTARG,	/* int: 0 not given, 1 given bare, 2 given =sdef (getopt's
			 * optional_argument; sdef the one value, not a default) */
	T_HELP,
	T_VERSION,
};

struct opt {
	const char *name;
	int val;		/* short option letter or O_* */
	const char *arg;	/* argument name; NULL: no argument */
	unsigned int who;	/* the subcommands that take it (W_*) */
	enum opt_type type;
	size_t off, size;	/* the field in struct rant_cfg */
	int64_t def;		/* default (T_UINT, T_NS) */
	struct {		/* another default in some subcommands */
		unsigned int who;	/* W_*, or 0: none */
		int64_t def;
		const char *help;	/* as --help says it there */
	} alt;
	struct {		/* another help in some subcommands, where the
				 * option does less there */
		unsigned int who;	/* W_*, or 0: none */
		const char *help;
	} other;
	unsigned int quiet;	/* W_*: taken there as an old spelling, not in
				 * that subcommand's --help */
	const char *not_fleet;	/* refused with --targets/--paths, and why */
	int64_t min, max;	/* range (T_UINT; T_NS in ns) */
	int64_t unit_ns;	/* T_NS: ns per unit of the argument */
	const char *sdef;	/* default (T_STR) */
	const char *defhelp;	/* the default as --help says it, when not def */
	const char *defhelp_all;	/* ... in rant help --all, when not defhelp */
	int needs;		/* given only with this option (val), or 0 */
	const char *help;
};

#define OPTS_MAX 96		/* rows the table may have (opttab.c checks) */

extern const struct opt opt_table[];
extern const size_t opt_count;

/*
 * --help's groups, in the table's order: each begins at the row of the
 * option named first and runs to the next group's; a subcommand's --help
 * shows the groups that hold its options (its page, rant-SUB.8, has the
 * same groups, under the same titles: tests/check-man.py).
 */
struct opt_group {
	const char *first;	/* the long name of its first option */
	const char *title;
};

extern const struct opt_group opt_groups[];
extern const size_t opt_ngroups;

/* The row of option val (its letter or O_*), or NULL. */
const struct opt *opt_find(int val);
/* "-d/--duration" or "--port" for messages. */
const char *opt_label(int val, char *buf, size_t len);
/* Does subcommand sub take row o? */
static inline bool opt_takes(const struct opt *o, enum rant_sub sub)
{
	return o->who & (1u << sub);
}

#endif
