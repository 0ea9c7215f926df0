// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Threads beside the measuring loop (see offloop.h).
 */
#include <signal.h>

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
