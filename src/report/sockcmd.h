/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant sockets PID|[ADDR]:PORT: a server's side without probing it (an
 * ss -tiep that explains): for the port given, or each port the process
 * PID listens on, the owner, the listener's queue, every socket with its
 * options and TCP_INFO, and with -d the server's writes per response
 * over that long (srvview.h). Text, and JSON with -j.
 */
#ifndef RANT_SOCKCMD_H
#define RANT_SOCKCMD_H

#include "cfg.h"

/* The exit status: 0 read, 1 nothing to read (said on stderr). */
int sockcmd_main(const struct rant_cfg *c);

#endif
