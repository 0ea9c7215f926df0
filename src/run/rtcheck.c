// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Real-time throttling check (see rtcheck.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rtcheck.h"

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"
#define RT_PERIOD_PATH "/proc/sys/kernel/sched_rt_period_us"

void rtcheck_system(struct rtcheck_src *s)
{
	static struct utsname u;

	s->runtime_path = RT_RUNTIME_PATH;
	s->period_path = RT_PERIOD_PATH;
	s->release = uname(&u) ? "" : u.release;
}

/* One integer from a file: 0 or -errno. */
static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%ld", v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

/* The fair server came with Linux 6.12. */
static bool has_fair_server(const char *release)
{
	int major = 0, minor = 0;

	if (!release || sscanf(release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 12);
}

int rtcheck_throttle(const struct rtcheck_src *s, int policy, bool spins,
		     char *msg, size_t len)
{
	const char *pol = policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR";
	bool fair = has_fair_server(s->release);
	long runtime, period;
	int ret;

	if ((policy != SCHED_FIFO && policy != SCHED_RR) || !spins)
		return 0;
	ret = read_long(s->runtime_path, &runtime);
	if (!ret)
		ret = read_long(s->period_path, &period);
	if (ret)
		return ret;
	if (runtime >= 0 && runtime < period) {
		snprintf(msg, len, "warning: real-time throttling is on (kernel.sched_rt_runtime_us %ld of %ld): a spinning %s task is stopped for %ld ms of every %ld ms, and each stop is a spike; for the test run sysctl kernel.sched_rt_runtime_us=-1 (config.sh has a step for it) and put %ld back after%s",
			 runtime, period, pol, (period - runtime) / 1000, period / 1000,
			 runtime, fair ? "; this kernel's fair server also gives other tasks runnable on this CPU 50 ms a second: keep them off it (isolcpus, cpusets)" : "");
		return 1;
	}
	if (fair) {
		snprintf(msg, len, "warning: a spinning %s task on this kernel (%s, fair server) is stopped for 50 ms a second whenever another task is runnable on its CPU, whatever kernel.sched_rt_runtime_us says: keep other tasks off this CPU (isolcpus, cpusets) or use --block",
			 pol, s->release);
		return 1;
	}
	return 0;
}
