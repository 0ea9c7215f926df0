/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/cfg/opts.h under hostile command lines, in the shape of ethtool's
 * test-cmdline.c: a table of argument vectors, each with the result
 * opts_parse() must give and a piece of the one line it must print; the
 * subcommands' forms and the old spellings they stand for; and a table of
 * pairs of lines that must give the same settings.
 *
 * An ERROR prints exactly one line on err, holding the row's text; an OK
 * prints nothing at all; a HELP prints on stdout (holding the text) and
 * nothing on err. Arguments are kept whole, so a row can hold an empty
 * argument or one with blanks. Addresses (multicast, broadcast, %scope,
 * [addr]) are checked at set-up, not here.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "tap.h"

#define MAX_ARGS 24

/* A reflector's and an emitter's required options. */
#define R "-i", "eth0"
#define E "-i", "eth0", "-a", "10.0.0.2"

struct row {
	enum opts_result want;
	const char *says;	/* in the one line printed (ERROR, HELP) */
	const char *args[MAX_ARGS];
};

static const struct row rows[] = {
	/* The hostile lines of issue 14. */
	{ OPTS_ERROR, "-d/--duration: 9223372037 is out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "9223372037" } },
	{ OPTS_ERROR, "--timeout: 9223372036854776 is out of range. Must be in the range 1 to 1000000",
	  { E, "--timeout", "9223372036854776" } },
	{ OPTS_ERROR, "-c/--count: ' 5' is not a number",
	  { E, "-c", " 5" } },
	{ OPTS_ERROR, "-a/--address given twice (again as '10.0.0.3')",
	  { E, "-a", "10.0.0.3" } },
	{ OPTS_ERROR, "-c/--count 1000000000000 cannot be reached in the default -d/--duration of 10 s",
	  { E, "-c", "1000000000000", "-l", "run.log" } },
	{ OPTS_ERROR, "-j/--json is empty", { E, "-j", "" } },
	{ OPTS_ERROR, "-l/--log is empty", { E, "-l", "", "-c", "10" } },

	/* Numbers at and past the ends of int64. */
	{ OPTS_ERROR, "out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "9223372036854775807" } },
	{ OPTS_ERROR, "out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "9223372036854775808" } },
	{ OPTS_ERROR, "out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "99999999999999999999999999999999.5" } },
	{ OPTS_ERROR, "out of range. Must be in the range 0 to 60000000",
	  { E, "--interval", "9223372036854775808" } },
	{ OPTS_ERROR, "out of range. Must be in the range 0.001 to 10000000",
	  { E, "-t", "9223372036854775.807" } },
	{ OPTS_ERROR, "out of range. Must be in the range 0 to 1000000000000",
	  { E, "-d", "0", "-c", "18446744073709551616" } },
	{ OPTS_ERROR, "out of range. Must be in the range 1 to 65535",
	  { E, "--port", "18446744073709551615" } },
	{ OPTS_ERROR, "finer than a nanosecond",
	  { E, "-b", "0.0000000001" } },
	{ OPTS_ERROR, "finer than a nanosecond", { E, "-d", "1.0000000001" } },

	/* Numbers that are numbers, out of range: said so, not "not a number". */
	{ OPTS_ERROR, "-d/--duration: -1 is out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "-1" } },
	{ OPTS_ERROR, "-d/--duration: 1e308 is out of range. Must be in the range 0 to 2592000",
	  { E, "-d", "1e308" } },
	{ OPTS_ERROR, "-I/--report-interval: 1e-9 is out of range. Must be in the range 0.01 to 3600",
	  { E, "-I", "1e-9" } },
	{ OPTS_ERROR, "-c/--count: -5 is out of range. Must be in the range 0 to 1000000000000",
	  { E, "-c", "-5" } },
	{ OPTS_ERROR, "--port: 1E+6 is out of range. Must be in the range 1 to 65535",
	  { E, "--port", "1E+6" } },
	{ OPTS_ERROR, "-c/--count: '1.5' is not written in digits only", { E, "-c", "1.5" } },
	{ OPTS_ERROR, "'1e' is not a number", { E, "-d", "1e" } },
	{ OPTS_ERROR, "'-' is not a number", { E, "-d", "-" } },

	/* Empty values. */
	{ OPTS_ERROR, "-i/--interface is required", { "-i", "" } },
	{ OPTS_ERROR, "-a/--address is empty", { R, "-a", "" } },
	{ OPTS_ERROR, "--port: '' is not a number", { E, "--port", "" } },
	{ OPTS_ERROR, "--port: '' is not a number", { E, "--port=" } },
	{ OPTS_ERROR, "-d/--duration: '' is not a number", { E, "-d", "" } },
	{ OPTS_ERROR, "-c/--count: '' is not a number", { E, "-c", "" } },
	{ OPTS_ERROR, "-t/--threshold: '' is not a number", { E, "-t", "" } },
	{ OPTS_ERROR, "--trace-instance is empty", { E, "-T", "--trace-instance", "" } },
	{ OPTS_ERROR, "-l/--log is empty", { R, "--log=", "-S" } },

	/* Junk before, inside and after numbers. */
	{ OPTS_ERROR, "'5 ' is not a number", { E, "-c", "5 " } },
	{ OPTS_ERROR, "'\t5' is not a number", { E, "-c", "\t5" } },
	{ OPTS_ERROR, "'+5' is not written in digits only", { E, "-c", "+5" } },
	{ OPTS_ERROR, "'-0' is not written in digits only", { E, "-c", "-0" } },
	{ OPTS_ERROR, "'5x' is not a number", { E, "-c", "5x" } },
	{ OPTS_ERROR, "'0x10' is not a number", { E, "-c", "0x10" } },
	{ OPTS_ERROR, "'1e3' is not written in digits and a point only", { E, "-d", "1e3" } },
	{ OPTS_ERROR, "'1sec' is not a number", { E, "-d", "1sec" } },
	{ OPTS_ERROR, "' 1' is not a number", { E, "-d", " 1" } },
	{ OPTS_ERROR, "'10 ms' is not a number", { E, "--timeout", "10 ms" } },
	{ OPTS_ERROR, "'ms' is not a number", { E, "--timeout", "ms" } },
	{ OPTS_ERROR, "'10mS' is not a number", { E, "--timeout", "10mS" } },
	{ OPTS_ERROR, "'1,5' is not a number", { E, "-t", "1,5" } },
	{ OPTS_ERROR, "'1..5' is not a number", { E, "-t", "1..5" } },
	{ OPTS_ERROR, "'72 ' is not a size", { E, "-m", "72 " } },
	{ OPTS_ERROR, "'99999999999999999999x' is not a number",
	  { E, "-d", "99999999999999999999x" } },
	{ OPTS_ERROR, "'nan' is not a number", { E, "-b", "nan" } },
	{ OPTS_ERROR, "'inf' is not a number", { E, "-o", "inf" } },

	/* Missing arguments and stray words. */
	{ OPTS_ERROR, "-i/--interface needs an argument", { "-i" } },
	{ OPTS_ERROR, "-m/--size needs an argument", { E, "-m" } },
	{ OPTS_ERROR, "--timeout needs an argument", { E, "--timeout" } },
	{ OPTS_ERROR, "-j/--json needs an argument", { E, "-j" } },
	{ OPTS_ERROR, "unexpected argument 'extra'", { R, "extra" } },
	{ OPTS_ERROR, "unexpected argument 'extra'", { R, "--", "extra" } },
	{ OPTS_ERROR, "unexpected argument '-'", { R, "-" } },
	{ OPTS_ERROR, "unexpected argument ''", { R, "" } },
	{ OPTS_ERROR, "unknown option -x", { R, "-x" } },
	{ OPTS_ERROR, "unknown option --bogus", { R, "--bogus" } },
	{ OPTS_ERROR, "unknown option -x", { "-x", "-h" } },
	{ OPTS_ERROR, "--block takes no value", { R, "--block=1" } },
	{ OPTS_ERROR, "-s/--sw-timestamps takes no value", { R, "--sw-timestamps=yes" } },
	{ OPTS_ERROR, "unknown option -5", { R, "-s5" } },

	/* Emitter-only options on the reflector: named with who takes them. */
	{ OPTS_ERROR, "-m/--size is not for the reflector (rant reflect): it is for the emitter (rant emit): drop it",
	  { R, "-m", "100" } },
	{ OPTS_ERROR, "--timeout is not for the reflector (rant reflect): it is for the emitter (rant emit) or a probe (rant probe)",
	  { R, "--timeout", "5" } },
	{ OPTS_ERROR, "--interval is not for the reflector", { R, "--interval", "100" } },

	/* A value given twice; flags may repeat. */
	{ OPTS_ERROR, "-i/--interface given twice (again as 'eth1')", { R, "-i", "eth1" } },
	{ OPTS_ERROR, "-i/--interface given twice", { R, "--interface=eth0" } },
	{ OPTS_ERROR, "-d/--duration given twice (again as '2')", { E, "-d", "1", "-d", "2" } },
	{ OPTS_ERROR, "-c/--count given twice", { E, "-c", "1", "-c", "1" } },
	{ OPTS_ERROR, "--port given twice", { E, "--port", "1", "--port=2" } },
	{ OPTS_ERROR, "-l/--log given twice", { E, "-l", "a", "-l", "b" } },
	{ OPTS_ERROR, "-j/--json given twice", { E, "-j", "-", "-j", "-" } },
	{ OPTS_ERROR, "-t/--threshold given twice", { E, "-t", "5", "-t", "6" } },
	{ OPTS_ERROR, "-m/--size given twice", { E, "-m", "72", "-m", "100" } },
	{ OPTS_ERROR, "-L/--log-threshold given twice", { E, "-l", "x", "-L", "1", "-L", "2" } },
	{ OPTS_ERROR, "--trace-instance given twice",
	  { E, "-T", "--trace-instance", "a", "--trace-instance", "b" } },
	{ OPTS_OK, NULL, { E, "-s", "-s", "-H", "-H", "-v", "-vv", "--block", "--block" } },

	/* Options that do not go together. */
	{ OPTS_ERROR, "-B/--budget needs busy polling on", { E, "-p", "0", "-B", "8" } },
	{ OPTS_ERROR, "-P/--prefer-busypoll needs busy polling on", { E, "-p", "0", "-P" } },
	{ OPTS_ERROR, "-B/--budget needs -p/--busy-poll-us", { E, "-B", "8" } },
	/* The log streams: any length of run, with or without -d/-c. */
	{ OPTS_OK, NULL, { R, "-l", "x" } },
	{ OPTS_OK, NULL, { E, "-d", "0", "-l", "x" } },
	{ OPTS_OK, NULL, { E, "-d", "3600", "-l", "x" } },
	{ OPTS_OK, NULL, { E, "-l", "x", "--log-buffer", "1024" } },
	{ OPTS_ERROR, "--log-buffer needs -l/--log", { E, "--log-buffer", "4096" } },
	{ OPTS_ERROR, "--log-buffer sizes a streamed log", { E, "-l", "x", "-S", "--log-buffer", "4096" } },
	{ OPTS_ERROR, "--log-buffer: 1023 is out of range", { E, "-l", "x", "--log-buffer", "1023" } },
	{ OPTS_ERROR, "-c/--count 2000001 cannot be reached", { E, "-c", "2000001" } },
	{ OPTS_ERROR, "-c/--count 1002 cannot be reached in the default -d/--duration of 10 s (1001 at most)",
	  { E, "-c", "1002", "--interval", "10000" } },
	{ OPTS_OK, NULL, { E, "-c", "2000000" } },
	/* --open-loop: paced, UDP, a table of pings in flight that fits */
	{ OPTS_ERROR, "--open-loop needs --interval", { E, "--open-loop" } },
	{ OPTS_ERROR, "--open-loop needs --interval above 0", { E, "--open-loop", "--interval", "0" } },
	{ OPTS_ERROR, "--open-loop is for UDP", { E, "--open-loop", "--interval", "100", "--tcp" } },
	{ OPTS_ERROR, "--open-loop is not for the reflector (rant reflect): it is for the emitter",
	  { R, "--open-loop" } },
	{ OPTS_ERROR, "--timeout 1000000 us / --interval 15 us keeps more than 65536 pings in flight",
	  { E, "--open-loop", "--interval", "15", "--timeout", "1000000" } },
	{ OPTS_OK, NULL, { E, "--open-loop", "--interval", "16", "--timeout", "1000000" } },
	{ OPTS_OK, NULL, { E, "--open-loop", "--interval", "1000" } },
	{ OPTS_OK, NULL, { R, "--warmup", "100000" } },
	{ OPTS_OK, NULL, { E, "-c", "1001", "--interval", "10000" } },
	{ OPTS_OK, NULL, { E, "-c", "1000000000000", "-d", "0" } },
	{ OPTS_OK, NULL, { E, "-c", "1000000000000", "-d", "2592000", "-l", "x" } },
	{ OPTS_OK, NULL, { R, "-c", "1000000000000", "-l", "x" } },	/* no default -d */

	/* Probing a service (--syn, --http, --request). */
	{ OPTS_ERROR, "--http needs -a ADDR", { R, "--http", "/" } },
	{ OPTS_ERROR, "--syn needs -a ADDR", { R, "--syn" } },
	{ OPTS_ERROR, "the path begins with '/': give --http /index.html",
	  { E, "--http", "index.html" } },
	{ OPTS_ERROR, "holds a space or a control character", { E, "--http", "/a b" } },
	{ OPTS_ERROR, "holds a space or a control character", { E, "--http", "/a\tb" } },
	{ OPTS_ERROR, "--host a b: a host name holds no space", { E, "--http", "/", "--host", "a b" } },
	{ OPTS_ERROR, "--host is not for the emitter (rant emit): it is for a probe (rant probe)",
	  { E, "--host", "x" } },
	{ OPTS_ERROR, "--host needs --http", { "probe", "syn", R, "10.0.0.2", "--host", "x" } },
	{ OPTS_ERROR, "--connections: 0 is out of range. Must be in the range 1 to 1000000",
	  { E, "--http", "/", "--connections", "0" } },
	{ OPTS_ERROR, "--connections is not for the emitter (rant emit): it is for a probe",
	  { E, "--connections", "5" } },
	{ OPTS_ERROR, "--connections is for --http or --request",
	  { "probe", "syn", R, "10.0.0.2", "--connections", "5" } },
	{ OPTS_ERROR, "each a probe of its own", { E, "--syn", "--http", "/" } },
	{ OPTS_ERROR, "--tcp is not for a probe (rant probe): it is for the emitter (rant emit) or the reflector (rant reflect)",
	  { E, "--syn", "--tcp" } },
	{ OPTS_ERROR, "-m/--size is not for a probe (rant probe): it is for the emitter (rant emit)",
	  { E, "--http", "/", "-m", "100" } },
	{ OPTS_ERROR, "--request needs --response-bytes N", { E, "--request", "req.bin" } },
	{ OPTS_ERROR, "--response-bytes is not for the emitter", { E, "--response-bytes", "10" } },
	{ OPTS_ERROR, "--response-bytes needs --request",
	  { E, "--syn", "--response-bytes", "10" } },
	{ OPTS_ERROR, "--quickack needs --tcp (rant's own pair) or --http/--request",
	  { E, "--syn", "--quickack" } },
	{ OPTS_OK, NULL, { E, "--syn", "-c", "100", "--interval", "1000", "--open-loop" } },
	{ OPTS_OK, NULL, { E, "--http", "/index.html", "--connections", "1000", "--quickack" } },
	{ OPTS_OK, NULL, { E, "--http", "/", "--interval", "100", "--open-loop", "--timeout",
			   "1000000" } },
	{ OPTS_OK, NULL, { E, "--request", "req.bin", "--response-bytes", "64" } },

	/* Edges that are fine. */
	{ OPTS_OK, NULL, { E, "-d", "2592000.000000000" } },
	{ OPTS_OK, NULL, { E, "-d", "1." } },
	{ OPTS_OK, NULL, { E, "-d", ".5" } },
	{ OPTS_OK, NULL, { E, "--port", "08080" } },
	{ OPTS_OK, NULL, { E, "-t", "0.001", "-b", "0.001", "-o", "1" } },
	{ OPTS_OK, NULL, { "--interface=eth0", "--address=10.0.0.2", "--duration=0.5" } },
	{ OPTS_OK, NULL, { "-ieth0", "-a10.0.0.2", "-c5", "-j-" } },
	{ OPTS_OK, NULL, { R, "-j", " " } },		/* a file named " " */

	/* --xdp: bare or =required, the reflector's; once. */
	{ OPTS_OK, NULL, { R, "--xdp" } },
	{ OPTS_OK, NULL, { R, "--xdp=required" } },
	{ OPTS_ERROR, "--xdp=on: the only value is required (or none)", { R, "--xdp=on" } },
	{ OPTS_ERROR, "--xdp is not for the emitter (rant emit): it is for the reflector (rant reflect)",
	  { E, "--xdp" } },
	/* --afxdp: with --xdp only. */
	{ OPTS_OK, NULL, { R, "--xdp=required", "--afxdp" } },
	{ OPTS_ERROR, "--afxdp needs --xdp", { R, "--afxdp" } },
	/* --allow (reflector, repeatable). */
	{ OPTS_OK, NULL, { R, "--allow", "10.1.0.0/16", "--allow", "fd00::/64", "--allow", "10.1.2.3" } },
	{ OPTS_ERROR, "--allow is not for the emitter (rant emit): it is for the reflector (rant reflect)",
	  { E, "--allow", "10.1.0.0/16" } },
	{ OPTS_ERROR, "--allow: '10.1.2.3/16' has bits set past its /16: give the network, 10.1.0.0/16",
	  { R, "--allow", "10.1.2.3/16" } },
	{ OPTS_ERROR, "--allow: '10.1.0.0/40': the prefix length '40' is not a number from 0 to 32",
	  { R, "--allow", "10.1.0.0/40" } },
	{ OPTS_ERROR, "--allow: 'eth0' is not an IPv4 or IPv6 address or prefix",
	  { R, "--allow", "10.1.0.0/16", "--allow", "eth0" } },
	{ OPTS_ERROR, "--allow: '' is not an IPv4 or IPv6 address", { R, "--allow", "" } },

	/* --key (both sides): the MAC fits inside the message. */
	{ OPTS_ERROR, "-m/--size: 47 bytes cannot hold the header (32) and the MAC of --key (16): give -m 48 or more (88 or more for the reflector's stamps)",
	  { E, "--key", "k", "-m", "47" } },
	{ OPTS_ERROR, "-m/--size: 32 bytes cannot hold the header", { E, "--key", "k", "-m", "64,32" } },
	{ OPTS_OK, NULL, { E, "--key", "k", "-m", "48" } },
	{ OPTS_OK, NULL, { R, "--key", "k" } },
	{ OPTS_ERROR, "--key is empty", { E, "--key", "" } },
	{ OPTS_ERROR, "--key given twice", { E, "--key", "k", "--key", "k" } },

	/* The clock checks (clock.h). */
	{ OPTS_OK, NULL, { E, "--one-way", "--max-clock-offset", "0.05", "--phc-interval", "0" } },
	{ OPTS_OK, NULL, { R, "--max-clock-offset", "1000000", "--phc-interval", "3600" } },
	{ OPTS_OK, NULL, { E, "--one-way", "-m", "32,72" } },	/* one size carries the body */
	{ OPTS_ERROR, "--one-way needs the reflector's stamps, which pongs carry from 72 bytes: give -m 72 or more",
	  { E, "--one-way", "-m", "64" } },
	{ OPTS_ERROR, "--one-way is not for the reflector (rant reflect): it is for the emitter",
	  { R, "--one-way" } },
	{ OPTS_ERROR, "--max-clock-offset: 0 is out of range. Must be in the range 0.001 to 1000000",
	  { E, "--max-clock-offset", "0" } },
	{ OPTS_ERROR, "--phc-interval: 3600.5 is out of range. Must be in the range 0 to 3600",
	  { R, "--phc-interval", "3600.5" } },

	/* Fleets: --targets, --paths, --dscp, --flow-label, --rcvbuf. */
	{ OPTS_OK, NULL, { "-i", "eth0", "--targets", "t", "--paths", "16", "--dscp", "46" } },
	{ OPTS_OK, NULL, { E, "--paths", "4" } },
	{ OPTS_OK, NULL, { E, "--dscp", "46" } },
	{ OPTS_ERROR, "-a/--address names one reflector, --targets a file of them: give one of the two",
	  { E, "--targets", "t" } },
	{ OPTS_ERROR, "--paths: 65 is out of range. Must be in the range 1 to 64",
	  { E, "--paths", "65" } },
	{ OPTS_ERROR, "--dscp: 64 is out of range. Must be in the range 0 to 63",
	  { E, "--dscp", "64" } },
	{ OPTS_ERROR, "--flow-label needs --paths", { E, "--flow-label" } },
	{ OPTS_ERROR, "--flow-label needs --paths 2 or more", { E, "--paths", "1", "--flow-label" } },
	{ OPTS_OK, NULL, { "-i", "eth0", "--targets", "t", "--rcvbuf", "4096" } },
	{ OPTS_OK, NULL, { E, "--paths", "2", "--rcvbuf", "1073741824" } },
	{ OPTS_ERROR, "--rcvbuf sizes a fleet's sockets: give --targets or --paths, or drop it",
	  { E, "--rcvbuf", "4096" } },
	{ OPTS_ERROR, "--rcvbuf: 2047 is out of range. Must be in the range 2048 to 1073741824",
	  { E, "--paths", "2", "--rcvbuf", "2047" } },
	{ OPTS_ERROR, "--rcvbuf is not for the reflector (rant reflect): it is for the emitter",
	  { R, "--rcvbuf", "4096" } },
	{ OPTS_ERROR, "--paths is not for the reflector (rant reflect): it is for the emitter",
	  { R, "--paths", "2" } },
	{ OPTS_ERROR, "--tcp is not for a fleet (--targets, --paths): a fleet's pings are UDP datagrams",
	  { "-i", "eth0", "--targets", "t", "--tcp" } },
	{ OPTS_ERROR, "--interval 0 (back to back) is not for a fleet",
	  { E, "--paths", "2", "--interval", "0" } },
	{ OPTS_ERROR, "-m/--size with a list or range sweeps one reflector",
	  { "-i", "eth0", "--targets", "t", "-m", "64,128" } },

	/* The subcommands, their words, and the refusals naming who takes an option. */
	{ OPTS_OK, NULL, { "emit", R, "10.0.0.2" } },
	{ OPTS_OK, NULL, { "emit", R, "-a", "10.0.0.2" } },
	{ OPTS_OK, NULL, { "emit", "10.0.0.2", R, "-c", "5" } },	/* the word anywhere */
	{ OPTS_OK, NULL, { "emit", R, "--targets", "t" } },
	{ OPTS_ERROR, "emit: '10.0.0.3' and -a both name what to measure: give the address once",
	  { "emit", R, "-a", "10.0.0.2", "10.0.0.3" } },
	{ OPTS_ERROR, "'10.0.0.2' and --targets both name", { "emit", R, "--targets", "t", "10.0.0.2" } },
	{ OPTS_ERROR, "emit needs the reflector's address", { "emit", R } },
	{ OPTS_ERROR, "unexpected argument 'b'", { "emit", R, "a", "b" } },
	{ OPTS_ERROR, "--tcp is not for a fleet", { "emit", R, "--targets", "t", "--tcp" } },
	{ OPTS_OK, NULL, { "reflect", R } },
	{ OPTS_OK, NULL, { "reflect", R, "--allow", "10.0.0.0/8", "--max-rate", "100" } },
	{ OPTS_ERROR, "--targets is not for the reflector (rant reflect): it is for the emitter (rant emit): drop it",
	  { "reflect", R, "--targets", "f" } },
	{ OPTS_ERROR, "-a/--address is not for the reflector (rant reflect): it is for the emitter (rant emit), a probe (rant probe) or rant trace",
	  { "reflect", R, "-a", "10.0.0.2" } },
	{ OPTS_ERROR, "unexpected argument '10.0.0.2'", { "reflect", R, "10.0.0.2" } },
	{ OPTS_ERROR, "--filter is not for the reflector (rant reflect): it is for --read or --watch (rant read, rant watch)",
	  { "reflect", R, "--filter", "tcp" } },
	{ OPTS_OK, NULL, { "probe", "syn", R, "10.0.0.2:22" } },
	{ OPTS_OK, NULL, { "probe", "syn", R, "fd00::1" } },
	{ OPTS_OK, NULL, { "probe", "syn", R, "-a", "10.0.0.2" } },
	{ OPTS_OK, NULL, { "probe", "--syn", R, "10.0.0.2" } },
	{ OPTS_OK, NULL, { "probe", "http", R, "10.0.0.2:8080/path" } },
	{ OPTS_OK, NULL, { "probe", "http", R, "http://10.0.0.2:8080/path" } },
	{ OPTS_OK, NULL, { "probe", "http", R, "[fd00::1]:8080/" } },
	{ OPTS_OK, NULL, { "probe", "http", R, "10.0.0.2", "--http", "/x" } },
	{ OPTS_OK, NULL, { "probe", "request", R, "10.0.0.2:7", "--request", "r", "--response-bytes", "9" } },
	{ OPTS_ERROR, "probe syn: '10.0.0.2/x': a path or URL is for probe http",
	  { "probe", "syn", R, "10.0.0.2/x" } },
	{ OPTS_ERROR, "the port given twice, in ADDR:PORT and --port",
	  { "probe", "http", R, "10.0.0.2:8080", "--port", "80" } },
	{ OPTS_ERROR, "port 99999 is out of range. Must be in the range 1 to 65535",
	  { "probe", "http", R, "10.0.0.2:99999" } },
	{ OPTS_ERROR, "the path given twice", { "probe", "http", R, "10.0.0.2/a", "--http", "/b" } },
	{ OPTS_ERROR, "-I with --watch or --read prints no interval lines", { "watch", R, "-I", "1" } },
	{ OPTS_ERROR, "-I with --watch or --read prints no interval lines", { "read", "x.pcap", "-I", "1" } },
	{ OPTS_OK, NULL, { "watch", R, "-I", "1", "--metrics", "m.prom" } },
	{ OPTS_ERROR, "rant sends plain HTTP/1.1, without TLS", { E, "--http", "https://10.0.0.2/" } },
	{ OPTS_ERROR, "and -a both name the server", { E, "--http", "http://10.0.0.2/" } },
	{ OPTS_ERROR, "probe 10.0.0.2: give what to probe: icmp, syn, http or request",
	  { "probe", R, "10.0.0.2" } },
	{ OPTS_ERROR, "probe needs what to probe", { "probe", R, "-a", "10.0.0.2" } },
	{ OPTS_ERROR, "probe needs the server: rant probe syn -i IFACE", { "probe", "syn", R } },
	{ OPTS_ERROR, "probe request needs --request FILE", { "probe", "request", R, "10.0.0.2:7" } },
	{ OPTS_ERROR, "probe syn and --http are two probes", { "probe", "syn", R, "10.0.0.2", "--http", "/" } },
	{ OPTS_ERROR, "probe: '10.0.0.2' and -a both name the server",
	  { "probe", "syn", R, "-a", "10.0.0.1", "10.0.0.2" } },
	{ OPTS_ERROR, "--key is not for a probe (rant probe)", { "probe", "syn", R, "10.0.0.2", "--key", "k" } },
	{ OPTS_OK, NULL, { "read", "x.pcap" } },
	{ OPTS_OK, NULL, { "read", "-", "-j", "-", "--filter", "tcp port 80" } },
	{ OPTS_ERROR, "-o/--overflow over -b/--bucket-size gives 10000000000 buckets",
	  { "read", "x.pcap", "-b", "0.001", "-o", "10000000" } },
	{ OPTS_ERROR, "-o/--overflow over -b/--bucket-size gives 10000000000 buckets",
	  { "--read", "x.pcap", "-b", "0.001", "-o", "10000000" } },
	{ OPTS_ERROR, "-o/--overflow over -b/--bucket-size gives 10000000000 buckets",
	  { "watch", R, "-b", "0.001", "-o", "10000000" } },
	{ OPTS_ERROR, "read needs FILE", { "read" } },
	{ OPTS_ERROR, "read: the capture's name is empty", { "read", "" } },
	{ OPTS_ERROR, "-a/--address is empty", { "emit", R, "" } },
	{ OPTS_ERROR, "probe: '': give ADDR[:PORT][/PATH]", { "probe", "syn", R, "" } },
	{ OPTS_ERROR, "unknown subcommand ''", { "", R } },
	{ OPTS_ERROR, "read takes one capture: 'b' is one too many", { "read", "a", "b" } },
	{ OPTS_ERROR, "read takes one capture", { "read", "a", "--read", "b" } },
	{ OPTS_ERROR, "-i/--interface is not for --read (rant read): it is for", { "read", "x", R } },
	{ OPTS_ERROR, "-H/--histogram is not for --read (rant read)", { "read", "x", "-H" } },
	{ OPTS_ERROR, "--read reads a file, --watch an interface", { R, "--read", "x", "--watch" } },
	{ OPTS_OK, NULL, { "watch", R } },
	{ OPTS_OK, NULL, { "watch", R, "--watch", "-d", "1m" } },
	{ OPTS_ERROR, "--watch needs -i IFACE", { "watch" } },
	{ OPTS_ERROR, "unexpected argument 'extra'", { "watch", R, "extra" } },
	{ OPTS_ERROR, "unknown subcommand 'bogus'", { "bogus", R } },
	{ OPTS_ERROR, "unknown subcommand 'Emit'", { "Emit", R, "10.0.0.2" } },

	/* The old spellings as they shipped: the systemd units' (with RANT_OPTS'
	 * examples) and the origin's pair (tests/net/test_origin.sh). */
	{ OPTS_OK, NULL, { "--block", "--metrics", "/x.prom", "-i", "eth0", "-a", "192.0.2.2",
			   "--interval", "10000", "-t", "500" } },
	{ OPTS_OK, NULL, { "--block", "--metrics", "/x.prom", "-i", "eth0", "--targets", "/t",
			   "--paths", "4", "-d", "0" } },
	{ OPTS_OK, NULL, { "-i", "eth0", "--block", "--metrics", "/x.prom", "--allow", "192.0.2.0/24",
			   "--key", "/k" } },
	{ OPTS_OK, NULL, { R, "--warmup", "100000", "--duration", "60", "--threshold", "100",
			   "--sw-timestamps", "--histogram", "--log", "r.txt", "--trace-marker",
			   "--snapshot" } },
	{ OPTS_OK, NULL, { E, "--warmup", "100000", "--duration", "5", "--threshold", "100",
			   "--sw-timestamps", "--histogram", "--log", "e.txt", "--trace-marker",
			   "--snapshot" } },

	/* Durations with units; a bare number in the option's unit. */
	{ OPTS_OK, NULL, { E, "--interval", "200us" } },
	{ OPTS_OK, NULL, { E, "-d", "10m", "--timeout", "50ms" } },
	{ OPTS_OK, NULL, { E, "-d", "1h", "-t", "500ns", "-I", "1.5s", "--warmup-timeout", "2m" } },
	{ OPTS_OK, NULL, { E, "-p", "50us", "-L", "1ms", "-l", "x" } },
	{ OPTS_OK, NULL, { "read", "x", "--flow-idle", "90s" } },
	{ OPTS_OK, NULL, { "reflect", R, "--tcp", "--tcp-idle-timeout", "500ms", "--key", "k",
			   "--key-window", "1m" } },
	{ OPTS_ERROR, "-p/--busy-poll-us: give whole microseconds", { E, "-p", "1500ns" } },
	{ OPTS_ERROR, "--interval: 61s is out of range. Must be in the range 0 to 60000000",
	  { E, "--interval", "61s" } },
	{ OPTS_ERROR, "-d/--duration: 1.5ns is finer than a nanosecond", { E, "-d", "1.5ns" } },
	{ OPTS_ERROR, "-d/--duration: 721h is out of range", { E, "-d", "721h" } },

	/* -w and -S: one meaning each. */
	{ OPTS_OK, NULL, { "reflect", R, "--session-warmup", "5" } },
	{ OPTS_OK, NULL, { R, "-w", "5" } },
	{ OPTS_ERROR, "-w/--warmup is the old spelling of --session-warmup: give one of them",
	  { R, "-w", "5", "--session-warmup", "5" } },
	{ OPTS_ERROR, "--session-warmup is not for the emitter", { E, "--session-warmup", "5" } },
	{ OPTS_OK, NULL, { E, "-S" } },
	{ OPTS_OK, NULL, { E, "-T", "--trace-snapshot" } },
	{ OPTS_ERROR, "--trace-snapshot needs -T/--trace-marker", { E, "--trace-snapshot" } },
	{ OPTS_ERROR, "--log-buffer sizes a streamed log; --log-ring (-S)",
	  { E, "-l", "x", "--log-ring", "--log-buffer", "4096" } },

	/* rant trace. */
	{ OPTS_OK, NULL, { "trace", R, "10.0.0.9" } },
	{ OPTS_OK, NULL, { "trace", R, "10.0.0.9", "--paths", "16", "--proto", "udp", "-c", "5",
			   "--rate", "200", "--max-hops", "8", "-j", "t.json" } },
	{ OPTS_OK, NULL, { "trace", E } },
	{ OPTS_ERROR, "trace needs the destination", { "trace", R } },
	{ OPTS_ERROR, "'10.0.0.9' and -a both name the destination", { "trace", E, "10.0.0.9" } },
	{ OPTS_ERROR, "unexpected argument '10.0.0.8': rant trace traces one address",
	  { "trace", R, "10.0.0.9", "10.0.0.8" } },
	{ OPTS_ERROR, "--proto sctp: give tcp, udp or icmp", { "trace", E, "--proto", "sctp" } },
	{ OPTS_ERROR, "-m/--size is not for rant trace", { "trace", E, "-m", "64" } },
	{ OPTS_OK, NULL, { "trace", E, "--metrics", "m.prom" } },
	{ OPTS_ERROR, "--metrics-listen is not for rant trace",
	  { "trace", E, "--metrics-listen", ":9464" } },
	{ OPTS_ERROR, "-c 101: the probes a hop and path are 1 to 100", { "trace", E, "-c", "101" } },
	{ OPTS_ERROR, "-c 0: the probes a hop and path are 1 to 100", { "trace", E, "-c", "0" } },
	{ OPTS_ERROR, "--max-hops: 65 is out of range. Must be in the range 1 to 64",
	  { "trace", E, "--max-hops", "65" } },
	{ OPTS_ERROR, "--max-hops is not for the emitter (rant emit): it is for rant trace",
	  { "emit", E, "--max-hops", "5" } },
	{ OPTS_ERROR, "--rate is not for", { E, "--rate", "5" } },
	{ OPTS_ERROR, "-i/--interface is required", { "trace", "10.0.0.9" } },

	/* Help and version, whatever else is on the line. */
	{ OPTS_HELP, "usage: rant SUBCOMMAND", { "-h" } },
	{ OPTS_HELP, "usage: rant SUBCOMMAND", { "--help", "-d", "9223372037" } },
	{ OPTS_HELP, "usage: rant SUBCOMMAND", { R, "--help" } },
	{ OPTS_HELP, "--trace-instance NAME", { E, "--help" } },
	{ OPTS_HELP, "rant ", { "--version" } },
	{ OPTS_HELP, "rant ", { "emit", "--version" } },
	{ OPTS_HELP, "Subcommands:", { "help" } },
	{ OPTS_HELP, "usage: rant emit -i IFACE ADDR", { "help", "emit" } },
	{ OPTS_HELP, "--max-sessions N", { "reflect", "--help" } },
	{ OPTS_HELP, "usage: rant watch -i IFACE", { R, "-h", "--watch" } },
	{ OPTS_HELP, "usage: rant probe icmp", { "probe", "-h" } },
	{ OPTS_HELP, "[reflect]", { "help", "--all" } },
	{ OPTS_ERROR, "help bogus: give a subcommand", { "help", "bogus" } },
	{ OPTS_HELP, "complete -F _rant rant", { "help", "--completion", "bash" } },
	{ OPTS_ERROR, "help --completion: give bash", { "help", "--completion", "zsh" } },
	{ OPTS_ERROR, "help --completion: give bash", { "help", "--completion" } },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/*
 * Two command lines that must give the same settings: the new form and the
 * old spelling it stands for (or a duration with a unit and without).
 */
struct same {
	const char *a[MAX_ARGS], *b[MAX_ARGS];
};

static const struct same sames[] = {
	{ { "emit", R, "10.0.0.2", "-c", "1000", "--interval", "1ms", "-d", "5s" },
	  { R, "-a", "10.0.0.2", "-c", "1000", "--interval", "1000", "-d", "5" } },
	{ { "emit", R, "-a", "10.0.0.2" }, { E } },
	{ { "reflect", R }, { R } },
	{ { "reflect", R, "--session-warmup", "5" }, { R, "-w", "5" } },
	{ { "emit", R, "--targets", "t" }, { R, "--targets", "t" } },
	{ { "probe", "syn", R, "10.0.0.2" }, { E, "--syn" } },
	{ { "probe", "http", R, "10.0.0.2:8080/x" }, { E, "--port", "8080", "--http", "/x" } },
	{ { "probe", "http", R, "http://10.0.0.2" }, { E, "--http", "/" } },
	/* --http URL names the server and the path (2ac8a55: "give --http /http://...") */
	{ { R, "--http", "http://10.0.0.2:8080/x" }, { E, "--port", "8080", "--http", "/x" } },
	{ { "probe", "http", R, "--http", "http://10.0.0.2" }, { E, "--http", "/" } },
	{ { "probe", "request", R, "10.0.0.2:7", "--request", "r", "--response-bytes", "9" },
	  { E, "--port", "7", "--request", "r", "--response-bytes", "9" } },
	{ { "read", "x.pcap" }, { "--read", "x.pcap" } },
	{ { "watch", R, "-d", "1m" }, { R, "--watch", "-d", "60" } },
	{ { E, "-d", "10m", "--timeout", "50ms", "-t", "1.5us" },
	  { E, "-d", "600", "--timeout", "50000", "-t", "1.5" } },
	{ { E, "-l", "x", "--log-ring", "-T", "--trace-snapshot" }, { E, "-l", "x", "-S", "-T" } },
	{ { E, "-p", "0.05ms" }, { E, "-p", "50" } },
};

#define NSAMES (sizeof(sames) / sizeof(sames[0]))

static char errbuf[4096], outbuf[65536];

/* opts_parse on the row's arguments; err and stdout into the buffers. */
static enum opts_result run_into(const char *const *args, struct rant_cfg *cfg)
{
	char *argv[MAX_ARGS + 2];
	char *ebuf = NULL;
	size_t elen = 0;
	char tmpl[] = "/tmp/rant-cmdline-XXXXXX";
	enum opts_result r;
	int argc = 0, fd, saved;
	FILE *err;
	ssize_t n;

	argv[argc++] = (char *)"rant";
	for (int i = 0; i < MAX_ARGS && args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;

	err = open_memstream(&ebuf, &elen);
	fd = mkstemp(tmpl);
	if (!err || fd < 0)
		BAIL_OUT("open_memstream or mkstemp failed");
	unlink(tmpl);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);

	optind = 0;		/* glibc: full re-initialisation of getopt */
	r = opts_parse(argc, argv, cfg, err);

	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, outbuf, sizeof(outbuf) - 1, 0);
	outbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	fclose(err);
	snprintf(errbuf, sizeof(errbuf), "%s", ebuf ? ebuf : "");
	free(ebuf);
	return r;
}

static enum opts_result run(const struct row *t)
{
	static struct rant_cfg cfg;

	return run_into(t->args, &cfg);
}

static const char *res_name(int r)
{
	return r == OPTS_OK ? "OK" : r == OPTS_HELP ? "HELP" :
	       r == OPTS_ERROR ? "ERROR" : "?";
}

/* Arguments as one line for the test names. */
static const char *args_line(const char *const *args, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < MAX_ARGS && args[i] && n < len - 1; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s'%s'", i ? " " : "", args[i]);
	return buf;
}

static const char *line(const struct row *t)
{
	static char buf[512];

	return args_line(t->args, buf, sizeof(buf));
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The settings a run reads, alike in both (not argv, nor where the words
 * were kept). */
static bool same_cfg(const struct rant_cfg *a, const struct rant_cfg *b)
{
	return a->sub == b->sub && a->mode == b->mode && same_str(a->iface, b->iface) &&
	       same_str(a->addr, b->addr) && a->port == b->port &&
	       a->duration_ns == b->duration_ns &&
	       a->count == b->count && a->warmup == b->warmup && a->size == b->size &&
	       a->timeout_ns == b->timeout_ns && a->interval_ns == b->interval_ns &&
	       a->threshold_ns == b->threshold_ns && a->busy_poll_us == b->busy_poll_us &&
	       a->syn == b->syn && same_str(a->http_path, b->http_path) &&
	       same_str(a->request_path, b->request_path) &&
	       a->response_bytes == b->response_bytes &&
	       same_str(a->read_path, b->read_path) && a->watch == b->watch &&
	       same_str(a->targets_path, b->targets_path) && a->open_loop == b->open_loop &&
	       a->log_ring == b->log_ring && a->trace_snapshot == b->trace_snapshot &&
	       a->trace_marker == b->trace_marker && a->cont == b->cont;
}

static void check_same(const struct same *t)
{
	static struct rant_cfg a, b;
	char la[512], lb[512];
	enum opts_result ra = run_into(t->a, &a), rb = run_into(t->b, &b);

	args_line(t->a, la, sizeof(la));
	args_line(t->b, lb, sizeof(lb));
	if (!ok(ra == OPTS_OK && rb == OPTS_OK && same_cfg(&a, &b), "rant %s == rant %s", la, lb))
		diag("  got %s, %s; err: %s", res_name(ra), res_name(rb), errbuf);
}

static int count_lines(const char *s)
{
	int lines = 0;

	for (; *s; s++)
		lines += *s == '\n';
	return lines;
}

static void check_row(const struct row *t)
{
	enum opts_result r = run(t);
	size_t elen = strlen(errbuf);

	if (!ok(r == t->want, "rant %s -> %s", line(t), res_name(t->want))) {
		diag("  got %s", res_name(r));
		if (errbuf[0])
			diag("  err: %s", errbuf);
		return;
	}
	switch (t->want) {
	case OPTS_ERROR:
		if (!ok(count_lines(errbuf) == 1 && errbuf[elen - 1] == '\n' &&
			!strncmp(errbuf, "rant: ", 6) && strstr(errbuf, t->says) &&
			!outbuf[0], "  one line on err: ...%s...", t->says))
			diag("  err: %s  stdout: %s", errbuf, outbuf);
		break;
	case OPTS_HELP:
		if (!ok(!errbuf[0] && strstr(outbuf, t->says),
			"  on stdout: ...%s...", t->says))
			diag("  err: %s  stdout: %.200s", errbuf, outbuf);
		break;
	default:
		if (!ok(!errbuf[0] && !outbuf[0], "  nothing printed"))
			diag("  err: %s  stdout: %s", errbuf, outbuf);
		break;
	}
}

int main(void)
{
	for (size_t i = 0; i < NROWS; i++)
		check_row(&rows[i]);
	for (size_t i = 0; i < NSAMES; i++)
		check_same(&sames[i]);
	return done_testing();
}
