/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP sockets of one local port, as sock_diag (inet_diag, through
 * libnl-idiag) dumps them in the calling thread's network namespace:
 * what `ss -tie sport = :PORT` shows, without ptrace rights.
 */
#ifndef RANT_SOCKDIAG_H
#define RANT_SOCKDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srvsock.h"

/*
 * The sockets whose local port (peer's, with peer: a client's
 * connections to a server's port) is port (0: any), IPv4 and IPv6, listeners
 * first, into out (at most max): how many there were (more than max: the
 * rest not kept), or -errno with one line in err.
 */
int sockdiag_port(uint16_t port, bool peer, struct srv_sock *out, size_t max, char *err,
		  size_t len);

#endif
