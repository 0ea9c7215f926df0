/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syn targets' answers (fleetsyn.c), for the fleet's loop (fleet.c):
 * TCP segments to the fleet's SYN port read off a raw socket
 * (fleetset.h) with their RX stamps, each its target's by the address
 * and port it came from, its SYN's by the acknowledgement (the SYN's
 * sequence number, its target's session XOR its seq, plus one): a
 * SYN-ACK answers it; an RST (a closed port) counts refused. The SYNs
 * leave by fleet.c's send, their TX stamps come off the socket's error
 * queue as a UDP socket's (fleetrx.h's fl_harvest), and beside them
 * the ICMP errors that return a SYN (port or host unreachable, a
 * firewall's prohibited: IP_RECVERR), each retiring its SYN as that
 * error, neither received nor lost, as an icmp target's request.
 */
#ifndef RANT_FLEETSYN_H
#define RANT_FLEETSYN_H

#include "fleetloop.h"

/* The segments queued on the loop's raw socket i (FLEETSET_SYN_SK). */
void fl_syn_receive(struct fleetloop *L, unsigned int i);

/* An ICMP error off a raw socket's error queue (fleetrx.h's
 * fl_harvest): its target's by the address and port the returned SYN
 * went to, its SYN's by the SYN's sequence number; one that returned no
 * SYN of the fleet's port (this host's other TCP traffic) is dropped. */
void fl_syn_error(struct fleetloop *L, const struct sk_icmp_err *e);

#endif
