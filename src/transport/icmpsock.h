/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --icmp's transport (transport_icmp): a ping socket (SOCK_DGRAM with
 * IPPROTO_ICMP, or IPPROTO_ICMPV6 for an IPv6 peer), which any user in
 * net.ipv4.ping_group_range may open, connected to the peer and bound to
 * the interface, with SO_TIMESTAMPING. The kernel gives each echo
 * request the socket's own identifier and its checksum, and hands the
 * socket only the replies that carry that identifier (ICMP header and
 * payload, no IP header). IP_RECVERR (IPV6_RECVERR) puts the ICMP errors
 * that answer its requests (unreachable, time exceeded) on the error
 * queue beside the TX stamps: icmpsock_errq() reads both, the error with
 * the sequence of the request it returns.
 */
#ifndef RANT_ICMPSOCK_H
#define RANT_ICMPSOCK_H

#include <stdint.h>

#include "transport.h"

/* One error-queue entry: a TX stamp report, or an ICMP error. */
struct icmpsock_event {
	bool is_error;
	struct ts_tx tx;		/* !is_error: the report */
	uint8_t type, code;		/* is_error: the ICMP error's */
	uint16_t seq;			/* is_error: the returned request's */
	struct ts_stamps rx;		/* is_error: its RX stamp, TS_NONE: none */
};

/*
 * A fleet's ping socket (fleetset.h): family's, unconnected (each request
 * goes to its target with sendto(), pathsk_send()), bound to -i, with
 * SO_TIMESTAMPING and a receive buffer of rcvbuf bytes asked; the
 * kernel gives all its requests one identifier and hands it the replies
 * of every target; with IP_RECVERR, as --icmp's, the ICMP errors that
 * answer them on its error queue (skbatch.h's sk_errq_read_batch reads
 * them beside the TX stamps). 0, or -errno with one line (problem and
 * fix) in err.
 */
int icmpsock_fleet_open(struct sk *s, const struct rant_cfg *cfg, int family, int rcvbuf,
			char *err, size_t len);

/* 0 with the next entry in *ev, -EAGAIN when none is left, -ENOMSG for
 * one that is neither (read and dropped). */
int icmpsock_errq(struct sk *s, struct icmpsock_event *ev);

#endif
