/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --http, --request: what the probe's connections' packets say. Each
 * segment the capture hands over (segcap.h, on its thread) goes to the
 * analysis of its connection (tcpana.h: one a connection, found by the
 * client's port, begun at its SYN); each exchange measured goes into one
 * tally, whose diagnosis the summary names; each connection's handshake
 * (its SYN out to the SYN-ACK back, at the interface) is the connect
 * metric. Everything here runs on the capture's thread; the loop reads
 * the result after the capture stopped.
 */
#ifndef RANT_PROBEDIAG_H
#define RANT_PROBEDIAG_H

#include <stdint.h>
#include <sys/socket.h>

#include "hist.h"
#include "probecount.h"
#include "tcpwire.h"

struct probediag;

/* For connections at once at most (more are counted, not analysed), to
 * server; handshakes into connect (NULL: none). NULL with errno. */
struct probediag *probediag_create(uint32_t connections, const struct sockaddr_storage *server,
				   struct hist *connect);
void probediag_destroy(struct probediag *d);

/* Measuring began at t_ns (CLOCK_REALTIME): earlier exchanges (the
 * warm-up's) are left out of the diagnosis. Any thread. */
void probediag_measuring(struct probediag *d, int64_t t_ns);

/* segcap's callback: one segment (ctx: the probediag). */
void probediag_seg(void *ctx, const struct tcpwire_seg *s, int64_t t_ns);

/* After the capture stopped: every connection ended at end_ns, the
 * diagnosis into out (its capture counts are the caller's). */
void probediag_result(struct probediag *d, int64_t end_ns, struct probe_diag *out);

#endif
