/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A probe's view of the server's own side (--server-pid) and of another
 * client's (--client-pid), from srvview.h: found and its send calls
 * traced before the first connection, its sockets read after the loop,
 * while the probe's connections are still open, closed at teardown.
 * Not for other modules: probe.h is the interface.
 */
#ifndef RANT_PROBESRV_H
#define RANT_PROBESRV_H

#include "run.h"

/* 0, or -errno after one line on stderr (the problem and the fix). A
 * server whose calls cannot be traced is still read (a warning says why). */
int probesrv_open(struct run *r);

/* After the loop: what the server (and the client) look like now. */
void probesrv_read(struct run *r);

void probesrv_close(struct run *r);

#endif
