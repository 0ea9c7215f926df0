/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes as /proc shows them: which hold a socket (its inode among
 * their descriptors), their name, their threads, their network
 * namespace, and running a step inside that namespace.
 */
#ifndef RANT_PROCFD_H
#define RANT_PROCFD_H

#include <stdbool.h>
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

/* The inode of pid's network namespace (0: gone, or not ours to read);
 * pid 0: mine. */
uint64_t procfd_netns(int pid);

/* A network namespace by a file that names it: /proc/PID/ns/net, or a
 * name ip netns gave it (/run/netns/NAME), which needs no ptrace rights
 * over any process in it. */
struct procfd_ns {
	char path[64 + 256];
	uint64_t inode;
};

/*
 * Every network namespace this process can name, its own first, once
 * each, into out (at most max): how many.
 */
size_t procfd_netns_all(struct procfd_ns *out, size_t max);

/* The namespace of pid as such a file; -errno when it cannot be named. */
int procfd_netns_of(int pid, struct procfd_ns *ns);

/*
 * fn(arg) run by this thread inside the namespace ns names, then back in
 * its own (setns; needs CAP_SYS_ADMIN where they differ). fn's value, or
 * -errno of the switch.
 */
int procfd_in_netns(const struct procfd_ns *ns, int (*fn)(void *), void *arg);

/* Did the last procfd_owners() find process descriptors it may not
 * read (no ptrace rights)? */
bool procfd_owners_denied(void);

#endif
