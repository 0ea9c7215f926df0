/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/run/cpucheck.h: CPU lists as /proc writes them, --block on a command
 * line, and the overlap of affinity masks; then the whole check over a
 * /proc of the test's own (spinning and blocking rants, other programs,
 * this process, one that ended during the scan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpucheck.h"
#include "tap.h"

static cpu_set_t set_of(const char *list)
{
	cpu_set_t s;

	if (cpucheck_parse_list(list, &s))
		CPU_ZERO(&s);
	return s;
}

static const char *str_of(const char *list)
{
	static char buf[128];
	cpu_set_t s = set_of(list);

	cpucheck_list_str(&s, buf, sizeof(buf));
	return buf;
}

static void test_lists(void)
{
	cpu_set_t s;

	is_int(cpucheck_parse_list("0-3,8,10-11\n", &s), 0, "list 0-3,8,10-11 parses");
	ok(CPU_COUNT(&s) == 7 && CPU_ISSET(0, &s) && CPU_ISSET(3, &s) &&
	   !CPU_ISSET(4, &s) && CPU_ISSET(8, &s) && CPU_ISSET(11, &s),
	   "... to CPUs 0 1 2 3 8 10 11");
	is_int(cpucheck_parse_list("1", &s), 0, "a single CPU parses");
	ok(CPU_COUNT(&s) == 1 && CPU_ISSET(1, &s), "... to CPU 1");
	is_int(cpucheck_parse_list("0-2000", &s), 0, "CPUs past CPU_SETSIZE are left out");
	is_int(CPU_COUNT(&s), CPU_SETSIZE, "... and the rest are in");
	is_int(cpucheck_parse_list("3-1", &s), -EINVAL, "a range backwards is refused");
	is_int(cpucheck_parse_list("1,,2", &s), -EINVAL, "an empty item is refused");
	is_int(cpucheck_parse_list("x", &s), -EINVAL, "a word is refused");
	is_int(cpucheck_parse_list("1-", &s), -EINVAL, "an open range is refused");
	is_int(cpucheck_parse_list("-1", &s), -EINVAL, "a negative CPU is refused");
	is_int(cpucheck_parse_list("1 2", &s), -EINVAL, "a space inside is refused");

	is_str(str_of("0-3,8,10-11"), "0-3,8,10-11", "a list back as it was");
	is_str(str_of("5"), "5", "one CPU");
	is_str(str_of("0,1"), "0-1", "neighbours as a range");
	CPU_ZERO(&s);
	{
		char buf[16];

		cpucheck_list_str(&s, buf, sizeof(buf));
		is_str(buf, "none", "an empty set is \"none\"");
	}
}

/* args as /proc/PID/cmdline holds them: each followed by a NUL. */
static bool blocks(const char *const *argv)
{
	char buf[512];
	size_t n = 0;

	for (; *argv; argv++) {
		size_t l = strlen(*argv) + 1;

		memcpy(buf + n, *argv, l);
		n += l;
	}
	return cpucheck_cmdline_blocks(buf, n);
}

static void test_cmdline(void)
{
	ok(blocks((const char *const[]){ "rant", "-i", "eth0", "--block", NULL }),
	   "--block blocks");
	ok(blocks((const char *const[]){ "./rant", "--bl", "-i", "eth0", NULL }),
	   "--bl (getopt_long's abbreviation) blocks");
	ok(!blocks((const char *const[]){ "rant", "-i", "eth0", NULL }), "no --block spins");
	ok(!blocks((const char *const[]){ "rant", "--b", "-i", "eth0", NULL }),
	   "--b is not --block (ambiguous: --budget, --bucket-size)");
	ok(!blocks((const char *const[]){ "rant", "--blocks", NULL }), "--blocks is not --block");
	ok(!blocks((const char *const[]){ "rant", "--", "--block", NULL }),
	   "after --, --block is no option");
	ok(!cpucheck_cmdline_blocks("--bl", 2), "a cut argument is not read past its length");
}

static void test_conflict(void)
{
	struct cpucheck_peer p[3] = {
		{ .pid = 10, .spins = false, .cpus = set_of("0-1") },
		{ .pid = 11, .spins = true, .cpus = set_of("1") },
		{ .pid = 12, .spins = true, .cpus = set_of("0-1") },
	};
	cpu_set_t mine, shared;
	const struct cpucheck_peer *c;

	mine = set_of("0");
	c = cpucheck_conflict(&mine, p, 3, &shared);
	ok(c && c->pid == 12, "on CPU 0: the spinner allowed on 0-1 (the blocking one is no matter)");
	ok(c && CPU_COUNT(&shared) == 1 && CPU_ISSET(0, &shared), "... sharing CPU 0");
	mine = set_of("1");
	c = cpucheck_conflict(&mine, p, 3, &shared);
	ok(c && c->pid == 11, "on CPU 1: the first spinner that may run there");
	mine = set_of("0-1");
	c = cpucheck_conflict(&mine, p, 3, &shared);
	ok(c && c->pid == 11 && CPU_COUNT(&shared) == 1, "unpinned: shares CPU 1 with pid 11");
	mine = set_of("2-3");
	ok(!cpucheck_conflict(&mine, p, 3, &shared), "on CPUs of its own: nothing");
	mine = set_of("0");
	ok(!cpucheck_conflict(&mine, p, 2, &shared), "only a blocking rant on its CPU: nothing");
	ok(!cpucheck_conflict(&mine, p, 0, &shared), "no other rant: nothing");
}

static char proc[] = "/tmp/rant-proc.XXXXXX";

/* A process under the fake /proc; status NULL: it ended before it was read. */
static void fake(const char *pid, const char *comm, const char *const *argv,
		 const char *cpus)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/comm", proc, pid);
	f = fopen(path, "w");
	fprintf(f, "%s\n", comm);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s/cmdline", proc, pid);
	f = fopen(path, "w");
	for (; *argv; argv++)
		fwrite(*argv, 1, strlen(*argv) + 1, f);
	fclose(f);
	if (!cpus)
		return;
	snprintf(path, sizeof(path), "%s/%s/status", proc, pid);
	f = fopen(path, "w");
	fprintf(f, "Name:\t%s\nCpus_allowed:\tff\nCpus_allowed_list:\t%s\nMems_allowed_list:\t0\n",
		comm, cpus);
	fclose(f);
}

static void test_proc(void)
{
	struct cpucheck_peer peers[8];
	char msg[512] = "";
	cpu_set_t mine;
	int n, r;

	if (!mkdtemp(proc)) {
		skip(9, "no temporary directory");
		return;
	}
	fake("100", "rant", (const char *const[]){ "rant", "-i", "veth0", NULL }, "1");
	fake("200", "rant", (const char *const[]){ "rant", "-i", "veth0", "--block", NULL }, "0");
	fake("300", "bash", (const char *const[]){ "bash", NULL }, "0-1");
	fake("400", "rant", (const char *const[]){ "rant", NULL }, "0-1");	/* this one */
	fake("500", "rant", (const char *const[]){ "rant", NULL }, NULL);	/* ended */
	fake("600", "rant-trace", (const char *const[]){ "python3", NULL }, "0-1");
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/self", proc);
		mkdir(path, 0755);
	}

	n = cpucheck_scan(proc, 400, peers, 8);
	is_int(n, 2, "the scan finds the two other rants (not bash, rant-trace, itself, an ended one)");
	n = cpucheck_scan(proc, 400, peers, 1);
	is_int(n, 1, "... at most max of them");

	mine = set_of("0");
	r = cpucheck_shared(proc, 400, &mine, msg, sizeof(msg));
	is_int(r, 0, "pinned to CPU 0 beside a blocking rant: no warning");
	mine = set_of("1");
	r = cpucheck_shared(proc, 400, &mine, msg, sizeof(msg));
	is_int(r, 1, "pinned to CPU 1, where a spinning rant may run: a warning");
	ok(strstr(msg, "rant pid 100") && strstr(msg, "CPU 1:"), "... naming the other and the CPU: %s", msg);
	ok(strstr(msg, "taskset") && strstr(msg, "--block"), "... and both fixes");
	mine = set_of("0-1");
	r = cpucheck_shared(proc, 400, &mine, msg, sizeof(msg));
	is_int(r, 1, "unpinned: a warning");
	mine = set_of("2-3");
	r = cpucheck_shared(proc, 400, &mine, msg, sizeof(msg));
	is_int(r, 0, "on CPUs nobody else may use: no warning");
	is_int(cpucheck_shared("/nonexistent-proc", 400, &mine, msg, sizeof(msg)), -ENOENT,
	       "an unreadable /proc is an error, not a warning");
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc);
		if (system(cmd))
			diag("could not remove %s", proc);
	}
}

int main(void)
{
	test_lists();
	test_cmdline();
	test_conflict();
	test_proc();
	return done_testing();
}
