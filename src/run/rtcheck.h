/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Real-time throttling: a SCHED_FIFO/SCHED_RR task that spins is stopped
 * by the kernel for (period - runtime) of every period while
 * kernel.sched_rt_runtime_us is below kernel.sched_rt_period_us (50 ms a
 * second by default), and every stop is a latency spike. Kernels with
 * the fair server (6.12 and later) also give SCHED_OTHER tasks that are
 * runnable on the CPU 50 ms a second, whatever the sysctl says.
 */
#ifndef RANT_RTCHECK_H
#define RANT_RTCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Where the values are read from (tests point them at files of their own). */
struct rtcheck_src {
	const char *runtime_path;	/* /proc/sys/kernel/sched_rt_runtime_us */
	const char *period_path;	/* /proc/sys/kernel/sched_rt_period_us */
	const char *release;		/* uname -r, for the fair server */
};

/* The running system's paths and release. */
void rtcheck_system(struct rtcheck_src *s);

/*
 * A one-line warning in msg when a task of scheduling policy `policy`
 * (sched_getscheduler()) that spins (not --block) will be stopped
 * periodically: returns 1 with the line (cost and fix), 0 when there is
 * nothing to say (not real-time, not spinning, throttling off and no
 * fair server), -errno when the sysctls cannot be read.
 */
int rtcheck_throttle(const struct rtcheck_src *s, int policy, bool spins,
		     char *msg, size_t len);

#endif
