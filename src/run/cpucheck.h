/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two spinners on one CPU: a rant that spins (not --block) owns its CPU.
 * When another spinning rant may run on a CPU this one may run on (their
 * affinity masks overlap), the scheduler makes them take turns, a tick
 * or more each, and every turn is a latency spike (unpinned on a 2-CPU
 * machine, emitter and reflector together gave a p50 of 8 ms). The check
 * reads /proc once, at start-up: each process whose comm is "rant", its
 * command line (--block or not) and its Cpus_allowed_list.
 */
#ifndef RANT_CPUCHECK_H
#define RANT_CPUCHECK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Parse a CPU list as /proc/PID/status writes it ("0-3,8,10-11") into
 * set; CPUs beyond CPU_SETSIZE are left out. 0, or -EINVAL.
 */
int cpucheck_parse_list(const char *list, cpu_set_t *set);

/* set as a CPU list ("0-3,8"), "none" when empty. */
void cpucheck_list_str(const cpu_set_t *set, char *buf, size_t len);

/*
 * Whether a command line (its arguments NUL-separated, as
 * /proc/PID/cmdline holds them) gives --block, or a prefix of it that
 * getopt_long takes for it.
 */
bool cpucheck_cmdline_blocks(const char *args, size_t len);

/* Another rant found under /proc. */
struct cpucheck_peer {
	pid_t pid;
	bool spins;		/* no --block on its command line */
	cpu_set_t cpus;		/* where it may run */
};

/*
 * Under proc (normally "/proc"), the processes named "rant" other than
 * self: at most max of them in peers. Returns how many, or -errno when
 * proc cannot be read. A process that ends during the scan is skipped.
 */
int cpucheck_scan(const char *proc, pid_t self, struct cpucheck_peer *peers,
		  size_t max);

/*
 * The first of n peers that spins and may run on a CPU of mine, with the
 * CPUs both may use in *shared; NULL when there is none.
 */
const struct cpucheck_peer *cpucheck_conflict(const cpu_set_t *mine,
					      const struct cpucheck_peer *peers,
					      size_t n, cpu_set_t *shared);

/*
 * The start-up check for a rant (pid self, allowed on mine) that spins:
 * 1 with a one-line warning in msg (who shares which CPUs, and the fix),
 * 0 when there is nothing to say, -errno when proc cannot be read.
 */
int cpucheck_shared(const char *proc, pid_t self, const cpu_set_t *mine,
		    char *msg, size_t len);

#endif
