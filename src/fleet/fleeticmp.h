/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The icmp targets' echo replies (fleeticmp.c), for the fleet's loop
 * (fleet.c): read off a ping socket (fleetset.h) with their RX stamps,
 * each its target's by the address it came from and its ping's by its
 * sequence (16 bits on the wire, widened to the target's own). The
 * requests leave by fleet.c's send, their TX stamps come off the
 * socket's error queue as a UDP socket's (fleetrx.h's fl_harvest), and
 * beside them the ICMP errors that answer them (unreachable, time
 * exceeded: IP_RECVERR), each retiring its ping as that error, not
 * lost, as --icmp counts it.
 */
#ifndef RANT_FLEETICMP_H
#define RANT_FLEETICMP_H

#include "fleetloop.h"

/* The replies queued on the loop's ping socket i (FLEETSET_ICMP_SK). */
void fl_icmp_receive(struct fleetloop *L, unsigned int i);

/* An ICMP error off a ping socket's error queue (fleetrx.h's
 * fl_harvest): its target's by the address the returned request went
 * to, its ping's by the request's sequence; an error that returned no
 * request of an icmp target's is dropped. */
void fl_icmp_error(struct fleetloop *L, const struct sk_icmp_err *e);

#endif
