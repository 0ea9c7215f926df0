/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A socket of another process read where it lives: pidfd_open and
 * pidfd_getfd (Linux 5.6) duplicate it, getsockopt reads the options set
 * on it and its whole TCP_INFO, and the duplicate is closed at once.
 * Nothing is written to it or set on it. Needs ptrace rights over the
 * process (PTRACE_MODE_ATTACH_REALCREDS: the same user, or
 * CAP_SYS_PTRACE).
 */
#ifndef RANT_PIDSOCK_H
#define RANT_PIDSOCK_H

#include "srvsock.h"

/*
 * s->opt (and s->ti, whole) from descriptor s->fd of process s->pid: 0,
 * or -errno (also in s->opt.err; s->ti left as sock_diag gave it).
 */
int pidsock_read(struct srv_sock *s);

/* One line on why pidsock_read() failed with err, and the fix. */
const char *pidsock_why(int err);

#endif
