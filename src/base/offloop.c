// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Threads beside the measuring loop (see offloop.h): the one place rant
 * calls pthread_create().
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

#include "offloop.h"

#define OFFLOOP_CHOICES 2

/* Set in every thread offloop_spawn() started: a thread it starts in turn
 * (the metrics thread's /metrics watchdog) is off the loop already and
 * stays on its starter's CPUs, where the policy, asked from there, would
 * take "the other CPUs" for the loop's own. */
static __thread bool offloop_self;

struct offloop_start {
	void *(*fn)(void *);
	void *arg;
};

static void *offloop_main(void *p)
{
	struct offloop_start s = *(struct offloop_start *)p;

	free(p);
	offloop_self = true;
	return s.fn(s.arg);
}

bool offloop_pick(int choice, int ncpu, const cpu_set_t *mine, int here, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++) {
		bool in_mine = CPU_ISSET(c, mine);

		if (choice == 0 ? !in_mine : in_mine && c != here)
			CPU_SET(c, set);
	}
	return CPU_COUNT(set) > 0;
}

bool offloop_other_cpus(cpu_set_t *set)
{
	cpu_set_t mine;
	int ncpu = get_nprocs_conf(), here = sched_getcpu();

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (int choice = 0; choice < OFFLOOP_CHOICES; choice++)
		if (offloop_pick(choice, ncpu, &mine, here, set))
			return true;
	return false;
}

/* One attempt: fn(arg) on cpus (NULL: the caller's affinity). */
static int spawn_on(pthread_t *t, void *(*fn)(void *), void *arg, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = 0 };
	struct offloop_start *s = malloc(sizeof(*s));
	sigset_t all, old;
	pthread_attr_t a;
	int ret;

	if (!s)
		return ENOMEM;
	*s = (struct offloop_start){ .fn = fn, .arg = arg };
	ret = pthread_attr_init(&a);
	if (ret) {
		free(s);
		return ret;
	}
	pthread_attr_setstacksize(&a, OFFLOOP_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	if (cpus)
		pthread_attr_setaffinity_np(&a, sizeof(*cpus), cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* the thread inherits it */
	ret = pthread_create(t, &a, offloop_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (ret)
		free(s);
	return ret;
}

int offloop_spawn_on(pthread_t *t, void *(*fn)(void *), void *arg, const cpu_set_t *cpus)
{
	return spawn_on(t, fn, arg, cpus);
}

int offloop_spawn(pthread_t *t, void *(*fn)(void *), void *arg, cpu_set_t *got)
{
	int ncpu = get_nprocs_conf(), here = sched_getcpu();
	cpu_set_t mine, set;
	int ret;

	if (got)
		CPU_ZERO(got);
	if (!offloop_self && !sched_getaffinity(0, sizeof(mine), &mine)) {
		for (int choice = 0; choice < OFFLOOP_CHOICES; choice++) {
			if (!offloop_pick(choice, ncpu, &mine, here, &set))
				continue;
			ret = spawn_on(t, fn, arg, &set);
			if (ret != EINVAL)	/* EINVAL: a cpuset without those CPUs */
				goto out;
		}
	}
	CPU_ZERO(&set);
	ret = spawn_on(t, fn, arg, NULL);
out:
	if (!ret && got)
		*got = set;
	return ret;
}
