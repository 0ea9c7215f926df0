// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command line. One row per option (linuxptp's config_tab) holds its
 * name, letter, argument, who may use it, where it is stored, its
 * default, its range and its help; getopt_long's tables, the defaults,
 * the parsing and --help all read the rows, so nothing is written twice.
 * Numbers are parsed against the row's range and a rejection names the
 * range (linuxptp get_arg_val).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "openloop.h"
#include "optcomp.h"
#include "optfleet.h"
#include "opthelp.h"
#include "optmetric.h"
#include "optnum.h"
#include "optprobe.h"
#include "opttrace.h"
#include "opts.h"
#include "opttab.h"
#include "ptp.h"
#include "stamp.h"
#include "subcmd.h"
#include "sweep.h"
#include "wire.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

void opts_usage(FILE *f)
{
	opthelp_overview(f);
}

struct parser {
	FILE *err;
	const struct opt *o;	/* option being parsed */
};



static int bad(struct parser *ps, const char *fmt, const char *arg,
	       const char *range)
{
	char label[40];

	fprintf(ps->err, "rant: %s: ", opt_label(ps->o->val, label, sizeof(label)));
	fprintf(ps->err, fmt, arg, range);
	fputc('\n', ps->err);
	return -1;
}

/* The same with a line made already (optnum.h). */
static int bad_line(struct parser *ps, const char *line)
{
	char label[40];

	fprintf(ps->err, "rant: %s: %s\n", opt_label(ps->o->val, label, sizeof(label)), line);
	return -1;
}

static void store_uint(struct rant_cfg *c, const struct opt *o, uint64_t v)
{
	char *p = (char *)c + o->off;

	switch (o->size) {
	case sizeof(uint8_t): { uint8_t x = (uint8_t)v; memcpy(p, &x, sizeof(x)); break; }
	case sizeof(uint16_t): { uint16_t x = (uint16_t)v; memcpy(p, &x, sizeof(x)); break; }
	case sizeof(uint32_t): { uint32_t x = (uint32_t)v; memcpy(p, &x, sizeof(x)); break; }
	default: memcpy(p, &v, sizeof(v)); break;
	}
}

/* Row o's default for subcommand sub into c. */
static void set_default(struct rant_cfg *c, const struct opt *o, enum rant_sub sub)
{
	int64_t def = o->alt.who & (1u << sub) ? o->alt.def : o->def;
	char *p = (char *)c + o->off;

	if (o->type == T_UINT || o->type == T_SIZES)
		store_uint(c, o, (uint64_t)def);
	else if (o->type == T_NS)
		memcpy(p, &def, sizeof(int64_t));
	else if (o->type == T_USEC)
		*(int *)p = (int)(def / NS_PER_US);
	else if (o->type == T_STR)
		memcpy(p, &o->sdef, sizeof(o->sdef));
}

/* Every row's default, those of the rows sub takes last (two rows may
 * share a field: -w and --session-warmup). */
static void set_defaults(struct rant_cfg *c, enum rant_sub sub)
{
	memset(c, 0, sizeof(*c));
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < opt_count; i++)
			if (opt_takes(&opt_table[i], sub) == (pass == 1))
				set_default(c, &opt_table[i], sub);
	c->sizes[0] = c->size;
	c->nsizes = 1;
	c->sub = sub;
	c->mode = subcmd_table[sub].mode;
}

/*
 * -m: one size, a list or a range, in the transport's range (known only
 * once every option is read); the first is cfg->size.
 */
static int parse_sizes(struct parser *ps, struct rant_cfg *c)
{
	/* the transport's largest message, less the format's own header */
	uint32_t hi = (c->tcp ? RANT_TCP_MAX_LEN : WIRE_MAX_LEN) -
		      msgfmt_find(opts_format(c))->caps.overhead;
	char msg[200];

	if (!c->size_arg)
		return 0;
	ps->o = opt_find('m');
	if (sweep_parse(c->size_arg, (uint32_t)ps->o->min, hi, c->sizes, RANT_MAX_SIZES,
			&c->nsizes, msg, sizeof(msg)))
		return bad(ps, "%s%s", msg, c->tcp ? "" : c->ptp_mode ?
			   " (UDP after the 34-byte PTP header of --ptp-mode)" :
			   " (UDP; with --tcp on both sides, up to 1048576)");
	c->size = c->sizes[0];
	return 0;
}

/* --allow PREFIX: one more entry of the list. */
static int parse_allow(struct parser *ps, struct rant_cfg *c, const char *arg)
{
	char msg[200];

	if (allow_add(&c->allow, arg, msg, sizeof(msg)))
		return bad(ps, "%s%s", msg, "");
	return 0;
}

/*
 * --key on the emitter: the MAC lives inside the message, at its end.
 * Without -m the size grows to hold the pong body and the MAC; a given
 * size must hold the header and the MAC at least.
 */
static int key_sizes(struct parser *ps, struct rant_cfg *c)
{
	const struct msgfmt_caps *k = &msgfmt_find(opts_format(c))->caps;
	char msg[200];

	if (!c->key_path || c->mode != MODE_EMIT)
		return 0;
	if (!c->size_arg) {
		c->size = c->sizes[0] = k->auth_body_len;
		return 0;
	}
	for (unsigned int i = 0; i < c->nsizes; i++) {
		if (c->sizes[i] >= k->auth_min_len)
			continue;
		ps->o = opt_find('m');
		snprintf(msg, sizeof(msg), "%u bytes cannot hold the header (%u) and the MAC of --key (%u): give -m %u or more (%u or more for the reflector's stamps)",
			 c->sizes[i], k->min_len, k->auth_min_len - k->min_len, k->auth_min_len,
			 k->auth_body_len);
		return bad(ps, "%s%s", msg, "");
	}
	return 0;
}

/* Store optarg for row o: 0, or -1 after a message. */
static int parse_arg(struct parser *ps, struct rant_cfg *c, const char *arg)
{
	const struct opt *o = ps->o;
	char *p = (char *)c + o->off, label[40], msg[200];
	uint64_t u = 0;
	int64_t ns = 0;

	switch (o->type) {
	case T_FLAG:
		*(bool *)p = true;
		return 0;
	case T_COUNT:
		(*(int *)p)++;
		return 0;
	case T_OPTARG:
		if (arg && strcmp(arg, o->sdef)) {
			fprintf(ps->err, "rant: %s=%s: the only value is %s (or none)\n",
				opt_label(o->val, label, sizeof(label)), arg, o->sdef);
			return -1;
		}
		*(int *)p = arg ? 2 : 1;
		return 0;
	case T_STR:
		if (!*arg && o->val != 'a' && o->val != 'i') {	/* check() says what they are for */
			fprintf(ps->err, "rant: %s is empty: give %s%s\n",
				opt_label(o->val, label, sizeof(label)),
				o->val == 'l' || o->val == 'j' || o->val == O_PCAP ? "a file name" : o->arg,
				o->val == 'j' || o->val == O_PCAP ? " (- for stdout)" : "");
			return -1;
		}
		memcpy(p, &arg, sizeof(arg));
		return 0;
	case T_UINT:
		if (optnum_u64(arg, (uint64_t)o->min, (uint64_t)o->max, &u, msg, sizeof(msg)))
			return bad_line(ps, msg);
		store_uint(c, o, u);
		return 0;
	case T_NS:
	case T_USEC:
		if (optnum_ns(arg, o->unit_ns, o->min, o->max, &ns, msg, sizeof(msg)))
			return bad_line(ps, msg);
		if (o->type == T_NS) {
			memcpy(p, &ns, sizeof(ns));
			return 0;
		}
		if (ns % NS_PER_US)
			return bad_line(ps, "give whole microseconds");
		*(int *)p = (int)(ns / NS_PER_US);
		return 0;
	case T_SIZES:
		c->size_arg = arg;
		return 0;
	case T_ALLOW:
		return parse_allow(ps, c, arg);
	case T_HELP:
	case T_VERSION:
		break;
	}
	return 0;
}

/* Fails when option o was given but its prerequisite was not. */
static int need(struct parser *ps, const bool *given, const struct opt *o)
{
	char a[40], b[40];

	if (!o->needs || !given[o->val] || given[o->needs])
		return 0;
	fprintf(ps->err, "rant: %s needs %s\n", opt_label(o->val, a, sizeof(a)),
		opt_label(o->needs, b, sizeof(b)));
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

/* Does any size of -m leave room for the pong body (the reflector's stamps)? */
static bool sizes_carry_body(const struct rant_cfg *c)
{
	const struct msgfmt_caps *k = &msgfmt_find(opts_format(c))->caps;

	for (unsigned int i = 0; i < c->nsizes; i++)
		if (k->reflector_stamps && c->sizes[i] >= k->body_len)
			return true;
	return false;
}

/* --ptp-mode: UDP only; the port defaults to PTP's event port. */
static int check_ptp_mode(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	if (!c->ptp_mode)
		return 0;
	if (c->tcp) {
		fprintf(ps->err, "rant: --ptp-mode sends PTP event messages in UDP datagrams: drop --tcp, or drop --ptp-mode\n");
		return -1;
	}
	if (!given[O_PORT])
		c->port = PTP_EVENT_PORT;
	return 0;
}

/* --stamp: UDP, port 862, a packet at least STAMP's base, one format. */
static int check_stamp(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	if (!c->stamp)
		return 0;
	if (c->tcp || c->ptp_mode) {
		fprintf(ps->err, "rant: --stamp sends STAMP test packets in UDP datagrams: drop %s, or drop --stamp\n",
			c->tcp ? "--tcp" : "--ptp-mode");
		return -1;
	}
	if (strcmp(c->stamp_ts, "ntp") && strcmp(c->stamp_ts, "ptp")) {
		fprintf(ps->err, "rant: --stamp-ts %s: give ntp or ptp\n", c->stamp_ts);
		return -1;
	}
	if (!given[O_PORT])
		c->port = STAMP_PORT;
	return 0;
}

/* --diagnosis: auto, on or off, into c->diagnosis_mode. */
static int check_diagnosis(struct parser *ps, struct rant_cfg *c)
{
	static const char *const modes[] = {
		[DIAGNOSIS_AUTO] = "auto", [DIAGNOSIS_ON] = "on", [DIAGNOSIS_OFF] = "off",
	};

	for (int i = 0; i < (int)(sizeof(modes) / sizeof(modes[0])); i++)
		if (!strcmp(c->diagnosis, modes[i])) {
			c->diagnosis_mode = i;
			return 0;
		}
	fprintf(ps->err, "rant: --diagnosis %s: give auto, on or off\n", c->diagnosis);
	return -1;
}

/* --stamp: each -m holds STAMP's base packet (the key's sizes are checked
 * by key_sizes()). */
static int stamp_sizes(struct parser *ps, const struct rant_cfg *c)
{
	for (unsigned int i = 0; c->stamp && c->mode == MODE_EMIT && i < c->nsizes; i++) {
		if (c->sizes[i] >= STAMP_BASE_LEN)
			continue;
		fprintf(ps->err, "rant: -m %u cannot hold a STAMP test packet: give -m %d or more\n",
			c->sizes[i], STAMP_BASE_LEN);
		return -1;
	}
	return 0;
}

/* --open-loop: UDP, paced, and a table of pings in flight that fits. */
static int check_open_loop(struct parser *ps, const struct rant_cfg *c)
{
	if (!c->interval_ns) {
		fprintf(ps->err, "rant: --open-loop needs --interval above 0: back to back, a ping can only leave when the last pong came\n");
		return -1;
	}
	if (c->tcp) {
		fprintf(ps->err, "rant: --open-loop is for UDP: over --tcp the messages queue on one stream and none is lost, only delayed\n");
		return -1;
	}
	if (cfg_requests(c))
		return 0;	/* --http: as many in flight as --connections */
	if (!ol_slots(c->timeout_ns + OL_TX_WAIT_NS, c->interval_ns)) {
		char t[24], i[24];

		optnum_units(t, sizeof(t), c->timeout_ns, NS_PER_US);
		optnum_units(i, sizeof(i), c->interval_ns, NS_PER_US);
		fprintf(ps->err, "rant: --open-loop: --timeout %s us / --interval %s us keeps more than %u pings in flight: raise --interval or lower --timeout\n",
			t, i, OL_MAX_SLOTS / 2);
		return -1;
	}
	return 0;
}

/* rant read FILE, or rant watch -i IFACE: traffic rant did not send (the
 * options they take are the rows' W_READ, W_WATCH). */
static int check_watch(struct parser *ps, const struct rant_cfg *c, const bool *given)
{
	if (given[O_WATCH] && (!c->iface || !*c->iface)) {
		fprintf(ps->err, "rant: --watch needs -i IFACE: name the interface to capture on (ip link lists them)\n");
		return -1;
	}
	return 0;
}

/* Each option given to a subcommand that takes it, with the option it
 * needs; -S as what it spells. */
static int check_scope(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	char label[40], them[200];

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		if (!given[o->val] || opt_takes(o, c->sub))
			continue;
		subcmd_names(o->who, them, sizeof(them));
		fprintf(ps->err, "rant: %s is not for %s: it is for %s: drop it\n",
			opt_label(o->val, label, sizeof(label)), subcmd_table[c->sub].as, them);
		return -1;
	}
	for (size_t i = 0; i < opt_count; i++)
		if (need(ps, given, &opt_table[i]))
			return -1;
	if (c->sub == SUB_REFLECT && given['w'] && given[O_SESSION_WARMUP]) {
		fprintf(ps->err, "rant: -w/--warmup is the old spelling of --session-warmup: give one of them\n");
		return -1;
	}
	c->log_ring = c->log_ring || c->snapshot;
	c->trace_snapshot = c->trace_snapshot || (c->snapshot && c->trace_marker);
	return 0;
}

/* -b and -o: the printed histogram's buckets. */
static int check_buckets(struct parser *ps, const struct rant_cfg *c)
{
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
	return 0;
}

/* The options against each other, and the subcommand. */
static int check(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	char label[40];

	if (given[O_READ] && given[O_WATCH]) {
		fprintf(ps->err, "rant: --read reads a file, --watch an interface: give one of them\n");
		return -1;
	}
	if (check_scope(ps, c, given))
		return -1;
	if (c->mode == MODE_WATCH)
		return check_watch(ps, c, given) || check_buckets(ps, c) ? -1 : 0;
	if (c->mode == MODE_TRACE)
		return opttrace_check(c, given, ps->err);
	if (c->mode == MODE_SOCKETS)
		return 0;	/* its word is read by rant sockets itself */
	if (!c->iface || !*c->iface) {
		fprintf(ps->err, "rant: -i/--interface is required: name the interface to measure on (ip link lists them)\n");
		return -1;
	}
	if (given['a'] && !*c->addr) {
		fprintf(ps->err, "rant: -a/--address is empty: give the reflector's IP address\n");
		return -1;
	}
	if (optfleet_mode(given, ps->err) || optprobe_check(c, given, ps->err))
		return -1;
	if (check_ptp_mode(ps, c, given) || check_stamp(ps, c, given) || check_diagnosis(ps, c))
		return -1;
	if (parse_sizes(ps, c) || key_sizes(ps, c) || stamp_sizes(ps, c))
		return -1;
	if (c->one_way && !sizes_carry_body(c)) {
		fprintf(ps->err, "rant: --one-way needs the reflector's stamps, which pongs carry from %d bytes: give -m %d or more\n",
			WIRE_PONG_LEN, WIRE_PONG_LEN);
		return -1;
	}
	if (c->mode == MODE_EMIT && !given['d'] && c->count > default_reach(c)) {
		fprintf(ps->err, "rant: -c/--count %" PRIu64 " cannot be reached in the default -d/--duration of 10 s (%" PRIu64 " at most): give -d 0 to run until the count, or a -d long enough\n",
			c->count, default_reach(c));
		return -1;
	}
	if ((given['B'] || given['P']) && !c->busy_poll_us) {
		fprintf(ps->err, "rant: %s needs busy polling on: give -p/--busy-poll-us above 0 (-p 0 is off)\n",
			opt_label(given['B'] ? 'B' : 'P', label, sizeof(label)));
		return -1;
	}
	if (check_buckets(ps, c) || optfleet_check(c, given, ps->err))
		return -1;
	if (c->open_loop && check_open_loop(ps, c))
		return -1;
	if (c->threshold_metric && optmetric_check(c, ps->err))
		return -1;
	if (c->json_path && c->pcap_path && !strcmp(c->json_path, "-") && !strcmp(c->pcap_path, "-")) {
		fprintf(ps->err, "rant: -j/--json and --pcap cannot both write to stdout (-): name a file for one of them\n");
		return -1;
	}
	if (given[O_LOG_BUFFER] && c->log_ring) {
		fprintf(ps->err, "rant: --log-buffer sizes a streamed log; --log-ring (-S) keeps the last %d in memory instead: drop one of them\n",
			RANT_RING_RECORDS);
		return -1;
	}
	return 0;
}

/* getopt_long's tables from the rows. */
static void build_getopt(struct option *longopts, char *shortopts)
{
	char *sp = shortopts;

	*sp++ = ':';		/* report a missing argument as ':' */
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		longopts[i] = (struct option){ o->name, o->type == T_OPTARG ? optional_argument :
					       o->arg ? required_argument : no_argument,
					       NULL, o->val };
		if (o->val < 256) {
			*sp++ = (char)o->val;
			if (o->arg)
				*sp++ = ':';
		}
	}
	longopts[opt_count] = (struct option){ 0 };
	*sp = '\0';
}

/* getopt_long's '?' or ':' as one line. */
static void getopt_error(FILE *err, int opt, char **argv)
{
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
}

/*
 * The old spellings' subcommand, from the options given, as the flags
 * chose the mode before there were subcommands.
 */
static enum rant_sub infer(const bool *given)
{
	if (given[O_READ])
		return SUB_READ;
	if (given[O_WATCH])
		return SUB_WATCH;
	if (given[O_ICMP] || given[O_SYN] || given[O_HTTP] || given[O_REQUEST])
		return SUB_PROBE;
	return given['a'] || given[O_TARGETS] ? SUB_EMIT : SUB_REFLECT;
}

enum scan_result { SCAN_OK, SCAN_ERROR, SCAN_HELP, SCAN_VERSION };

/*
 * First pass: which options are given (into seen), so that the defaults
 * of the old spellings' subcommand are set before the values are read,
 * and whether --help or --version comes before any line getopt refuses
 * (SCAN_ERROR after its message).
 */
static enum scan_result scan(int argc, char **argv, const struct option *lo, const char *so,
			     bool *seen, FILE *err)
{
	bool help = false;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if ((opt == '?' || opt == ':') && !help) {
			getopt_error(err, opt, argv);
			return SCAN_ERROR;
		}
		if (opt == O_VERSION && !help) {
			printf("rant %s\n", RANT_VERSION);
			return SCAN_VERSION;
		}
		if (opt != '?' && opt != ':')
			seen[opt] = true;
		help = help || opt == 'h';
	}
	return help ? SCAN_HELP : SCAN_OK;
}

/* --help: the subcommand's, the old spellings' by their flags, or the
 * overview. */
static void help_for(const struct subcmd *sc, const bool *seen)
{
	bool mode = seen['a'] || seen[O_TARGETS] || seen[O_READ] || seen[O_WATCH] || seen[O_SYN] ||
		    seen[O_ICMP] || seen[O_HTTP] || seen[O_REQUEST];

	if (sc)
		opthelp_sub(stdout, (enum rant_sub)(sc - subcmd_table));
	else if (mode)
		opthelp_sub(stdout, infer(seen));
	else
		opthelp_overview(stdout);
}

/* rant help [SUB | --all | --completion bash] */
static enum opts_result help_word(int argc, char **argv, FILE *err)
{
	const struct subcmd *sc = argc > 2 ? subcmd_find(argv[2]) : NULL;

	if (argc >= 3 && !strcmp(argv[2], "--completion")) {
		if (argc != 4 || strcmp(argv[3], "bash")) {
			fprintf(err, "rant: help --completion: give bash, the shell it writes for\n");
			return OPTS_ERROR;
		}
		optcomp_bash(stdout);
		return OPTS_HELP;
	}
	if (argc > 3 || (argc == 3 && !sc && strcmp(argv[2], "--all"))) {
		fprintf(err, "rant: help %s: give a subcommand (emit, reflect, probe, read, watch), or nothing\n",
			argv[2]);
		return OPTS_ERROR;
	}
	if (sc)
		opthelp_sub(stdout, (enum rant_sub)(sc - subcmd_table));
	else if (argc == 3)
		opthelp_all(stdout);
	else
		opthelp_overview(stdout);
	return OPTS_HELP;
}

/* Second pass: the values, into c (its defaults set); argv's words left
 * at its end from optind. */
static int read_args(struct parser *ps, int argc, char **argv, const struct option *lo,
		     const char *so, struct rant_cfg *c, bool *given)
{
	char label[40];
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		ps->o = opt_find(opt);
		if (given[opt] && ps->o->arg && ps->o->type != T_ALLOW && ps->o->type != T_OPTARG) {
			fprintf(ps->err, "rant: %s given twice (again as '%s'): give it once\n",
				opt_label(opt, label, sizeof(label)), optarg);
			return -1;
		}
		given[opt] = true;
		if (parse_arg(ps, c, optarg))
			return -1;
	}
	return 0;
}

enum opts_result opts_parse(int argc, char **argv, struct rant_cfg *c,
			    FILE *err)
{
	struct option longopts[OPTS_MAX + 1];
	char shortopts[3 * OPTS_MAX + 2];
	struct parser ps = { .err = err };
	const struct subcmd *sc = NULL;
	bool given[O_MAX] = { false }, seen[O_MAX] = { false };
	int base = 0;

	opterr = 0;
	if (argc > 1 && argv[1][0] != '-') {
		if (!strcmp(argv[1], "help"))
			return help_word(argc, argv, err);
		sc = subcmd_find(argv[1]);
		if (!sc) {
			fprintf(err, "rant: unknown subcommand '%s': give one of", argv[1]);
			for (int i = 0; i < SUB_N; i++)
				fprintf(err, "%s %s", i ? i == SUB_N - 1 ? " or" : "," : "",
					subcmd_table[i].name);
			fprintf(err, " (rant --help)\n");
			return OPTS_ERROR;
		}
		base = 1;	/* getopt reads the subcommand as its argv[0] */
	}
	build_getopt(longopts, shortopts);
	switch (scan(argc - base, argv + base, longopts, shortopts, seen, err)) {
	case SCAN_ERROR:
		return OPTS_ERROR;
	case SCAN_HELP:
		help_for(sc, seen);
		return OPTS_HELP;
	case SCAN_VERSION:
		return OPTS_HELP;
	case SCAN_OK:
		break;
	}
	set_defaults(c, sc ? (enum rant_sub)(sc - subcmd_table) : infer(seen));
	c->argc = argc;
	c->argv = argv;
	if (read_args(&ps, argc - base, argv + base, longopts, shortopts, c, given))
		return OPTS_ERROR;
	if (!sc && optind < argc) {
		fprintf(err, "rant: unexpected argument '%s' (options take their values after a space: rant --help)\n",
			argv[optind]);
		return OPTS_ERROR;
	}
	if (sc && sc->words(c, argv + base + optind, argc - base - optind, given, err))
		return OPTS_ERROR;
	return check(&ps, c, given) ? OPTS_ERROR : OPTS_OK;
}
