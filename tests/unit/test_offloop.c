// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offloop.c: the one CPU policy (offloop_pick()'s choices), and a thread
 * started by offloop_spawn() from a SCHED_FIFO caller: SCHED_OTHER, every
 * signal blocked, on the CPUs it says it was placed on (the caller's
 * affinity when got is empty); one a helper starts, on the helper's CPUs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "offloop.h"
#include "tap.h"

static void test_pick(void)
{
	cpu_set_t mine, out;

	CPU_ZERO(&mine);
	CPU_SET(0, &mine);
	ok(offloop_pick(0, 2, &mine, 0, &out) && CPU_COUNT(&out) == 1 && CPU_ISSET(1, &out),
	   "pinned to CPU 0 of 2: first choice CPU 1");
	CPU_ZERO(&mine);
	CPU_SET(1, &mine);
	CPU_SET(2, &mine);
	ok(offloop_pick(0, 4, &mine, 2, &out) && CPU_COUNT(&out) == 2 &&
	   CPU_ISSET(0, &out) && CPU_ISSET(3, &out), "pinned to CPUs 1-2 of 4: first choice 0 and 3");
	ok(offloop_pick(1, 4, &mine, 2, &out) && CPU_COUNT(&out) == 1 && CPU_ISSET(1, &out),
	   "pinned to CPUs 1-2 of 4, on 2: second choice 1 (the loop's set but its CPU)");
	CPU_ZERO(&mine);
	CPU_SET(0, &mine);
	CPU_SET(1, &mine);
	ok(!offloop_pick(0, 2, &mine, 1, &out), "not pinned: no first choice");
	ok(offloop_pick(1, 2, &mine, 1, &out) && CPU_COUNT(&out) == 1 && CPU_ISSET(0, &out),
	   "not pinned, running on 1: second choice 0");
	CPU_ZERO(&mine);
	CPU_SET(0, &mine);
	ok(!offloop_pick(0, 1, &mine, 0, &out) && !offloop_pick(1, 1, &mine, 0, &out),
	   "one CPU: no choice (the caller's affinity)");
	CPU_ZERO(&mine);
	CPU_SET(0, &mine);
	CPU_SET(1, &mine);
	ok(offloop_pick(1, 2, &mine, -1, &out) && CPU_COUNT(&out) == 2,
	   "the current CPU unknown: the second choice is the whole set");
}

struct seen {
	int policy;
	bool int_blocked, term_blocked;
	cpu_set_t cpus;
	int aff_err;
};

static void *look(void *arg)
{
	struct seen *s = arg;
	sigset_t mask;

	s->policy = sched_getscheduler(0);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	s->int_blocked = sigismember(&mask, SIGINT) == 1;
	s->term_blocked = sigismember(&mask, SIGTERM) == 1;
	s->aff_err = sched_getaffinity(0, sizeof(s->cpus), &s->cpus);
	return NULL;
}

static void test_spawn(void)
{
	struct sched_param fifo = { .sched_priority = 1 }, other = { .sched_priority = 0 };
	struct seen s = { .policy = -1 };
	cpu_set_t got, mine;
	pthread_t t;
	bool rt = sched_setscheduler(0, SCHED_FIFO, &fifo) == 0;
	int ret;

	sched_getaffinity(0, sizeof(mine), &mine);
	ret = offloop_spawn(&t, look, &s, &got);
	if (!ok(ret == 0, "offloop_spawn starts a thread (%d)", ret))
		return;
	pthread_join(t, NULL);
	if (rt)
		sched_setscheduler(0, SCHED_OTHER, &other);
	if (rt)
		ok(s.policy == SCHED_OTHER, "from a SCHED_FIFO caller: the thread at SCHED_OTHER");
	else
		skip(1, "SCHED_FIFO refused here (no CAP_SYS_NICE)");
	ok(s.int_blocked && s.term_blocked, "SIGINT and SIGTERM blocked in the thread");
	if (CPU_COUNT(&got))
		ok(!s.aff_err && CPU_EQUAL(&s.cpus, &got), "the thread on the CPUs got names");
	else
		ok(!s.aff_err && CPU_EQUAL(&s.cpus, &mine), "got empty: the thread on the caller's CPUs");
	ok(CPU_COUNT(&mine) < 2 || CPU_COUNT(&got) > 0, "with another CPU: placed on it");
}

struct nested {
	struct seen outer, inner;
	cpu_set_t inner_got;
	int ret;
};

static void *start_inner(void *arg)
{
	struct nested *n = arg;
	pthread_t t;

	look(&n->outer);
	n->ret = offloop_spawn(&t, look, &n->inner, &n->inner_got);
	if (!n->ret)
		pthread_join(t, NULL);
	return NULL;
}

/* A helper's helper (the metrics thread's watchdog) stays on its
 * starter's CPUs: asked from there, "the other CPUs" are the loop's. */
static void test_nested(void)
{
	struct nested n = { .ret = -1 };
	cpu_set_t got;
	pthread_t t;

	if (!ok(offloop_spawn(&t, start_inner, &n, &got) == 0, "the outer thread started"))
		return;
	pthread_join(t, NULL);
	if (!CPU_COUNT(&got)) {
		skip(2, "one CPU here: nothing to keep off");
		return;
	}
	ok(n.ret == 0 && CPU_EQUAL(&n.inner.cpus, &n.outer.cpus),
	   "a thread started from a helper: on the helper's CPUs");
	ok(n.ret == 0 && CPU_COUNT(&n.inner_got) == 0 && n.inner.policy == SCHED_OTHER &&
	   n.inner.int_blocked, "... its got empty (the caller's affinity), SCHED_OTHER, signals blocked");
}

int main(void)
{
	test_pick();
	test_spawn();
	test_nested();
	return done_testing();
}
