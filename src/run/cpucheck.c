// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Spinning rants sharing a CPU (see cpucheck.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpucheck.h"

#define PEERS_MAX 64

/* One number of a CPU list; the end of it in *end. */
static int list_num(const char *p, char **end, unsigned long *v)
{
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	*v = strtoul(p, end, 10);
	return errno ? -EINVAL : 0;
}

int cpucheck_parse_list(const char *list, cpu_set_t *set)
{
	const char *p = list;
	unsigned long lo, hi;
	char *end;

	CPU_ZERO(set);
	while (*p && *p != '\n') {
		if (list_num(p, &end, &lo))
			return -EINVAL;
		hi = lo;
		if (*end == '-' && list_num(end + 1, &end, &hi))
			return -EINVAL;
		if (hi < lo || (*end && *end != ',' && *end != '\n'))
			return -EINVAL;
		for (unsigned long c = lo; c <= hi && c < CPU_SETSIZE; c++)
			CPU_SET(c, set);
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

void cpucheck_list_str(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last == c)
			n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, last);
		used += n > 0 ? (size_t)n : 0;
		c = last;
	}
	if (len && !buf[0])
		snprintf(buf, len, "none");
}

bool cpucheck_cmdline_blocks(const char *args, size_t len)
{
	const char *p = args, *end = args + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n == 2 && !memcmp(p, "--", 2))
			return false;	/* no options after "--" */
		/* getopt_long takes "--bl" on for --block: no other option starts so */
		if (n >= 4 && n <= 7 && !memcmp(p, "--block", n))
			return true;
		p += n + 1;
	}
	return false;
}

/* The first len - 1 bytes of dir/pid/name in buf; their count, or -1. */
static ssize_t read_small(const char *dir, const char *pid, const char *name,
			  char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, pid, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* Cpus_allowed_list of dir/pid/status; 0 or -1. */
static int read_cpus(const char *dir, const char *pid, cpu_set_t *set)
{
	static const char key[] = "Cpus_allowed_list:";
	char path[512], line[4096];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/status", dir, pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		ret = cpucheck_parse_list(line + sizeof(key) - 1 + strspn(line + sizeof(key) - 1, " \t"),
					  set) ? -1 : 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Process dir/pid as a peer, if it is a rant: 1, else 0. */
static int read_peer(const char *dir, const char *pid, struct cpucheck_peer *p)
{
	char comm[32], args[4096];
	ssize_t n;

	if (read_small(dir, pid, "comm", comm, sizeof(comm)) < 0 ||
	    strcmp(comm, "rant\n"))
		return 0;
	n = read_small(dir, pid, "cmdline", args, sizeof(args));
	if (n < 0 || read_cpus(dir, pid, &p->cpus))
		return 0;		/* it ended meanwhile */
	p->pid = (pid_t)strtol(pid, NULL, 10);
	p->spins = !cpucheck_cmdline_blocks(args, (size_t)n);
	return 1;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int cpucheck_scan(const char *proc, pid_t self, struct cpucheck_peer *peers,
		  size_t max)
{
	DIR *d = opendir(proc);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return -errno;
	while (n < max && (e = readdir(d))) {
		if (!all_digits(e->d_name) || strtol(e->d_name, NULL, 10) == self)
			continue;
		n += (size_t)read_peer(proc, e->d_name, &peers[n]);
	}
	closedir(d);
	return (int)n;
}

const struct cpucheck_peer *cpucheck_conflict(const cpu_set_t *mine,
					      const struct cpucheck_peer *peers,
					      size_t n, cpu_set_t *shared)
{
	for (size_t i = 0; i < n; i++) {
		if (!peers[i].spins)
			continue;
		CPU_AND(shared, mine, &peers[i].cpus);
		if (CPU_COUNT(shared))
			return &peers[i];
	}
	return NULL;
}

int cpucheck_shared(const char *proc, pid_t self, const cpu_set_t *mine,
		    char *msg, size_t len)
{
	struct cpucheck_peer peers[PEERS_MAX];
	const struct cpucheck_peer *p;
	char cpus[128], theirs[128];
	cpu_set_t shared;
	int n = cpucheck_scan(proc, self, peers, PEERS_MAX);

	if (n < 0)
		return n;
	p = cpucheck_conflict(mine, peers, (size_t)n, &shared);
	if (!p)
		return 0;
	cpucheck_list_str(&shared, cpus, sizeof(cpus));
	cpucheck_list_str(&p->cpus, theirs, sizeof(theirs));
	snprintf(msg, len,
		 "warning: this rant and rant pid %d (allowed on CPU%s %s), which spins too, may both run on CPU%s %s: two spinners on one CPU take turns by scheduler ticks (unpinned on a 2-CPU machine: p50 of 8 ms): pin each to a CPU of its own (taskset -c N rant ...) or use --block",
		 (int)p->pid, CPU_COUNT(&p->cpus) > 1 ? "s" : "", theirs,
		 CPU_COUNT(&shared) > 1 ? "s" : "", cpus);
	return 1;
}
