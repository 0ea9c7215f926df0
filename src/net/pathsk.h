/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's sockets (--targets, --paths): unconnected UDP sockets on -i,
 * each from a source port of its own (the kernel's ephemeral ones), so
 * that the flows of one target hash onto its ECMP paths as any traffic
 * of those ports would; SO_TIMESTAMPING as every measuring socket
 * (sock.h), a receive buffer room for the pongs and TX stamp reports of
 * thousands of targets. A ping goes to its target with sendto(), with
 * its TOS (DSCP) in a control message where it differs from the
 * socket's, and with --flow-label its path's IPv6 flow label (one
 * socket, the labels leased from the kernel). The pongs of every
 * target come back on the socket their ping left by, and are told apart
 * by their source (fleettab.h).
 */
#ifndef RANT_PATHSK_H
#define RANT_PATHSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cfg.h"
#include "sock.h"

/* A fleet socket's receive buffer (its error queue's TX stamps too). */
#define PATHSK_RCVBUF (8 * 1024 * 1024)

/*
 * Open s: family (AF_INET, or AF_INET6 for IPv6 targets and IPv4 ones
 * mapped), bound to -i and to an ephemeral port (*port), timestamping
 * on, its pings' TOS the run's (--dscp, sk_configure()). 0, or -errno
 * with one line (problem and fix) in err.
 */
int pathsk_open(struct sk *s, const struct rant_cfg *cfg, int family, uint16_t *port,
		char *err, size_t len);

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
 * (IPv6; 0: none). 0 with *key, the OPT_ID of its TX stamp; or -errno.
 */
int pathsk_send(struct sk *s, const void *buf, size_t len, const struct sockaddr_storage *to,
		socklen_t tolen, int tos, int sock_tos, uint32_t label, uint32_t *key);

#endif
