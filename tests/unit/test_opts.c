/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/cfg/opts.h: a table of command lines and the result each must give
 * (after ethtool's test-cmdline.c), then the fields of a few. Every error
 * must be one line on err naming the option; a value error names the
 * allowed range.
 */
#include <ctype.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "opttab.h"
#include "tap.h"
#include "wire.h"

#define R "-i eth0 "			/* reflector */
#define E "-i eth0 -a 10.0.0.2 "	/* emitter */

struct row {
	const char *args;	/* split on spaces; '' is an empty argument,
				 * ^ within a word stands for a space */
	enum opts_result want;
	const char *mention;	/* an error must name this (case-insensitive) */
	const char *range;	/* a value error must show these (space-separated) */
};

static const struct row rows[] = {
	/* modes and the required options */
	{ R, OPTS_OK, NULL, NULL },
	{ E, OPTS_OK, NULL, NULL },
	{ "--interface eth0 --address fe80::1", OPTS_OK, NULL, NULL },
	{ "-ieth0 -a10.0.0.2", OPTS_OK, NULL, NULL },
	{ "", OPTS_ERROR, "interface", NULL },
	{ "-a 10.0.0.2", OPTS_ERROR, "interface", NULL },
	{ "-i ''", OPTS_ERROR, "interface", NULL },
	{ "-i eth0 -a ''", OPTS_ERROR, "address", NULL },
	{ "-i", OPTS_ERROR, "interface", NULL },
	{ "-i eth0 -a", OPTS_ERROR, "address", NULL },
	{ R "extra", OPTS_ERROR, "extra", NULL },
	{ E "10.0.0.3", OPTS_ERROR, "10.0.0.3", NULL },
	{ R "-x", OPTS_ERROR, "-x", NULL },
	{ R "--bogus", OPTS_ERROR, "--bogus", NULL },
	{ R "--bogus=1", OPTS_ERROR, "bogus", NULL },
	{ "--interfac eth1", OPTS_OK, NULL, NULL },	/* getopt's unique prefix */
	/* an option that takes one value, given twice, is refused */
	{ R "-i eth1", OPTS_ERROR, "twice", NULL },
	{ E "-a 10.0.0.3", OPTS_ERROR, "twice", NULL },
	{ E "--port 1 --port 2", OPTS_ERROR, "twice", NULL },
	{ E "-d 5 -d 6", OPTS_ERROR, "twice", NULL },
	{ R "-l a -l b -c 1", OPTS_ERROR, "twice", NULL },
	{ R "-v -v -s -s", OPTS_OK, NULL, NULL },	/* flags may repeat */
	/* empty file names are refused before anything runs */
	{ R "-l '' -c 1", OPTS_ERROR, "log", NULL },
	{ R "-j ''", OPTS_ERROR, "json", NULL },
	{ R "--pcap ''", OPTS_ERROR, "pcap", NULL },
	/* --pcap: either side; one stdout for the capture or the JSON */
	{ R "--pcap r.pcap", OPTS_OK, NULL, NULL },
	{ E "--pcap - -j out.json", OPTS_OK, NULL, NULL },
	{ E "--pcap - -j -", OPTS_ERROR, "stdout", NULL },
	{ E "--pcap a --pcap b", OPTS_ERROR, "twice", NULL },
	/* numbers: digits only */
	{ R "-c ^5", OPTS_ERROR, "not a number", NULL },
	{ R "-c +5", OPTS_ERROR, "not written in digits only", NULL },
	{ E "-d 9223372037", OPTS_ERROR, "out of range", "0 2592000" },
	{ E "--timeout 9223372036854776", OPTS_ERROR, "out of range", "1 1000000" },
	{ E "--timeout 99999999999999999999999999", OPTS_ERROR, "out of range", NULL },
	/* help */
	{ "-h", OPTS_HELP, NULL, NULL },
	{ "--help", OPTS_HELP, NULL, NULL },
	{ R "-h", OPTS_HELP, NULL, NULL },
	{ "--version", OPTS_HELP, NULL, NULL },
	/* --port 1..65535 */
	{ E "--port 1", OPTS_OK, NULL, NULL },
	{ E "--port 65535", OPTS_OK, NULL, NULL },
	{ E "--port=8080", OPTS_OK, NULL, NULL },
	{ R "--port 319", OPTS_OK, NULL, NULL },
	{ E "--port 0", OPTS_ERROR, "port", "1 65535" },
	{ E "--port 65536", OPTS_ERROR, "port", "1 65535" },
	{ E "--port 99999999999999999999999", OPTS_ERROR, "port", "1 65535" },
	{ E "--port -1", OPTS_ERROR, "port", "1 65535" },
	{ E "--port 5x", OPTS_ERROR, "port", "1 65535" },
	{ E "--port 1.5", OPTS_ERROR, "port", "1 65535" },
	{ E "--port ''", OPTS_ERROR, "port", "1 65535" },
	{ E "--port", OPTS_ERROR, "port", NULL },
	/* -d 0..2592000 s, decimals */
	{ E "-d 0.5", OPTS_OK, NULL, NULL },
	{ E "-d 0", OPTS_OK, NULL, NULL },
	{ E "-d 2592000", OPTS_OK, NULL, NULL },
	{ E "--duration 60", OPTS_OK, NULL, NULL },
	{ R "-d 3600", OPTS_OK, NULL, NULL },
	{ E "-d 2592000.5", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d 2592001", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d -1", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d abc", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d 5x", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d 1.2.3", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d .", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d ''", OPTS_ERROR, "duration", "0 2592000" },
	{ E "-d", OPTS_ERROR, "duration", NULL },
	/* -c 0..1e12 */
	{ E "-c 0", OPTS_OK, NULL, NULL },
	{ E "-d 0 -c 1000000000000", OPTS_OK, NULL, NULL },
	{ R "--count 5", OPTS_OK, NULL, NULL },
	{ E "-c 1000000000001", OPTS_ERROR, "count", "0 1000000000000" },
	{ E "-c 18446744073709551616", OPTS_ERROR, "count", "0 1000000000000" },
	{ E "-c -1", OPTS_ERROR, "count", "0 1000000000000" },
	{ E "-c 1e6", OPTS_ERROR, "count", "0 1000000000000" },
	{ E "-c 0x10", OPTS_ERROR, "count", "0 1000000000000" },
	/* -w on both sides; emitter-only: -m --timeout --interval */
	{ E "-w 0", OPTS_OK, NULL, NULL },
	{ E "-w 1000000", OPTS_OK, NULL, NULL },
	{ E "-w 1000001", OPTS_ERROR, "warmup", "0 1000000" },
	{ E "-w x", OPTS_ERROR, "warmup", "0 1000000" },
	{ R "-w 5", OPTS_OK, NULL, NULL },
	{ R "-w 1000001", OPTS_ERROR, "warmup", "0 1000000" },
	{ E "-m 32", OPTS_OK, NULL, NULL },
	{ E "-m 65507", OPTS_OK, NULL, NULL },
	{ E "--size 1472", OPTS_OK, NULL, NULL },
	{ E "-m 31", OPTS_ERROR, "size", "32 65507" },
	{ E "-m 65508", OPTS_ERROR, "size", "32 65507" },
	{ E "-m 72x", OPTS_ERROR, "size", "32 65507" },
	{ R "-m 100", OPTS_ERROR, "size", NULL },
	/* sizes: lists and ranges (sweeps), the limit by transport */
	{ E "-m 64,256,1024,1472,4096", OPTS_OK, NULL, NULL },
	{ E "-m 64:32768:x2", OPTS_OK, NULL, NULL },
	{ E "-m 64:65536:x2", OPTS_ERROR, "size", "65507" },	/* 65536: TCP only */
	{ E "-m 64:1472:+64", OPTS_OK, NULL, NULL },
	{ E "-m 64:65536:x1", OPTS_ERROR, "size", NULL },
	{ E "-m 64,,128", OPTS_ERROR, "size", "32 65507" },
	{ E "-m 64,", OPTS_ERROR, "size", NULL },
	{ E "-m 100:50:x2", OPTS_ERROR, "size", NULL },
	{ E "-m 64:256", OPTS_ERROR, "size", NULL },
	{ E "-m 64:256:y2", OPTS_ERROR, "size", NULL },
	{ E "-m 64:1048576:x2", OPTS_ERROR, "size", "32 65507" },
	{ E "-m 32:4096:+1", OPTS_ERROR, "size", NULL },	/* too many sizes */
	{ E "-m 70000", OPTS_ERROR, "size", "32 65507 1048576" },
	{ E "--tcp -m 1048576", OPTS_OK, NULL, NULL },
	{ E "-m 1048576 --tcp", OPTS_OK, NULL, NULL },	/* --tcp after -m */
	{ E "--tcp -m 64:1048576:x4", OPTS_OK, NULL, NULL },
	{ E "--tcp -m 1048577", OPTS_ERROR, "size", "32 1048576" },
	/* --ptp-mode: UDP only; -m is what follows the 34-byte PTP header */
	{ R "--ptp-mode", OPTS_OK, NULL, NULL },
	{ E "--ptp-mode -m 65473", OPTS_OK, NULL, NULL },
	{ E "--ptp-mode -m 65474", OPTS_ERROR, "size", "32 65473 PTP" },
	{ E "--ptp-mode --tcp", OPTS_ERROR, "--ptp-mode", "--tcp" },
	/* --stamp: UDP, one format, a packet of STAMP's base at least */
	{ R "--stamp --stamp-stateful --stamp-ts ptp", OPTS_OK, NULL, NULL },
	{ E "--stamp --ssid 65535 -m 44", OPTS_OK, NULL, NULL },
	{ E "--stamp -m 43", OPTS_ERROR, "-m 43", "44" },
	{ E "--stamp --tcp", OPTS_ERROR, "--stamp", "--tcp" },
	{ E "--stamp --ptp-mode", OPTS_ERROR, "--stamp", "--ptp-mode" },
	{ E "--stamp --stamp-ts tai", OPTS_ERROR, "--stamp-ts tai", "ntp or ptp" },
	{ E "--stamp --ssid 0", OPTS_ERROR, "ssid", NULL },
	{ E "--ssid 5", OPTS_ERROR, "--ssid", "--stamp" },
	{ E "--stamp --stamp-stateful", OPTS_ERROR, "--stamp-stateful", NULL },
	/* TCP options need --tcp */
	{ R "--tcp", OPTS_OK, NULL, NULL },
	{ R "--tcp --writes 3 --nodelay --quickack --cork", OPTS_OK, NULL, NULL },
	{ E "--tcp --writes 16", OPTS_OK, NULL, NULL },
	{ E "--writes 2", OPTS_ERROR, "--tcp", NULL },
	{ E "--nodelay", OPTS_ERROR, "--tcp", NULL },
	{ E "--quickack", OPTS_ERROR, "--tcp", NULL },
	{ E "--cork", OPTS_ERROR, "--tcp", NULL },
	{ E "--diagnosis off", OPTS_ERROR, "--tcp", NULL },
	{ R "--tcp --diagnosis off", OPTS_OK, NULL, NULL },
	{ E "--tcp --diagnosis on", OPTS_OK, NULL, NULL },
	{ E "--tcp --diagnosis sometimes", OPTS_ERROR, "--diagnosis sometimes", "auto, on or off" },
	{ E "--tcp --writes 0", OPTS_ERROR, "writes", "1 16" },
	{ E "--tcp --writes 17", OPTS_ERROR, "writes", "1 16" },
	{ R "--tcp --tcp-idle-timeout 0.1", OPTS_OK, NULL, NULL },
	{ R "--tcp --tcp-idle-timeout 3600", OPTS_OK, NULL, NULL },
	{ R "--tcp --tcp-idle-timeout 0.05", OPTS_ERROR, "tcp-idle-timeout", "0.1 3600" },
	{ R "--tcp-idle-timeout 2", OPTS_ERROR, "--tcp", NULL },
	{ E "--tcp --tcp-idle-timeout 2", OPTS_ERROR, "tcp-idle-timeout", NULL },
	{ E "--timeout 1", OPTS_OK, NULL, NULL },
	{ E "--timeout 1000000", OPTS_OK, NULL, NULL },
	{ E "--timeout 0", OPTS_ERROR, "timeout", "1 1000000" },
	{ E "--timeout 1000001", OPTS_ERROR, "timeout", "1 1000000" },
	{ E "--timeout 10xs", OPTS_ERROR, "timeout", "1 1000000" },
	{ R "--timeout 5", OPTS_ERROR, "timeout", NULL },
	{ E "--interval 0", OPTS_OK, NULL, NULL },
	{ E "--interval 60000000", OPTS_OK, NULL, NULL },
	{ E "--interval 60000001", OPTS_ERROR, "interval", "0 60000000" },
	{ E "--interval -1", OPTS_ERROR, "interval", "0 60000000" },
	{ R "--interval 5", OPTS_ERROR, "interval", NULL },
	{ E "-I 0.5", OPTS_OK, NULL, NULL },
	{ R "--report-interval 3600", OPTS_OK, NULL, NULL },
	{ E "-I 0.01", OPTS_OK, NULL, NULL },
	{ E "-I 0.009", OPTS_ERROR, "report-interval", "0.01 3600" },
	{ E "-I 0", OPTS_ERROR, "report-interval", "0.01 3600" },
	{ R "-I 3601", OPTS_ERROR, "report-interval", "0.01 3600" },
	/* flags */
	{ E "--block -s -R -H -G", OPTS_OK, NULL, NULL },
	{ R "--block --sw-timestamps --no-hw-ts --histogram --hugepages", OPTS_OK, NULL, NULL },
	{ R "-v -v -v", OPTS_OK, NULL, NULL },
	{ R "-vvv --verbose", OPTS_OK, NULL, NULL },
	{ R "-s5", OPTS_ERROR, "-5", NULL },	/* -s takes no value: -5 unknown */
	/* output files */
	{ E "-l run.log", OPTS_OK, NULL, NULL },
	{ E "--log=run.log -L 20", OPTS_OK, NULL, NULL },
	{ E "-j -", OPTS_OK, NULL, NULL },
	{ R "--json out.json", OPTS_OK, NULL, NULL },
	{ E "-j", OPTS_ERROR, "json", NULL },
	{ R "-l run.log", OPTS_OK, NULL, NULL },	/* streamed: any length */
	{ R "-l run.log -d 60", OPTS_OK, NULL, NULL },
	{ R "-l run.log -c 100", OPTS_OK, NULL, NULL },
	{ R "-l run.log -S -T", OPTS_OK, NULL, NULL },
	{ E "-d 0 -l run.log", OPTS_OK, NULL, NULL },
	{ E "-d 0 -c 5 -l run.log", OPTS_OK, NULL, NULL },
	{ E "-d 0 -l run.log -S -T", OPTS_OK, NULL, NULL },
	{ E "-L 20", OPTS_ERROR, "log-threshold", NULL },
	/* histogram: -b 0.001..1000, -o 1..10000000, multiple, <= 1e7 buckets */
	{ E "-b 0.001 -o 1", OPTS_OK, NULL, NULL },
	{ E "-b 1000 -o 10000000", OPTS_OK, NULL, NULL },
	{ E "-b 1 -o 10000000", OPTS_OK, NULL, NULL },	/* exactly 1e7 buckets */
	{ E "-b 0.5 -o 100", OPTS_OK, NULL, NULL },
	{ E "--bucket-size 2 --overflow 200", OPTS_OK, NULL, NULL },
	{ E "-b 0", OPTS_ERROR, "bucket", "0.001 1000" },
	{ E "-b 1000.001", OPTS_ERROR, "bucket", "0.001 1000" },
	{ E "-b 0.0001", OPTS_ERROR, "bucket", "0.001 1000" },
	{ E "-b -1", OPTS_ERROR, "bucket", "0.001 1000" },
	{ E "-b 1usec", OPTS_ERROR, "bucket", "0.001 1000" },
	{ E "-o 0.5", OPTS_ERROR, "overflow", "1 10000000" },
	{ E "-o 10000001", OPTS_ERROR, "overflow", "1 10000000" },
	{ E "-b 3 -o 100", OPTS_ERROR, "overflow", NULL },
	{ E "-b 2 -o 1", OPTS_ERROR, "overflow", NULL },
	{ E "-b 0.999 -o 10000000", OPTS_ERROR, "overflow", NULL },	/* not a multiple */
	{ E "-b 0.5 -o 10000000", OPTS_ERROR, "overflow", NULL },	/* 2e7 buckets */
	/* busy polling */
	{ E "-p 0", OPTS_OK, NULL, NULL },
	{ E "-p 1000000", OPTS_OK, NULL, NULL },
	{ E "-p 50 -B 1 -P", OPTS_OK, NULL, NULL },
	{ E "--busy-poll-us 50 --budget 65535 --prefer-busypoll", OPTS_OK, NULL, NULL },
	{ E "-p -1", OPTS_ERROR, "busy-poll", "0 1000000" },
	{ E "-p 1000001", OPTS_ERROR, "busy-poll", "0 1000000" },
	{ E "-B 8", OPTS_ERROR, "budget", NULL },
	{ E "-p 50 -B 0", OPTS_ERROR, "budget", "1 65535" },
	{ E "-p 50 -B 65536", OPTS_ERROR, "budget", "1 65535" },
	{ E "-P", OPTS_ERROR, "prefer-busypoll", NULL },
	/* threshold and ftrace */
	{ E "-t 0.001", OPTS_OK, NULL, NULL },
	{ E "-t 10000000", OPTS_OK, NULL, NULL },
	{ E "-t 50 -C", OPTS_OK, NULL, NULL },
	{ R "--threshold 20 --continue", OPTS_OK, NULL, NULL },
	{ E "-t 0", OPTS_ERROR, "threshold", "10000000" },
	{ E "-t 10000000.001", OPTS_ERROR, "threshold", "10000000" },
	{ E "-t -5", OPTS_ERROR, "threshold", "10000000" },
	{ E "-t x", OPTS_ERROR, "threshold", "10000000" },
	{ E "-C", OPTS_ERROR, "continue", NULL },
	{ E "-s -t 50 --threshold-metric rtt_sw", OPTS_OK, NULL, NULL },
	{ E "-t 50 --threshold-metric network", OPTS_OK, NULL, NULL },
	{ R "-t 50 --threshold-metric reflect_queue", OPTS_OK, NULL, NULL },
	{ E "-t 50 --threshold-metric rtt_sw", OPTS_ERROR, "threshold-metric", "-s" },
	{ E "-t 50 --threshold-metric rtts", OPTS_ERROR, "threshold-metric", "rtt, response" },
	{ E "-m 40 -t 50 --threshold-metric response", OPTS_ERROR, "threshold-metric", "rtt, emit_queue" },
	{ R "-t 50 --threshold-metric rtt", OPTS_ERROR, "threshold-metric", "response" },
	{ E "--threshold-metric rtt", OPTS_ERROR, "threshold-metric", "threshold" },
	{ E "-T", OPTS_OK, NULL, NULL },
	{ E "-T -S", OPTS_OK, NULL, NULL },
	{ E "--trace-marker --snapshot --trace-instance rant2", OPTS_OK, NULL, NULL },
	{ E "-S", OPTS_OK, NULL, NULL },		/* ring log alone */
	{ R "-l run.log -S", OPTS_OK, NULL, NULL },	/* ring bounds the log */
	{ E "--trace-instance foo", OPTS_ERROR, "trace-instance", NULL },
	{ E "-T --trace-instance ''", OPTS_ERROR, "trace-instance", NULL },
	{ E "-T --trace-instance", OPTS_ERROR, "trace-instance", NULL },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

static char errbuf[4096], outbuf[65536];
static char *last_args;		/* the strings the last cfg points into */

/* Run opts_parse on args; err and stdout are captured into the buffers. */
static enum opts_result run(const char *args, struct rant_cfg *cfg)
{
	char *copy = strdup(args), *argv[64], *tok, *save = NULL;
	int argc = 0, saved, fd;
	FILE *err;
	char *ebuf = NULL;
	size_t elen = 0;
	char tmpl[] = "/tmp/rant-opts-XXXXXX";
	enum opts_result r;
	ssize_t n;

	argv[argc++] = (char *)"rant";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 63;
	     tok = strtok_r(NULL, " ", &save)) {
		for (char *p = strchr(tok, '^'); p; p = strchr(p, '^'))
			*p = ' ';
		argv[argc++] = strcmp(tok, "''") ? tok : (char *)"";
	}
	argv[argc] = NULL;

	err = open_memstream(&ebuf, &elen);
	fd = mkstemp(tmpl);
	if (!err || fd < 0)
		BAIL_OUT("open_memstream or mkstemp failed");
	unlink(tmpl);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);

	optind = 0;	/* glibc: full re-initialisation */
	memset(cfg, 0xa5, sizeof(*cfg));
	r = opts_parse(argc, argv, cfg, err);

	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, outbuf, sizeof(outbuf) - 1, 0);
	outbuf[n > 0 ? n : 0] = 0;
	close(fd);
	fclose(err);
	snprintf(errbuf, sizeof(errbuf), "%s", ebuf ? ebuf : "");
	free(ebuf);
	/* cfg points into argv: keep the copy alive for the caller's checks */
	free(last_args);
	last_args = copy;
	return r;
}

static const char *res_name(int r)
{
	return r == OPTS_OK ? "OK" : r == OPTS_HELP ? "HELP" :
	       r == OPTS_ERROR ? "ERROR" : "?";
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

/* Every space-separated word of words appears in s as a whole number. */
static bool has_numbers(const char *s, const char *words)
{
	char copy[128], *w, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", words);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(w);
		const char *p = s;
		bool found = false;

		while ((p = strstr(p, w))) {
			bool before = p > s && (isdigit((unsigned char)p[-1]) ||
						p[-1] == '.');
			bool after = isdigit((unsigned char)p[n]) ||
				     (p[n] == '.' && isdigit((unsigned char)p[n + 1])) ||
				     p[n] == 'e';

			if (!before && !after) {
				found = true;
				break;
			}
			p++;
		}
		if (!found)
			return false;
	}
	return true;
}

static void test_table(void)
{
	struct rant_cfg cfg;

	for (size_t i = 0; i < NROWS; i++) {
		const struct row *t = &rows[i];
		enum opts_result r = run(t->args, &cfg);
		int lines = 0;

		for (const char *p = errbuf; *p; p++)
			lines += *p == '\n';
		if (!ok(r == t->want, "rant %s -> %s", t->args, res_name(t->want))) {
			diag("  got %s", res_name(r));
			if (errbuf[0])
				diag("  err: %s", errbuf);
		}
		if (t->want == OPTS_ERROR) {
			size_t len = strlen(errbuf);
			bool one = lines == 1 && len > 1 && errbuf[len - 1] == '\n';

			if (!ok(one && contains_ci(errbuf, t->mention) &&
				(!t->range || has_numbers(errbuf, t->range)),
				"rant %s: one line naming %s%s%s", t->args, t->mention,
				t->range ? ", range " : "", t->range ? t->range : ""))
				diag("  err (%d lines): %s", lines, errbuf);
		} else if (t->want == OPTS_OK && r == OPTS_OK && errbuf[0]) {
			fail("rant %s: no message on success", t->args);
			diag("  err: %s", errbuf);
		}
		if (t->want != OPTS_HELP && outbuf[0]) {
			fail("rant %s: nothing on stdout", t->args);
			diag("  stdout: %s", outbuf);
		}
	}
}

static void test_fields(void)
{
	struct rant_cfg c;

	if (run(R, &c) == OPTS_OK) {
		ok(c.mode == MODE_REFLECT && !strcmp(c.iface, "eth0") && !c.addr,
		   "reflector: mode, iface, no addr");
		is_int(c.port, RANT_DEFAULT_PORT, "default port 12345");
		is_i64(c.duration_ns, 0, "reflector default duration 0 (no limit)");
		is_u64(c.count, 0, "default count 0");
		is_i64(c.bucket_ns, 1000, "default bucket_ns 1000");
		is_i64(c.overflow_ns, 100000, "default overflow_ns 100000");
		ok(!c.block && !c.sw && !c.no_hw_ts && !c.histogram && !c.hugepages &&
		   !c.prefer_busypoll && !c.cont && !c.trace_marker && !c.snapshot,
		   "flags off by default");
		ok(!c.log_path && !c.json_path, "no log, no JSON by default");
		ok(c.busy_poll_us == 0 && c.budget == 0 && c.verbose == 0 &&
		   c.threshold_ns == 0 && c.log_threshold_ns == 0,
		   "busy poll, budget, verbose, thresholds 0 by default");
		is_str(c.trace_instance, "rant", "default trace instance \"rant\"");
		is_int(c.warmup, 0, "reflector default warmup 0 (the row's 100 is the emitter's)");
	} else {
		fail("reflector defaults parsed");
	}
	if (run(R "--warmup 100000", &c) == OPTS_OK)
		is_int(c.warmup, 100000, "reflector --warmup 100000 (the origin's command line)");
	else
		fail("reflector --warmup 100000 parsed: %s", errbuf);

	if (run(E, &c) == OPTS_OK) {
		ok(c.mode == MODE_EMIT && !strcmp(c.addr, "10.0.0.2"), "emitter: mode, addr");
		is_i64(c.duration_ns, 10000000000ll, "emitter default duration 10 s");
		is_int(c.warmup, 100, "default warmup 100");
		is_int(c.size, 72, "default size 72");
		is_i64(c.timeout_ns, 100000000ll, "default timeout 100000 us");
		is_i64(c.interval_ns, 0, "default interval 0");
		is_i64(c.report_interval_ns, 0, "no interval reports by default");
	} else {
		fail("emitter defaults parsed");
	}
	if (run(E "-I 0.25", &c) == OPTS_OK)
		is_i64(c.report_interval_ns, 250000000ll, "-I 0.25 -> 250000000 ns");
	else
		fail("-I 0.25 parsed: %s", errbuf);

	if (run(E "-d 0.5 -c 1000000000000 -w 7 -m 1472 --timeout 250 "
		"--interval 1000.5 --port 319", &c) == OPTS_OK) {
		is_i64(c.duration_ns, 500000000ll, "-d 0.5 -> 500000000 ns");
		is_u64(c.count, 1000000000000ull, "-c 1e12");
		is_int(c.warmup, 7, "-w 7");
		is_int(c.size, 1472, "-m 1472");
		is_i64(c.timeout_ns, 250000, "--timeout 250 -> 250000 ns");
		is_i64(c.interval_ns, 1000500, "--interval 1000.5 -> 1000500 ns");
		is_int(c.port, 319, "--port 319");
	} else {
		fail("emitter numbers parsed: %s", errbuf);
	}

	if (run(E "-b 0.5 -o 100 -t 12.5 -l x.log -L 20 -j - -p 50 -B 8 -P "
		"-vvv -v -s -R -H -G --block -C", &c) == OPTS_OK) {
		is_i64(c.bucket_ns, 500, "-b 0.5 -> 500 ns");
		is_i64(c.overflow_ns, 100000, "-o 100 -> 100000 ns");
		is_i64(c.threshold_ns, 12500, "-t 12.5 -> 12500 ns");
		is_i64(c.log_threshold_ns, 20000, "-L 20 -> 20000 ns");
		is_str(c.log_path, "x.log", "-l path");
		is_str(c.json_path, "-", "-j -");
		ok(c.busy_poll_us == 50 && c.budget == 8 && c.prefer_busypoll,
		   "-p 50 -B 8 -P");
		is_int(c.verbose, 4, "-vvv -v counts 4");
		ok(c.sw && c.no_hw_ts && c.histogram && c.hugepages && c.block && c.cont,
		   "-s -R -H -G --block -C set");
	} else {
		fail("emitter options parsed: %s", errbuf);
	}

	if (run(E "-m 4096,64", &c) == OPTS_OK) {
		ok(c.nsizes == 2 && c.sizes[0] == 4096 && c.sizes[1] == 64 && c.size == 4096,
		   "-m 4096,64: two sizes in the order given, the first is size");
		ok(!c.tcp && c.writes == 1, "UDP, one write by default");
	} else {
		fail("-m 4096,64 parsed: %s", errbuf);
	}
	if (run(E "--tcp --writes 2 --nodelay -m 64:1024:x4", &c) == OPTS_OK) {
		ok(c.nsizes == 3 && c.sizes[0] == 64 && c.sizes[1] == 256 && c.sizes[2] == 1024,
		   "-m 64:1024:x4: 64 256 1024");
		ok(c.tcp && c.writes == 2 && c.nodelay && !c.quickack && !c.cork,
		   "--tcp --writes 2 --nodelay");
		ok(c.tcp_idle_ns == 5000000000LL, "--tcp-idle-timeout: 5 s by default");
		ok(c.diagnosis_mode == DIAGNOSIS_AUTO, "--diagnosis: auto by default");
	} else {
		fail("TCP options parsed: %s", errbuf);
	}
	if (run(E "--tcp --diagnosis on", &c) == OPTS_OK)
		ok(c.diagnosis_mode == DIAGNOSIS_ON, "--diagnosis on");
	else
		fail("--diagnosis on parsed: %s", errbuf);
	if (run(E "--ptp-mode", &c) == OPTS_OK)
		ok(c.ptp_mode && c.port == 319, "--ptp-mode: port 319 by default");
	else
		fail("--ptp-mode parsed: %s", errbuf);
	if (run(R "--stamp", &c) == OPTS_OK)
		ok(c.stamp && c.port == 862 && !strcmp(c.stamp_ts, "ntp") &&
		   !strcmp(opts_format(&c), "stamp"), "--stamp: port 862, NTP, the stamp format");
	else
		fail("--stamp parsed: %s", errbuf);
	if (run(R "--ptp-mode --port 1319", &c) == OPTS_OK)
		ok(c.ptp_mode && c.port == 1319, "--ptp-mode --port 1319: the port given");
	else
		fail("--ptp-mode --port parsed: %s", errbuf);
	if (run(E, &c) == OPTS_OK)
		ok(c.nsizes == 1 && c.sizes[0] == 72, "no -m: one size, 72");
	else
		fail("emitter defaults parsed: %s", errbuf);

	if (run(E "-b 0.001 -o 1 -d 2592000", &c) == OPTS_OK) {
		is_i64(c.bucket_ns, 1, "-b 0.001 -> 1 ns");
		is_i64(c.overflow_ns, 1000, "-o 1 -> 1000 ns");
		is_i64(c.duration_ns, 2592000ll * 1000000000ll, "-d 2592000 in ns");
	} else {
		fail("-b 0.001 -o 1 parsed: %s", errbuf);
	}

	if (run(R "-T -S --trace-instance /sys/kernel/tracing/instances/x -l l -c 3",
		&c) == OPTS_OK) {
		ok(c.trace_marker && c.snapshot, "-T -S");
		is_str(c.trace_instance, "/sys/kernel/tracing/instances/x",
		       "--trace-instance");
		is_i64(c.duration_ns, 0, "reflector -c 3: duration still 0");
		is_u64(c.count, 3, "reflector -c 3");
	} else {
		fail("ftrace options parsed: %s", errbuf);
	}

	if (run(E "-d 1.000000001", &c) == OPTS_OK)
		is_i64(c.duration_ns, 1000000001ll, "-d 1.000000001 -> 1000000001 ns");
	else
		fail("-d 1.000000001 parsed: %s", errbuf);

	if (run(R "-v -v -v", &c) == OPTS_OK)
		is_int(c.verbose, 3, "-v counts");
	else
		fail("-v -v -v parsed: %s", errbuf);
}

/* --help's groups: each begins at a row of the table, in the table's
 * order, the first at the first row; a group is never empty. */
static void test_help_groups(void)
{
	size_t prev = 0, bad = 0;

	for (size_t g = 0; g < opt_ngroups; g++) {
		size_t i = 0;

		while (i < opt_count && strcmp(opt_table[i].name, opt_groups[g].first))
			i++;
		if (i == opt_count || (g == 0 && i != 0) || (g > 0 && i <= prev)) {
			diag("group %zu (%s) begins at %s, row %zu", g, opt_groups[g].title,
			     opt_groups[g].first, i);
			bad++;
		}
		prev = i;
	}
	ok(opt_ngroups > 1 && !bad, "--help's %zu groups begin at rows of the table, in order",
	   opt_ngroups);
	run("help --all", &(struct rant_cfg){ 0 });
	ok(strstr(outbuf, "\nThe run:\n  -i, --interface IFACE") &&
	   strstr(outbuf, "--port N               port of the reflector (UDP, or TCP with --tcp) (1\n") &&
	   strstr(outbuf, "--warmup-timeout S     give up (exit 2, saying why) when no stamped pong\n") &&
	   strstr(outbuf, "up until its first pong, S at most (0.1 to 3600;\n                             default 10) [emit, probe]\n") &&
	   strstr(outbuf, "--max-sessions-per-address N  sessions"),
	   "help --all: group titles, each option's range and default from its row, wrapped under its text; two spaces after a long head");
}

static void test_help(void)
{
	struct rant_cfg c;

	is_int(run("--help", &c), OPTS_HELP, "--help -> OPTS_HELP");
	ok(strstr(outbuf, "\n  emit ") && strstr(outbuf, "\n  reflect ") &&
	   strstr(outbuf, "\n  probe ") && strstr(outbuf, "\n  read ") && strstr(outbuf, "\n  watch "),
	   "--help lists the subcommands on stdout");
	is_int(run("emit --help", &c), OPTS_HELP, "emit --help -> OPTS_HELP");
	ok(strstr(outbuf, "12345") && strstr(outbuf, "100000") && strstr(outbuf, "--trace-instance") &&
	   !strstr(outbuf, "--max-sessions") && !strstr(outbuf, "--filter"),
	   "emit --help: its options with their defaults (port 12345, timeout 100000), no other's");
	is_int(run("probe --help", &c), OPTS_HELP, "probe --help -> OPTS_HELP");
	ok(strstr(outbuf, "65535; default 80)") && strstr(outbuf, "(1 to 1000000; default 1000000)"),
	   "probe --help: the probe's own defaults (port 80, timeout 1 s)");
	is_str(errbuf, "", "--help writes nothing on err");
	is_int(run("--version", &c), OPTS_HELP, "--version -> OPTS_HELP");
	ok(strstr(outbuf, "rant") != NULL && strchr(outbuf, '\n') &&
	   strchr(outbuf, '\n')[1] == 0, "--version prints one line naming rant: %s",
	   outbuf);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		opts_usage(f);
		fclose(f);
		ok(buf && strstr(buf, "Subcommands:"), "opts_usage writes to the stream it is given");
		free(buf);
	}
}

/* --allow lists, --key's sizes. */
static void test_guard(void)
{
	struct rant_cfg c;

	if (run(R "--allow 10.1.0.0/16 --allow fd00::/64 --allow 10.1.2.3", &c) == OPTS_OK) {
		is_int(c.allow.n, 3, "--allow three times: three prefixes");
		ok(c.allow.p[0].len == 16 && c.allow.p[1].len == 64 && c.allow.p[2].len == 32,
		   "in order, a bare address as /32");
	} else {
		fail("--allow parsed: %s", errbuf);
	}
	if (run(R, &c) == OPTS_OK)
		is_int(c.allow.n, 0, "no --allow: an empty list (everyone)");
	if (run(E "--key k", &c) == OPTS_OK) {
		is_str(c.key_path, "k", "--key FILE");
		is_int(c.size, WIRE_AUTH_PONG_LEN, "--key without -m: 88 bytes, the pong body and the MAC");
	} else {
		fail("--key parsed: %s", errbuf);
	}
	if (run(E "--key k -m 48", &c) == OPTS_OK)
		is_int(c.size, 48, "--key -m 48: the size given");
	else
		fail("--key -m 48 parsed: %s", errbuf);
	if (run(R "--key k", &c) == OPTS_OK)
		is_str(c.key_path, "k", "--key on the reflector");
	else
		fail("--key on the reflector parsed: %s", errbuf);
}

int main(void)
{
	test_table();
	test_fields();
	test_guard();
	test_help();
	test_help_groups();
	return done_testing();
}
