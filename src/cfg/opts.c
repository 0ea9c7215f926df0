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
#include "optfleet.h"
#include "optmetric.h"
#include "optnum.h"
#include "optprobe.h"
#include "opttrace.h"
#include "opts.h"
#include "opttab.h"
#include "ptp.h"
#include "stamp.h"
#include "sweep.h"
#include "wire.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

static const struct opt *opt_find(int val)
{
	for (size_t i = 0; i < opt_count; i++)
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

/* "-p" or "--trace-instance": the short form --help uses. */
static const char *opt_short(const struct opt *o, char *buf, size_t len)
{
	if (o->val < 256)
		snprintf(buf, len, "-%c", o->val);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* Row o's default as --help says it, or "" when it has none to say. */
static void help_default(const struct opt *o, char *buf, size_t len)
{
	*buf = '\0';
	if (o->defhelp)
		snprintf(buf, len, "%s", o->defhelp);
	else if (o->sdef)
		snprintf(buf, len, "%s", o->sdef);
	else if ((o->type == T_UINT || o->type == T_SIZES) && o->def)
		snprintf(buf, len, "%" PRId64, o->def);
	else if (o->type == T_NS && o->def)
		optnum_units(buf, len, o->def, o->unit_ns);
}

/* Row o's range as --help and the errors say it ("0.1 to 3600"), or "". */
static void help_range(const struct opt *o, char *buf, size_t len)
{
	char lo[40], hi[40];

	*buf = '\0';
	if (o->type == T_UINT) {
		snprintf(buf, len, "%" PRId64 " to %" PRId64, o->min, o->max);
	} else if (o->type == T_NS) {
		optnum_units(lo, sizeof(lo), o->min, o->unit_ns);
		optnum_units(hi, sizeof(hi), o->max, o->unit_ns);
		snprintf(buf, len, "%s to %s", lo, hi);
	}
}

/* " (RANGE; default X; needs -Y)", any part left out where the row has
 * none, or "" (rant.8 repeats it for each option: tests/check-man.py). */
static void help_tail(const struct opt *o, char *buf, size_t len)
{
	char range[96], def[64], need[40] = "";
	const char *part[3];
	int n = 0, w = 0;

	help_range(o, range, sizeof(range));
	help_default(o, def, sizeof(def));
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

void opts_usage(FILE *f)
{
	fprintf(f,
		"usage: rant -i IFACE [options]            reflect (server)\n"
		"       rant -i IFACE -a ADDR [options]    emit (client)\n"
		"       rant --read FILE [options]         TCP flows in a capture: latency, what held it\n"
		"       rant -i IFACE --watch [options]    the same, live\n"
		"\n"
		"Measures UDP (or TCP) round trips with NIC (or kernel) timestamps.\n"
		"Times are in microseconds (US, decimals allowed) and seconds (S).\n");
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		const char *group = help_group(o);
		char head[48], tail[224];
		int n;

		if (group)
			fprintf(f, "\n%s:\n", group);
		if (o->val < 256)
			n = snprintf(head, sizeof(head), "  -%c, --%s", o->val, o->name);
		else
			n = snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->arg)
			snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
		help_tail(o, tail, sizeof(tail));
		fprintf(f, "%-27s  %s%s%s\n", head, o->help, tail,
			o->who == EMIT_ONLY ? " [emit]" : o->who == REFLECT_ONLY ? " [reflect]" :
			o->who == WATCH_ONLY ? " [watch]" : o->who == TRACE_ONLY ? " [trace]" : "");
	}
	fprintf(f,
		"\n"
		"Exit status: 0 finished, 1 usage or setup error, 2 failure during\n"
		"the run, 3 threshold breached. See rant(8).\n");
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

static void set_defaults(struct rant_cfg *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		char *p = (char *)c + o->off;

		if (o->type == T_UINT || o->type == T_SIZES)
			store_uint(c, o, (uint64_t)o->def);
		else if (o->type == T_NS)
			memcpy(p, &o->def, sizeof(int64_t));
		else if (o->type == T_STR)
			memcpy(p, &o->sdef, sizeof(o->sdef));
	}
	c->sizes[0] = c->size;
	c->nsizes = 1;
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
		if (optnum_ns(arg, o->unit_ns, o->min, o->max, &ns, msg, sizeof(msg)))
			return bad_line(ps, msg);
		memcpy(p, &ns, sizeof(ns));
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

/* The options --read and --watch take besides their own (WATCH_ONLY). */
static bool watch_takes(int val)
{
	static const int takes[] = { 'i', 'd', 'j', 'v', 'I', 'b', 'o', O_METRICS,
				     O_METRICS_LISTEN, O_METRICS_BUCKETS, O_FOLLOW_LINKS };

	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++)
		if (takes[i] == val)
			return true;
	return false;
}

/* --read FILE, or -i IFACE --watch: traffic rant did not send. */
static int check_watch(struct parser *ps, struct rant_cfg *c, const bool *given)
{
	char label[40];

	c->mode = MODE_WATCH;
	if (given[O_READ] && given[O_WATCH]) {
		fprintf(ps->err, "rant: --read reads a file, --watch an interface: give one of them\n");
		return -1;
	}
	if (given[O_WATCH] && (!c->iface || !*c->iface)) {
		fprintf(ps->err, "rant: --watch needs -i IFACE: name the interface to capture on (ip link lists them)\n");
		return -1;
	}
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		if (!given[o->val] || o->who == WATCH_ONLY || watch_takes(o->val))
			continue;
		fprintf(ps->err, "rant: %s is not for --read or --watch (traffic rant did not send): drop it\n",
			opt_label(o->val, label, sizeof(label)));
		return -1;
	}
	if (given[O_READ] && (given['i'] || given['d'] || given[O_METRICS_LISTEN])) {
		fprintf(ps->err, "rant: %s is for --watch: --read reads its file to the end%s\n",
			opt_label(given['i'] ? 'i' : given['d'] ? 'd' : O_METRICS_LISTEN, label,
				  sizeof(label)),
			given[O_METRICS_LISTEN] ? " (--metrics FILE writes its metrics)" : "");
		return -1;
	}
	if (c->duration_ns == DURATION_BY_MODE)
		c->duration_ns = 0;	/* until SIGINT */
	if (c->overflow_ns < c->bucket_ns || c->overflow_ns % c->bucket_ns) {
		fprintf(ps->err, "rant: -o/--overflow must be a multiple of -b/--bucket-size\n");
		return -1;
	}
	return 0;
}

/* Each option given on the side it is for, with the option it needs. */
static int check_sides(struct parser *ps, const struct rant_cfg *c, const bool *given)
{
	char label[40];

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];

		if (c->mode == MODE_REFLECT && o->who == EMIT_ONLY && given[o->val]) {
			fprintf(ps->err, "rant: %s is for the emitter: give -a ADDR, or drop it on the reflector (which echoes what it receives)\n",
				opt_label(o->val, label, sizeof(label)));
			return -1;
		}
		if (c->mode == MODE_EMIT && o->who == REFLECT_ONLY && given[o->val]) {
			fprintf(ps->err, "rant: %s is for the reflector: drop -a, or drop it on the emitter\n",
				opt_label(o->val, label, sizeof(label)));
			return -1;
		}
		if (need(ps, given, o))
			return -1;
	}
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

/* The options against each other, and the mode. */
static int check(struct parser *ps, struct rant_cfg *c, const bool *given, const char *arg)
{
	char label[40];

	if (given[O_TRACE])
		return opttrace_check(c, given, arg, ps->err);
	if (given[O_READ] || given[O_WATCH])
		return check_watch(ps, c, given);
	for (size_t i = 0; i < opt_count; i++) {
		if (opt_table[i].who == WATCH_ONLY && given[opt_table[i].val]) {
			fprintf(ps->err, "rant: %s is for --read or --watch: give one of them, or drop it\n",
				opt_label(opt_table[i].val, label, sizeof(label)));
			return -1;
		}
		if (opt_table[i].who == TRACE_ONLY && given[opt_table[i].val]) {
			fprintf(ps->err, "rant: %s is for rant trace: give the subcommand (rant trace -i IFACE ADDR), or drop it\n",
				opt_label(opt_table[i].val, label, sizeof(label)));
			return -1;
		}
	}
	if (!c->iface || !*c->iface) {
		fprintf(ps->err, "rant: -i/--interface is required: name the interface to measure on (ip link lists them)\n");
		return -1;
	}
	if (given['a'] && !*c->addr) {
		fprintf(ps->err, "rant: -a/--address is empty: give the reflector's IP address\n");
		return -1;
	}
	if (optfleet_mode(c, given, ps->err) || optprobe_check(c, given, ps->err) ||
	    check_sides(ps, c, given))
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
	if (c->duration_ns == DURATION_BY_MODE) {
		c->duration_ns = c->mode == MODE_EMIT ? 10 * NS_PER_SEC : 0;
		if (c->mode == MODE_EMIT && c->count > default_reach(c)) {
			fprintf(ps->err, "rant: -c/--count %" PRIu64 " cannot be reached in the default -d/--duration of 10 s (%" PRIu64 " at most): give -d 0 to run until the count, or a -d long enough\n",
				c->count, default_reach(c));
			return -1;
		}
	}
	if (c->mode == MODE_REFLECT && !given['w'])
		c->warmup = 0;	/* the row's default is the emitter's */
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
	if (given[O_LOG_BUFFER] && c->snapshot) {
		fprintf(ps->err, "rant: --log-buffer sizes a streamed log; -S keeps the last %d in memory instead: drop one of them\n",
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

		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
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

enum opts_result opts_parse(int argc, char **argv, struct rant_cfg *c,
			    FILE *err)
{
	struct option longopts[OPTS_MAX + 1];
	char shortopts[3 * OPTS_MAX + 2], label[40];
	struct parser ps = { .err = err };
	bool given[O_MAX] = { false };
	int opt;

	set_defaults(c);
	c->argc = argc;
	c->argv = argv;
	build_getopt(longopts, shortopts);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			getopt_error(err, opt, argv);
			return OPTS_ERROR;
		}
		ps.o = opt_find(opt);
		if (ps.o->type == T_HELP) {
			opts_usage(stdout);
			return OPTS_HELP;
		}
		if (ps.o->type == T_VERSION) {
			printf("rant %s\n", RANT_VERSION);
			return OPTS_HELP;
		}
		if (given[opt] && ps.o->arg && ps.o->type != T_ALLOW) {
			fprintf(err, "rant: %s given twice (again as '%s'): give it once\n",
				opt_label(opt, label, sizeof(label)), optarg);
			return OPTS_ERROR;
		}
		given[opt] = true;
		if (parse_arg(&ps, c, optarg))
			return OPTS_ERROR;
	}
	/* rant trace's one argument: its address */
	if (optind < argc && !(given[O_TRACE] && optind == argc - 1)) {
		fprintf(err, "rant: unexpected argument '%s' (options take their values after a space: rant --help)\n",
			argv[given[O_TRACE] ? optind + 1 : optind]);
		return OPTS_ERROR;
	}
	return check(&ps, c, given, optind < argc ? argv[optind] : NULL) ? OPTS_ERROR : OPTS_OK;
}
