/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --syn's transport (transport_syn): a raw IPPROTO_TCP socket bound to
 * the interface, with SO_TIMESTAMPING, that sends the SYNs the probe
 * builds (tcpwire.h) and reads back every TCP segment from the server's
 * port (a socket filter keeps the others out) with its RX stamp; the TX
 * stamp of each SYN comes off the error queue by its OPT_ID key, the
 * sends counted from 0 as on a datagram socket.
 *
 * Each probe's source port is reserved by a TCP socket bound to it and
 * to the local address (synsock_reserve): no other socket of this host
 * takes it while the probe is out, and since that socket neither listens
 * nor connects, this host's kernel answers the server's SYN-ACK with an
 * RST, so neither host keeps a half-open connection.
 */
#ifndef RANT_SYNSOCK_H
#define RANT_SYNSOCK_H

#include <stdint.h>

#include "transport.h"

/* The local address the SYNs leave from (4 or 16 bytes, network order,
 * as the socket's family says). */
const uint8_t *synsock_local(const struct sk *s);

/* A source port of its own for one probe: 0 with the socket that holds
 * it in *fd (close it when the probe is done) and the port in *port, or
 * -errno (-EMFILE: too many probes out for the open-file limit). */
int synsock_reserve(const struct sk *s, int *fd, uint16_t *port);

#endif
