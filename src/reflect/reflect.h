/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector (server): answers every valid ping with a pong exactly
 * as long, carrying its T2 stamps and the previous pong's T3 wire stamp
 * (the follow-up, as PTP's two-step mode), and measures its response
 * time (T3 - T2) on measured pings, until -d, -c or a signal.
 */
#ifndef RANT_REFLECT_H
#define RANT_REFLECT_H

#include "run.h"

/* Run the reflector on a set-up run; 0. */
int reflect_run(struct run *r);
/* --xdp: the XDP reflector (xdprefl.h) loaded and attached in front of
 * the socket, said at start; when it cannot be, why (a warning, and the
 * socket reflector answers every ping), or -1 under --xdp=required. */
int reflect_setup(struct run *r);

#endif
