/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/run/trace.h: the marker lines (every field, absent stamps left out,
 * too small a buffer refused), the trace_clock file's bracketed entry,
 * and, on an instance made of plain files in a directory of the test's
 * own: the clock read at open, -S without a snapshot file (a note, not
 * a failure) and with one (written before tracing_on), the breach marker
 * then the freeze, and a marker refused with EBADF: -EALREADY when
 * tracing_on was already 0 (the other side froze it), -EBADF otherwise;
 * a tracing_cpumask parsed and, at open, checked to cover this process's
 * CPUs (refused with the fix when it does not).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trace.h"

static char dir[PATH_MAX];

static void put_file(const char *name, const char *text)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void get_file(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 32];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void make_instance(const char *clock, bool snapshot)
{
	char path[PATH_MAX + 32];

	put_file("trace_marker", "");
	put_file("tracing_on", "1\n");
	put_file("trace_clock", clock);
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	unlink(path);
	if (snapshot)
		put_file("snapshot", "");
}

static const struct trace_ctx ctx = {
	.side = "reflect", .cpu = 3, .pid = 4242, .clock = "mono",
	.rt_ns = 1700000000123456789ll, .mono_ns = 5123456789ll,
};

static void test_format(void)
{
	struct trace_breach b = {
		.seq = 77, .latency_ns = 31000000, .threshold_ns = 20000000,
		.side = "reflect", .cpu = 3,
		.stamp = { 0, 0, 1700000000100000000ll, 1700000000131000000ll,
			   1700000000131001000ll, 1700000000131020000ll, 0, 0 },
	};
	char buf[768];
	int n;

	n = trace_format_start(buf, sizeof(buf), &ctx, "iface=veth1 session=0000abcd");
	is_str(buf, "RANT_TEST_START side=reflect cpu=3 pid=4242 trace_clock=mono rt_ns=1700000000123456789 mono_ns=5123456789 iface=veth1 session=0000abcd",
	       "RANT_TEST_START carries side, cpu, pid, clock and both clock readings");
	is_int(n, (int)strlen(buf), "the length is returned");
	trace_format_start(buf, sizeof(buf), &ctx, NULL);
	ok(buf[strlen(buf) - 1] != ' ', "no trailing space without extra fields");

	trace_format_breach(buf, sizeof(buf), &ctx, &b);
	is_str(buf, "RANT_BREACH seq=77 latency_ns=31000000 threshold_ns=20000000 side=reflect cpu=3 pid=4242 trace_clock=mono rt_ns=1700000000123456789 mono_ns=5123456789 T2_wire=1700000000100000000 T2_SW=1700000000131000000 T3_SW=1700000000131001000 T3_wire=1700000000131020000",
	       "RANT_BREACH: the fields, then only the stamps present, in path order");
	for (int i = 0; i < 8; i++)
		b.stamp[i] = 1700000000000000000ll + i;
	n = trace_format_breach(buf, sizeof(buf), &ctx, &b);
	ok(n > 0 && strstr(buf, " T1_SW=1700000000000000000 T1_wire=") &&
	   strstr(buf, " T4_wire=1700000000000000006 T4_SW=1700000000000000007"),
	   "all eight stamps named T1_SW T1_wire ... T4_wire T4_SW");
	is_int(trace_format_breach(buf, 40, &ctx, &b), -ENOSPC, "a buffer too small: -ENOSPC");
	is_int(trace_format_start(buf, 10, &ctx, "x=1"), -ENOSPC, "RANT_TEST_START too: -ENOSPC");
}

static void test_clock(void)
{
	char c[16];

	trace_parse_clock("[local] global counter uptime perf mono\n", c, sizeof(c));
	is_str(c, "local", "the default clock");
	trace_parse_clock("local global counter uptime perf [mono] mono_raw boot\n", c, sizeof(c));
	is_str(c, "mono", "the bracketed entry in the middle");
	trace_parse_clock("local global\n", c, sizeof(c));
	is_str(c, "", "no bracket: empty");
}

static void test_instance(void)
{
	struct trace *t = NULL;
	struct trace_breach b = { .seq = 9, .latency_ns = 5, .threshold_ns = 1,
				  .side = "emit", .cpu = 1, .stamp = { 100, 200 } };
	char err[512] = "", buf[1024];

	make_instance("local global [mono] boot\n", false);
	if (!ok(trace_open(&t, dir, true, err, sizeof(err)) == 0, "open a plain-file instance with -S and no snapshot file")) {
		diag("%s", err);
		return;
	}
	ok(trace_no_snapshot(t), "no snapshot file: noted for the start-up warning");
	is_str(trace_clock_name(t), "mono", "the clock read from trace_clock");
	is_int(trace_breach_cpu(t), -1, "no breach yet: CPU -1");
	is_int(trace_start(t, "emit", 1, "iface=x"), 0, "RANT_TEST_START written");
	is_int(trace_breach(t, &b), 0, "breach: marker written, trace frozen");
	is_int(trace_breach_cpu(t), 1, "the breach's CPU is kept for the report");
	get_file("trace_marker", buf, sizeof(buf));
	ok(!strncmp(buf, "RANT_TEST_START side=emit cpu=1 pid=", 36) &&
	   strstr(buf, " trace_clock=mono ") && strstr(buf, " iface=x\nRANT_BREACH seq=9 ") &&
	   strstr(buf, " T1_SW=100 T1_wire=200\n"), "both markers, one line each");
	get_file("tracing_on", buf, sizeof(buf));
	is_int(buf[0], '0', "tracing_on is 0 after the breach");
	trace_close(t);

	make_instance("[local] global\n", true);
	ok(trace_open(&t, dir, true, err, sizeof(err)) == 0 && !trace_no_snapshot(t),
	   "with a snapshot file it is opened");
	is_str(trace_clock_name(t), "local", "the default clock");
	is_int(trace_breach(t, &b), 0, "breach with a snapshot");
	get_file("snapshot", buf, sizeof(buf));
	is_str(buf, "1", "1 written to snapshot");
	trace_close(t);
}

/*
 * The kernel refuses marker writes with EBADF once tracing_on is 0. A
 * plain file does not, so the marker's descriptor (the lowest free one
 * at trace_open) is replaced by a read-only one, whose write fails so.
 */
static void test_refused(void)
{
	char err[512], path[PATH_MAX + 32];
	struct trace *t;
	struct trace_breach b = { .seq = 1, .side = "emit", .cpu = 0 };
	int fd, ro;

	for (int frozen = 0; frozen < 2; frozen++) {
		make_instance("[mono]\n", false);
		fd = open("/dev/null", O_RDONLY);
		close(fd);
		if (trace_open(&t, dir, false, err, sizeof(err))) {
			ok(0, "open: %s", err);
			return;
		}
		snprintf(path, sizeof(path), "%s/trace_marker", dir);
		ro = open(path, O_RDONLY);
		dup2(ro, fd);
		close(ro);
		if (frozen)
			put_file("tracing_on", "0\n");
		if (frozen)
			is_int(trace_breach(t, &b), -EALREADY,
			       "EBADF with tracing_on already 0: -EALREADY (the other side froze it)");
		else
			is_int(trace_breach(t, &b), -EBADF,
			       "EBADF with tracing on: a real failure, -EBADF");
		trace_close(t);
	}
}

/* tracing_cpumask: parsed, and the CPUs rant may run on checked at open. */
static void test_cpumask(void)
{
	char err[512] = "", line[512];
	struct trace *t = NULL;
	cpu_set_t set, mine;

	ok(trace_parse_cpumask("3\n", &set) == 0 && CPU_COUNT(&set) == 2 &&
	   CPU_ISSET(0, &set) && CPU_ISSET(1, &set), "'3': CPUs 0 and 1");
	ok(trace_parse_cpumask("00000001,00000004\n", &set) == 0 && CPU_COUNT(&set) == 2 &&
	   CPU_ISSET(2, &set) && CPU_ISSET(32, &set), "'00000001,00000004': CPUs 2 and 32");
	ok(trace_parse_cpumask("0\n", &set) == 0 && CPU_COUNT(&set) == 0, "'0': none");
	is_int(trace_parse_cpumask("xyz\n", &set), -EINVAL, "'xyz' refused");
	is_int(trace_parse_cpumask("\n", &set), -EINVAL, "empty refused");

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_ZERO(&mine);
	CPU_SET(1, &mine);
	is_int(trace_cover_line(&set, &mine, "/i", line, sizeof(line)), -EXDEV,
	       "traced 0, rant on 1: refused");
	ok(strstr(line, "does not trace CPU 1, where rant may measure (tracing_cpumask: CPU 0)") &&
	   strstr(line, "echo 3 > /i/tracing_cpumask"), "the line names the CPU and the fix");
	CPU_SET(1, &set);
	is_int(trace_cover_line(&set, &mine, "/i", line, sizeof(line)), 0, "traced 0-1, rant on 1");
	ok(strstr(line, "/i traces CPU 0-1 (tracing_cpumask), covering CPU 1, where rant measures") != NULL,
	   "the line says so");

	make_instance("[mono]\n", false);
	put_file("tracing_cpumask", "0\n");
	is_int(trace_open(&t, dir, false, err, sizeof(err)), -EXDEV,
	       "an instance tracing no CPU of this process: trace_open refuses");
	ok(strstr(err, "does not trace CPU") != NULL, "with the line");
	trace_close(t);
	if (sched_getaffinity(0, sizeof(mine), &mine) == 0) {
		char hex[80] = "";
		int top = 0;

		for (int c = 0; c < 64; c++)
			if (CPU_ISSET(c, &mine))
				top = c;
		snprintf(hex, sizeof(hex), "%llx\n", top >= 63 ? ~0ull : (1ull << (top + 1)) - 1);
		put_file("tracing_cpumask", hex);
		ok(trace_open(&t, dir, false, err, sizeof(err)) == 0 && t &&
		   strstr(trace_coverage(t), "where rant measures"), "covering them: opened, and said");
		trace_close(t);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/rant-trace-unit.XXXXXX";

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(dir, sizeof(dir), "%s", tmpl);
	test_format();
	test_clock();
	test_instance();
	test_refused();
	test_cpumask();
	for (const char *const *n = (const char *const[]){ "trace_marker", "tracing_on",
			"trace_clock", "snapshot", "tracing_cpumask", NULL }; *n; n++) {
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/%s", dir, *n);
		unlink(p);
	}
	rmdir(dir);
	return done_testing();
}
