/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes as /proc shows them: which hold a socket (its inode among
 * their descriptors), their name, their threads, their network
 * namespace, and running a step inside that namespace.
 */
#ifndef RANT_PROCFD_H
#define RANT_PROCFD_H

#include <stddef.h>
#include <stdint.h>

#include "srvsock.h"

/* For each socket of s[0..n), the processes holding it: s->pid and s->fd
 * of the lowest pid, s->nowners of all. pid 0: only that process is
 * searched. */
void procfd_owners(struct srv_sock *s, size_t n, int pid);

/* The pids that hold the socket inode, ascending, into out (at most max):
 * how many. */
size_t procfd_holders(uint64_t inode, int *out, size_t max);

/* /proc/PID/comm into buf ("?" when gone). */
void procfd_comm(int pid, char *buf, size_t len);

/* The thread ids of pid into out (at most max): how many (0: gone). */
size_t procfd_tasks(int pid, int *out, size_t max);

/* The inode of pid's network namespace (0: gone); pid 0: mine. */
uint64_t procfd_netns(int pid);

/*
 * The pids (one each) of every network namespace on the machine, the
 * caller's first, into out (at most max): how many.
 */
size_t procfd_netns_all(int *out, size_t max);

/*
 * fn(arg) run by this thread inside pid's network namespace, then back
 * in its own (setns; needs CAP_SYS_ADMIN where they differ). fn's value,
 * or -errno of the switch.
 */
int procfd_in_netns(int pid, int (*fn)(void *), void *arg);

#endif
