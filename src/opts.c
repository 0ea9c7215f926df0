// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command line. One table (after ethtool's args[]) gives getopt_long its
 * option list and --help its lines; every number is parsed against an
 * explicit range, and the message names the range (linuxptp get_arg_val).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "timeutil.h"
#include "wire.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

enum {
	O_PORT = 256, O_TIMEOUT, O_INTERVAL, O_BLOCK, O_TRACE_INSTANCE,
	O_VERSION,
};

/* Who may use an option. */
enum { BOTH, EMIT_ONLY };

struct opt {
	const char *name;
	int val;		/* short option letter or O_* */
	const char *arg;	/* argument name; NULL: a flag */
	int who;
	const char *help;
};

static const struct opt opt_table[] = {
	{ "interface", 'i', "IFACE", BOTH, "interface to bind and timestamp on (required)" },
	{ "address", 'a', "ADDR", BOTH, "reflector's IPv4/IPv6 address: run as emitter (without: reflector)" },
	{ "port", O_PORT, "N", BOTH, "UDP port of the reflector (default 12345)" },
	{ "duration", 'd', "S", BOTH, "run for S seconds, 0 = no limit (default 10 emitting, 0 reflecting)" },
	{ "count", 'c', "N", BOTH, "stop after N measured transactions, 0 = no limit (default 0)" },
	{ "warmup", 'w', "N", EMIT_ONLY, "unmeasured transactions before measuring (default 100)" },
	{ "size", 'm', "BYTES", EMIT_ONLY, "UDP payload, 32 to 65507; pongs carry the reflector's stamps from 72 (default 72)" },
	{ "timeout", O_TIMEOUT, "US", EMIT_ONLY, "wait at most US for a pong, then count the ping lost (default 100000)" },
	{ "interval", O_INTERVAL, "US", EMIT_ONLY, "start a transaction every US, 0 = back to back (default 0)" },
	{ "block", O_BLOCK, NULL, BOTH, "sleep in a blocking receive instead of spinning on a non-blocking one" },
	{ "sw-timestamps", 's', NULL, BOTH, "record user-space stamps too and print the decomposition" },
	{ "no-hw-ts", 'R', NULL, BOTH, "use kernel software stamps even where the NIC has hardware ones" },
	{ "histogram", 'H', NULL, BOTH, "print the histogram" },
	{ "log", 'l', "FILE", BOTH, "write the transaction log to FILE" },
	{ "json", 'j', "FILE", BOTH, "write the JSON summary to FILE (- = stdout)" },
	{ "bucket-size", 'b', "US", BOTH, "histogram bucket width (default 1)" },
	{ "overflow", 'o', "US", BOTH, "histogram range; samples above are kept exactly (default 100)" },
	{ "hugepages", 'G', NULL, BOTH, "put records and histograms in hugepages" },
	{ "busy-poll-us", 'p', "US", BOTH, "SO_BUSY_POLL: busy-poll the device queue for US (default 0, off)" },
	{ "budget", 'B', "N", BOTH, "SO_BUSY_POLL_BUDGET: packets per busy-poll (needs -p)" },
	{ "prefer-busypoll", 'P', NULL, BOTH, "SO_PREFER_BUSY_POLL (needs -p)" },
	{ "threshold", 't', "US", BOTH, "breach above US (RTT emitting, response reflecting): print the breakdown, exit 3" },
	{ "continue", 'C', NULL, BOTH, "keep running after a breach (needs -t)" },
	{ "log-threshold", 'L', "US", BOTH, "log only transactions above US (needs -l)" },
	{ "trace-marker", 'T', NULL, BOTH, "write markers to the ftrace instance and stop it at a breach" },
	{ "snapshot", 'S', NULL, BOTH, "log a ring of the last 500000; with -T, take the instance's snapshot at a breach" },
	{ "trace-instance", O_TRACE_INSTANCE, "NAME", BOTH, "ftrace instance name or path (default rant; needs -T)" },
	{ "verbose", 'v', NULL, BOTH, "say more at start-up" },
	{ "help", 'h', NULL, BOTH, "this help" },
	{ "version", O_VERSION, NULL, BOTH, "print the version" },
};

#define NOPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static const struct opt *opt_find(int val)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_table[i].val == val)
			return &opt_table[i];
	return NULL;
}

/* "-d/--duration" or "--port" for messages. */
static const char *opt_label(int val, char *buf, size_t len)
{
	const struct opt *o = opt_find(val);

	if (!o)
		snprintf(buf, len, "?");
	else if (o->val < 256)
		snprintf(buf, len, "-%c/--%s", o->val, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

void opts_usage(FILE *f)
{
	fprintf(f,
		"usage: rant -i IFACE [options]            reflect (server)\n"
		"       rant -i IFACE -a ADDR [options]    emit (client)\n"
		"\n"
		"Measures UDP round trips with NIC (or kernel) timestamps.\n"
		"Times are in microseconds (US, decimals allowed) and seconds (S).\n"
		"\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *o = &opt_table[i];
		char head[48];
		int n;

		if (o->val < 256)
			n = snprintf(head, sizeof(head), "  -%c, --%s", o->val, o->name);
		else
			n = snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->arg)
			snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
		fprintf(f, "%-28s %s%s\n", head, o->help,
			o->who == EMIT_ONLY ? " [emit]" : "");
	}
	fprintf(f,
		"\n"
		"Exit status: 0 finished, 1 usage or setup error, 2 failure during\n"
		"the run, 3 threshold breached. See rant(8).\n");
}

struct parser {
	FILE *err;
	int val;		/* option being parsed */
};

static int bad(struct parser *ps, const char *fmt, const char *arg,
	       const char *range)
{
	char label[40];

	fprintf(ps->err, "rant: %s: ", opt_label(ps->val, label, sizeof(label)));
	fprintf(ps->err, fmt, arg, range);
	fputc('\n', ps->err);
	return -1;
}

/* Integer in [lo, hi]. */
static int parse_u64(struct parser *ps, const char *s, uint64_t lo,
		     uint64_t hi, uint64_t *out)
{
	char range[64], *end;
	unsigned long long v;

	snprintf(range, sizeof(range), "%" PRIu64 " to %" PRIu64, lo, hi);
	/* strtoull would skip leading blanks and take a sign: digits only */
	if (*s < '0' || *s > '9')
		return bad(ps, "'%s' is not a number: give an integer from %s", s, range);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return bad(ps, "'%s' is not a number: give an integer from %s", s, range);
	if (errno == ERANGE || v < lo || v > hi)
		return bad(ps, "%s is out of range. Must be in the range %s", s, range);
	*out = v;
	return 0;
}

/* ns as a decimal number of units, without trailing zeros: "0.001". */
static void fmt_units(char *buf, size_t len, int64_t ns, int64_t unit_ns)
{
	int64_t frac = ns % unit_ns;
	char digits[20] = "";
	int width = 0;

	for (int64_t u = unit_ns; u > 1 && width < 18; u /= 10)
		width++;
	for (int i = width - 1; i >= 0; i--, frac /= 10)
		digits[i] = (char)('0' + frac % 10);
	while (width > 0 && digits[width - 1] == '0')
		digits[--width] = '\0';
	snprintf(buf, len, "%" PRId64 "%s%s", ns / unit_ns, width ? "." : "", digits);
}

/*
 * Decimal number of units (unit_ns per unit, e.g. 1000 for US) to ns,
 * without floating point: "1.5" US is 1500 ns. Range in units.
 */
static int parse_dec_ns(struct parser *ps, const char *s, int64_t unit_ns,
			int64_t lo_ns, int64_t hi_ns, int64_t *out)
{
	char range[64], lo[24], hi[24];
	const char *p = s;
	int64_t ip = 0, frac = 0, scale = unit_ns, ns;
	bool digits = false, big = false;

	fmt_units(lo, sizeof(lo), lo_ns, unit_ns);
	fmt_units(hi, sizeof(hi), hi_ns, unit_ns);
	snprintf(range, sizeof(range), "%s to %s", lo, hi);
	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		/* More whole units than hi_ns holds: out of range, and no
		 * more arithmetic that could overflow. */
		big = big || ip > hi_ns / unit_ns || ip > (INT64_MAX - 9) / 10;
		if (!big)
			ip = ip * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (scale >= 10) {
				scale /= 10;
				frac += (*p - '0') * scale;
			} else if (*p != '0') {
				return bad(ps, "%s is finer than a nanosecond. Must be in the range %s, to 1 ns",
					   s, range);
			}
		}
	}
	if (!digits || *p)
		return bad(ps, "'%s' is not a number: give a value from %s", s, range);
	if (big || ip > hi_ns / unit_ns ||
	    __builtin_add_overflow(ip * unit_ns, frac, &ns) || ns < lo_ns || ns > hi_ns)
		return bad(ps, "%s is out of range. Must be in the range %s", s, range);
	*out = ns;
	return 0;
}

static void set_defaults(struct rant_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->port = RANT_DEFAULT_PORT;
	c->duration_ns = -1;	/* by mode, below */
	c->warmup = 100;
	c->size = WIRE_PONG_LEN;
	c->timeout_ns = 100 * NS_PER_MS;
	c->bucket_ns = 1 * NS_PER_US;
	c->overflow_ns = 100 * NS_PER_US;
	c->trace_instance = "rant";
}

/* Fails when option val was given but its prerequisite was not. */
static int need(struct parser *ps, const bool *given, int val, int req)
{
	char a[40], b[40];

	if (!given[val] || given[req])
		return 0;
	fprintf(ps->err, "rant: %s needs %s\n", opt_label(val, a, sizeof(a)),
		opt_label(req, b, sizeof(b)));
	return -1;
}

/*
 * Transactions an emitter can make in its default 10 s: one per --interval
 * and one more, or RANT_MAX_RATE a second back to back (the rate the log
 * is sized at from -d). A larger -c without -d would stop at 10 s.
 */
static uint64_t default_reach(const struct rant_cfg *c)
{
	if (c->interval_ns)
		return (uint64_t)(10 * NS_PER_SEC / c->interval_ns) + 1;
	return 10ULL * RANT_MAX_RATE;
}

static int check(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	char label[40];

	if (!c->iface || !*c->iface) {
		fprintf(ps->err, "rant: -i/--interface is required: name the interface to measure on (ip link lists them)\n");
		return -1;
	}
	if (given['a'] && !*c->addr) {
		fprintf(ps->err, "rant: -a/--address is empty: give the reflector's IP address\n");
		return -1;
	}
	c->mode = given['a'] ? MODE_EMIT : MODE_REFLECT;
	if (c->mode == MODE_REFLECT) {
		for (size_t i = 0; i < NOPTS; i++)
			if (opt_table[i].who == EMIT_ONLY && given[opt_table[i].val]) {
				fprintf(ps->err, "rant: %s is for the emitter: give -a ADDR, or drop it on the reflector (which echoes what it receives)\n",
					opt_label(opt_table[i].val, label, sizeof(label)));
				return -1;
			}
	}
	if (c->duration_ns < 0) {
		c->duration_ns = c->mode == MODE_EMIT ? 10 * NS_PER_SEC : 0;
		if (c->mode == MODE_EMIT && c->count > default_reach(c)) {
			fprintf(ps->err, "rant: -c/--count %" PRIu64 " cannot be reached in the default -d/--duration of 10 s (%" PRIu64 " at most): give -d 0 to run until the count, or a -d long enough\n",
				c->count, default_reach(c));
			return -1;
		}
	}
	if (need(ps, given, 'B', 'p') || need(ps, given, 'P', 'p') ||
	    need(ps, given, 'C', 't') || need(ps, given, 'L', 'l') ||
	    need(ps, given, O_TRACE_INSTANCE, 'T'))
		return -1;
	if ((given['B'] || given['P']) && !c->busy_poll_us) {
		fprintf(ps->err, "rant: %s needs busy polling on: give -p/--busy-poll-us above 0 (-p 0 is off)\n",
			opt_label(given['B'] ? 'B' : 'P', label, sizeof(label)));
		return -1;
	}
	if (c->overflow_ns < c->bucket_ns || c->overflow_ns % c->bucket_ns) {
		fprintf(ps->err, "rant: -o/--overflow must be a multiple of -b/--bucket-size (%g us): e.g. -o %g\n",
			(double)c->bucket_ns / NS_PER_US,
			(double)(c->overflow_ns / c->bucket_ns + 1) * c->bucket_ns / NS_PER_US);
		return -1;
	}
	if (c->overflow_ns / c->bucket_ns > 10000000) {
		fprintf(ps->err, "rant: -o/--overflow over -b/--bucket-size gives %" PRId64 " buckets, more than 10000000: raise -b or lower -o\n",
			c->overflow_ns / c->bucket_ns);
		return -1;
	}
	if (c->log_path && !c->snapshot && !c->duration_ns && !c->count) {
		fprintf(ps->err, "rant: -l/--log needs a bounded run to size the log: give -d S or -c N (or -S for a ring of the last %d)\n",
			RANT_RING_RECORDS);
		return -1;
	}
	return 0;
}

enum opts_result opts_parse(int argc, char **argv, struct rant_cfg *c,
			    FILE *err)
{
	struct option longopts[NOPTS + 1];
	char shortopts[3 * NOPTS + 2], *sp = shortopts;
	struct parser ps = { .err = err };
	bool given[O_VERSION + 1] = { false };
	uint64_t u;
	int64_t ns;
	int opt;

	set_defaults(c);
	*sp++ = ':';		/* report a missing argument as ':' */
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *o = &opt_table[i];

		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
		if (o->val < 256) {
			*sp++ = (char)o->val;
			if (o->arg)
				*sp++ = ':';
		}
	}
	longopts[NOPTS] = (struct option){ 0 };
	*sp = '\0';

	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			const char *what = optopt ? NULL : argv[optind - 1];
			char label[40];

			if (opt == ':')
				fprintf(err, "rant: %s needs an argument (rant --help)\n",
					optopt ? opt_label(optopt, label, sizeof(label)) : what);
			else if (optopt && opt_find(optopt))	/* --flag=VALUE */
				fprintf(err, "rant: %s takes no value (rant --help)\n",
					opt_label(optopt, label, sizeof(label)));
			else if (optopt)
				fprintf(err, "rant: unknown option -%c (rant --help)\n", optopt);
			else
				fprintf(err, "rant: unknown option %s (rant --help)\n", what);
			return OPTS_ERROR;
		}
		ps.val = opt;
		if (given[opt] && opt_find(opt) && opt_find(opt)->arg) {
			char label[40];

			fprintf(err, "rant: %s given twice (again as '%s'): give it once\n",
				opt_label(opt, label, sizeof(label)), optarg);
			return OPTS_ERROR;
		}
		given[opt] = true;
		switch (opt) {
		case 'i': c->iface = optarg; break;
		case 'a': c->addr = optarg; break;
		case O_PORT:
			if (parse_u64(&ps, optarg, 1, 65535, &u))
				return OPTS_ERROR;
			c->port = (uint16_t)u;
			break;
		case 'd':
			if (parse_dec_ns(&ps, optarg, NS_PER_SEC, 0, 2592000 * NS_PER_SEC, &c->duration_ns))
				return OPTS_ERROR;
			break;
		case 'c':
			if (parse_u64(&ps, optarg, 0, 1000000000000ULL, &c->count))
				return OPTS_ERROR;
			break;
		case 'w':
			if (parse_u64(&ps, optarg, 0, 1000000, &u))
				return OPTS_ERROR;
			c->warmup = (uint32_t)u;
			break;
		case 'm':
			if (parse_u64(&ps, optarg, WIRE_HDR_LEN, WIRE_MAX_LEN, &u))
				return OPTS_ERROR;
			c->size = (uint32_t)u;
			break;
		case O_TIMEOUT:
			if (parse_dec_ns(&ps, optarg, NS_PER_US, NS_PER_US, NS_PER_SEC, &c->timeout_ns))
				return OPTS_ERROR;
			break;
		case O_INTERVAL:
			if (parse_dec_ns(&ps, optarg, NS_PER_US, 0, 60 * NS_PER_SEC, &c->interval_ns))
				return OPTS_ERROR;
			break;
		case O_BLOCK: c->block = true; break;
		case 's': c->sw = true; break;
		case 'R': c->no_hw_ts = true; break;
		case 'H': c->histogram = true; break;
		case 'l':
		case 'j':
			if (!*optarg) {
				fprintf(err, "rant: %s is empty: give a file name%s\n",
					opt == 'l' ? "-l/--log" : "-j/--json",
					opt == 'j' ? " (- for stdout)" : "");
				return OPTS_ERROR;
			}
			*(opt == 'l' ? &c->log_path : &c->json_path) = optarg;
			break;
		case 'b':
			if (parse_dec_ns(&ps, optarg, NS_PER_US, 1, 1000 * NS_PER_US, &c->bucket_ns))
				return OPTS_ERROR;
			break;
		case 'o':
			if (parse_dec_ns(&ps, optarg, NS_PER_US, NS_PER_US, 10 * NS_PER_SEC, &c->overflow_ns))
				return OPTS_ERROR;
			break;
		case 'G': c->hugepages = true; break;
		case 'p':
			if (parse_u64(&ps, optarg, 0, 1000000, &u))
				return OPTS_ERROR;
			c->busy_poll_us = (int)u;
			break;
		case 'B':
			if (parse_u64(&ps, optarg, 1, 65535, &u))
				return OPTS_ERROR;
			c->budget = (int)u;
			break;
		case 'P': c->prefer_busypoll = true; break;
		case 't':
			if (parse_dec_ns(&ps, optarg, NS_PER_US, 1, 10 * NS_PER_SEC, &c->threshold_ns))
				return OPTS_ERROR;
			break;
		case 'C': c->cont = true; break;
		case 'L':
			if (parse_dec_ns(&ps, optarg, NS_PER_US, 1, 10 * NS_PER_SEC, &ns))
				return OPTS_ERROR;
			c->log_threshold_ns = ns;
			break;
		case 'T': c->trace_marker = true; break;
		case 'S': c->snapshot = true; break;
		case O_TRACE_INSTANCE:
			if (!*optarg) {
				fprintf(err, "rant: --trace-instance is empty: give an instance name or path\n");
				return OPTS_ERROR;
			}
			c->trace_instance = optarg;
			break;
		case 'v': c->verbose++; break;
		case 'h':
			opts_usage(stdout);
			return OPTS_HELP;
		case O_VERSION:
			printf("rant %s\n", RANT_VERSION);
			return OPTS_HELP;
		}
	}
	if (optind < argc) {
		fprintf(err, "rant: unexpected argument '%s' (options take their values after a space: rant --help)\n",
			argv[optind]);
		return OPTS_ERROR;
	}
	return check(&ps, c, given) ? OPTS_ERROR : OPTS_OK;
}
