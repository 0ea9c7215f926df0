/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probing a TCP service that is not rant (doc/services.md): --syn times
 * handshakes from the kernel's (or NIC's) stamps of the SYN and the
 * SYN-ACK; --http (and --request) times requests over kept-alive
 * connections from the stamps of the request and of the response, and
 * names what held them from the connections' packets (tcpana.h).
 */
#ifndef RANT_PROBE_H
#define RANT_PROBE_H

#include "run.h"

/*
 * The probe's memory, its connections' table, its capture: after
 * run_setup(), before the first packet. 0, or -errno after one line on
 * stderr (problem and fix).
 */
int probe_setup(struct run *r);

/*
 * Run the probe the command line asks for on a set-up run (its transport
 * open). 0 when it measured (or was stopped by a signal), -EIO when
 * nothing could be measured (the reason in r->failure).
 */
int probe_run(struct run *r);

/* What probe_setup() made, undone (also after a failed set-up). */
void probe_teardown(struct run *r);

#endif
