/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/run/rtcheck.h: the real-time throttling warning from sysctl values in
 * files of the test's own: warned for a spinning SCHED_FIFO or SCHED_RR
 * task while sched_rt_runtime_us is below the period (with the cost in
 * ms and the sysctl that fixes it), silent for SCHED_OTHER, for --block,
 * with throttling off (-1, or runtime = period) on a kernel without the
 * fair server; the fair server (6.12+) warned about even with -1;
 * unreadable files an error.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtcheck.h"
#include "tap.h"

static char rt_path[] = "/tmp/rant-rt-runtime.XXXXXX";
static char per_path[] = "/tmp/rant-rt-period.XXXXXX";

static void set(const char *path, long v)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%ld\n", v);
		fclose(f);
	}
}

int main(void)
{
	struct rtcheck_src s = { rt_path, per_path, "6.1.0-13-amd64" };
	char msg[640] = "";
	int fd;

	fd = mkstemp(rt_path);
	close(fd);
	fd = mkstemp(per_path);
	close(fd);
	set(rt_path, 950000);
	set(per_path, 1000000);

	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), 1, "FIFO, spinning, throttled: warned");
	ok(strstr(msg, "kernel.sched_rt_runtime_us 950000 of 1000000") != NULL, "names the values: %s", msg);
	ok(strstr(msg, "stopped for 50 ms of every 1000 ms") != NULL, "names the cost");
	ok(strstr(msg, "sysctl kernel.sched_rt_runtime_us=-1") && strstr(msg, "put 950000 back"),
	   "names the fix and the value to restore");
	ok(!strstr(msg, "fair server"), "no fair server on 6.1");
	is_int(rtcheck_throttle(&s, SCHED_RR, true, msg, sizeof(msg)), 1, "RR too");
	ok(strstr(msg, "SCHED_RR") != NULL, "names the policy");
	is_int(rtcheck_throttle(&s, SCHED_OTHER, true, msg, sizeof(msg)), 0, "SCHED_OTHER: nothing");
	is_int(rtcheck_throttle(&s, SCHED_FIFO, false, msg, sizeof(msg)), 0, "--block: nothing");

	set(rt_path, 800000);
	set(per_path, 500000);
	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), 0, "runtime above the period: off");
	set(rt_path, 400000);
	rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg));
	ok(strstr(msg, "stopped for 100 ms of every 500 ms") != NULL, "other values: %s", msg);

	set(rt_path, -1);
	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), 0, "-1: throttling off, nothing");
	s.release = "6.18.44-fc";
	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), 1, "-1 on 6.18: the fair server still stops it");
	ok(strstr(msg, "fair server") && strstr(msg, "isolcpus"), "says why and what to do: %s", msg);
	set(rt_path, 950000);
	set(per_path, 1000000);
	rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg));
	ok(strstr(msg, "sched_rt_runtime_us=-1") && strstr(msg, "fair server"), "throttled on 6.18: both");
	s.release = "5.15.0";
	set(rt_path, -1);
	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), 0, "5.15 with -1: nothing");

	s.runtime_path = "/nonexistent/sched_rt_runtime_us";
	is_int(rtcheck_throttle(&s, SCHED_FIFO, true, msg, sizeof(msg)), -ENOENT, "unreadable: -ENOENT");
	unlink(rt_path);
	unlink(per_path);
	return done_testing();
}
