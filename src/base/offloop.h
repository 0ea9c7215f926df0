/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Threads that work beside the measuring loop, off its CPU: every helper
 * thread rant starts goes through offloop_spawn() (the log's writer and
 * the -S ring's writers, the interval reporter, the PHC sampler, the
 * live metrics and the /metrics watchdog, the targets' reload, the
 * reflector's address watch, the probe's and --pcap's captures). Each
 * runs at SCHED_OTHER whatever the loop's policy (a SCHED_FIFO loop keeps
 * its priority to itself), blocks every signal (SIGINT and SIGTERM
 * belong to the loop's thread: its waits end on EINTR), has a small
 * stack, which mlockall() locks with the rest, and sits on the CPUs of
 * one policy (offloop_pick()).
 */
#ifndef RANT_OFFLOOP_H
#define RANT_OFFLOOP_H

#include <pthread.h>
#include <stdbool.h>
#include <sched.h>

#define OFFLOOP_STACK (256 * 1024)

/*
 * The policy's CPUs for a helper, by choice, given the caller's affinity
 * mine, the CPU it runs on now (here, -1: unknown) and the system's ncpu:
 * choice 0, the CPUs outside mine (taskset gave the loop fewer than all);
 * choice 1, mine but here. false: that choice has no CPU (then the next
 * one; after both, the caller's own affinity).
 */
bool offloop_pick(int choice, int ncpu, const cpu_set_t *mine, int here, cpu_set_t *set);

/*
 * Start fn(arg) in *t as such a thread, from the thread that will
 * measure: on the policy's first choice the system accepts (a cpuset
 * may refuse CPUs), else on the caller's affinity; from such a thread
 * (the metrics thread starts the /metrics watchdog), on its CPUs. A
 * thread a library starts from one (libmicrohttpd's) inherits all of it:
 * SCHED_OTHER, the signals blocked, the CPUs. got, when not NULL,
 * is set to the CPUs it was placed on (empty: the caller's affinity,
 * there was no other CPU or none was accepted). 0, or a positive error
 * number as pthread_create() gives.
 */
int offloop_spawn(pthread_t *t, void *(*fn)(void *), void *arg, cpu_set_t *got);

/*
 * Start fn(arg) in *t as a second measuring loop (the probe's
 * --threads): as a helper (SCHED_OTHER, every signal blocked, the small
 * stack), but on cpus (NULL: the caller's affinity) rather than off the
 * loop's. 0, or a positive error number.
 */
int offloop_spawn_on(pthread_t *t, void *(*fn)(void *), void *arg, const cpu_set_t *cpus);

/*
 * The policy's first choice with CPUs, for this thread (asked by the
 * thread that will measure). false: there is no other CPU.
 */
bool offloop_other_cpus(cpu_set_t *set);

#endif
