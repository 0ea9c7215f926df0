// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Threads beside the measuring loop (see offloop.h).
 */
#include <signal.h>
#include <sys/sysinfo.h>

#include "offloop.h"

int offloop_spawn(pthread_t *t, void *(*fn)(void *), void *arg,
		  const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = 0 };
	sigset_t all, old;
	pthread_attr_t a;
	int ret;

	ret = pthread_attr_init(&a);
	if (ret)
		return ret;
	pthread_attr_setstacksize(&a, OFFLOOP_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	if (cpus)
		pthread_attr_setaffinity_np(&a, sizeof(*cpus), cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* the thread inherits it */
	ret = pthread_create(t, &a, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	return ret;
}

bool offloop_other_cpus(cpu_set_t *set)
{
	cpu_set_t mine;
	int ncpu = get_nprocs_conf(), here = sched_getcpu();

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
		if (!CPU_ISSET(c, &mine))
			CPU_SET(c, set);
	if (CPU_COUNT(set))
		return true;
	*set = mine;
	if (here >= 0)
		CPU_CLR(here, set);
	return CPU_COUNT(set) > 0;
}
