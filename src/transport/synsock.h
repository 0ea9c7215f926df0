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
#include <sys/socket.h>

#include "transport.h"

/* The local address the SYNs leave from (4 or 16 bytes, network order,
 * as the socket's family says). */
const uint8_t *synsock_local(const struct sk *s);

/* A source port of its own for one probe: 0 with the socket that holds
 * it in *fd (close it when the probe is done) and the port in *port, or
 * -errno (-EMFILE: too many probes out for the open-file limit). */
int synsock_reserve(const struct sk *s, int *fd, uint16_t *port);

/*
 * A fleet's raw socket for its syn targets (fleetset.h): family's,
 * unconnected, bound to -i, SO_TIMESTAMPING, a receive buffer of rcvbuf
 * bytes asked; one source port for every target's SYNs, held by the TCP
 * socket *hold (bound, neither listening nor connected: the kernel
 * answers each SYN-ACK with an RST), *port, and only the segments to
 * that port let in (a socket filter); with IP_RECVERR, the ICMP errors
 * that return a TCP segment of this host's on its error queue (the
 * filter does not see them: the reader keeps those of the port). 0, or
 * -errno with one line in err.
 */
int synsock_fleet_open(struct sk *s, const struct rant_cfg *cfg, int family, int rcvbuf,
		       int *hold, uint16_t *port, char *err, size_t len);

/* The steps above for another raw socket (trace's, hopsock.h). */

/* Only TCP segments from port reach raw socket fd (family AF_INET or
 * AF_INET6): 0 or -errno. */
int synsock_filter(int fd, int family, uint16_t port);

/* The address this host reaches peer from through iface (a UDP socket
 * connected there tells it), its port 0: 0 or -errno. */
int synsock_local_addr(const struct sockaddr_storage *peer, socklen_t peer_len, const char *iface,
		       struct sockaddr_storage *local, socklen_t *local_len);

/* A socket of type (SOCK_STREAM for SYNs, SOCK_DGRAM for UDP) bound to
 * local (its port: 0 for any) that holds the port for a raw socket's
 * probes: 0 with *fd and *port, or -errno. */
int synsock_hold(const struct sockaddr_storage *local, socklen_t local_len, int type, int *fd,
		 uint16_t *port);

#endif
