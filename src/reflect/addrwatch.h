/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A UDP reflector's interface watched for a second address. A reflector
 * binds the wildcard address; on an interface of one address of each
 * family it does not ask for each datagram's destination (the PKTINFO's
 * price: sock.c's sk_recv_dst), and the kernel sends each pong from the
 * address its route prefers. An address added while it runs would then
 * get its pongs from the other one (IPv4: the first; IPv6: the newest,
 * so the first address's emitters lose theirs): an emitter drops a pong
 * from a stranger, a fleet counts it foreign.
 *
 * So a thread beside the loop (off its CPU) waits for the kernel's news
 * of addresses (rtnetlink, libnl: RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR)
 * and counts the interface's again at each; once a family has two, it
 * asks the socket for each datagram's destination (sk_ask_dst), says so
 * on stderr, and ends. The loop never waits for it and reads nothing of
 * it: the next datagram brings its destination in its control data,
 * which the receive takes (s->dst_watched) and answers from, as a
 * reflector started on such an interface does.
 */
#ifndef RANT_ADDRWATCH_H
#define RANT_ADDRWATCH_H

#include <stddef.h>

#include "sock.h"

struct addrwatch;

/*
 * Start watching iface for the reflector's socket s (which must not
 * ask for destinations already: s->want_dst false), before the loop;
 * sets s->dst_watched. 0 with *wp, or -errno with one line in err (the
 * reflector then answers an address added later from the first).
 */
int addrwatch_start(struct addrwatch **wp, struct sk *s, const char *iface, char *err,
		    size_t len);

/* Stop the thread (at once) and free it all; NULL: nothing. Before the
 * socket is closed. */
void addrwatch_stop(struct addrwatch *w);

#endif
