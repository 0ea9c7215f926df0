/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's sockets (--targets, --paths): unconnected UDP sockets on -i,
 * each from a source port of its own (the kernel's ephemeral ones), so
 * that the flows of one target hash onto its ECMP paths as any traffic
 * of those ports would; SO_TIMESTAMPING as every measuring socket
 * (sock.h), a receive buffer sized by the caller for the pongs and TX
 * stamp reports of thousands of targets. Several sockets may share a
 * port (SO_REUSEPORT): the kernel hands each datagram to one of them by
 * a hash of its addresses and ports, so the pongs of many targets spread
 * over their queues; each socket's sends, and so its TX stamps and
 * their OPT_ID keys, stay its own. A ping goes to its target with
 * sendto(), with its TOS (DSCP) in a control message where it differs
 * from the socket's, and with --flow-label its path's IPv6 flow label
 * (one socket, the labels leased from the kernel). The pongs of every
 * target come back to the port their ping left from (to any socket of
 * it), and are told apart by their source (fleettab.h).
 */
#ifndef RANT_PATHSK_H
#define RANT_PATHSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cfg.h"
#include "sock.h"

/*
 * What a queued datagram takes of a receive buffer beyond its payload:
 * its skb (832 bytes for a 72-byte pong over veth, 760 beyond it), and a
 * TX stamp report on the error queue, which counts against the same
 * buffer (OPT_TSONLY: no payload).
 */
#define PATHSK_DGRAM_BYTES 768
#define PATHSK_STAMP_BYTES 768

/*
 * Open s: family (AF_INET, or AF_INET6 for IPv6 targets and IPv4 ones
 * mapped), bound to -i and to *port (0: an ephemeral one, *port set),
 * timestamping on, its pings' TOS the run's (--dscp, sk_configure()),
 * a receive buffer of rcvbuf bytes asked (SO_RCVBUFFORCE, else
 * SO_RCVBUF, which net.core.rmem_max caps: pathsk_rcvbuf() says what the
 * kernel set). With share, the port is shared (SO_REUSEPORT): an
 * ephemeral one is chosen first as for any socket (never a port another
 * program's group holds), then opened to the others of the group, which
 * bind to it. 0, or -errno with one line (problem and fix) in err.
 */
int pathsk_open(struct sk *s, const struct rant_cfg *cfg, int family, bool share,
		uint16_t *port, int rcvbuf, char *err, size_t len);

/* The receive buffer s has, in the bytes that pathsk_open() asked for
 * (the kernel doubles the request for its own bookkeeping); 0: unknown. */
int pathsk_rcvbuf(const struct sk *s);

/*
 * --flow-label on s (an IPv6 socket): lease n labels for its pings, from
 * a random one up, into label[]. The kernel leases a label for an
 * address (dst: an IPv6 target's; NULL: none, refused) and checks only
 * the label at each send. 0, or -errno with one line in err.
 */
int pathsk_labels(struct sk *s, const struct in6_addr *dst, uint32_t *label, unsigned int n,
		  char *err, size_t len);

/*
 * Send len bytes at buf to to (tolen) without blocking: with the TOS
 * octet tos unless it is the socket's (sock_tos), with flow label label
 * (IPv6; 0: none). 0 with *key, the OPT_ID of its TX stamp; or -errno
 * (the send refused: no key taken).
 */
int pathsk_send(struct sk *s, const void *buf, size_t len, const struct sockaddr_storage *to,
		socklen_t tolen, int tos, int sock_tos, uint32_t label, uint32_t *key);

#endif
