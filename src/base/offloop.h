/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Threads that work beside the measuring loop, off its CPU: the log's
 * writer, the interval reporter, the PHC sampler, the live metrics and
 * their server, the captures (--pcap, a probe's segments), a fleet's
 * reload, the reflector's address watch. Each runs at
 * SCHED_OTHER whatever the loop's policy (a SCHED_FIFO loop keeps its
 * priority to itself), blocks every signal (SIGINT and SIGTERM belong to
 * the loop's thread: its waits end on EINTR), and has a small stack,
 * which mlockall() locks with the rest.
 */
#ifndef RANT_OFFLOOP_H
#define RANT_OFFLOOP_H

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>

#define OFFLOOP_STACK (256 * 1024)

/*
 * Start fn(arg) in *t as such a thread, on cpus (NULL: the caller's
 * affinity). 0, or a positive error number as pthread_create() gives
 * (EINVAL where a cpuset refuses those CPUs).
 */
int offloop_spawn(pthread_t *t, void *(*fn)(void *), void *arg,
		  const cpu_set_t *cpus);

/*
 * The CPUs for such a thread, asked by the thread that will measure: those
 * it may not use; when it may use every CPU, all but the one it runs on
 * now. false: there is no other.
 */
bool offloop_other_cpus(cpu_set_t *set);

#endif
