/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An address as the user gives it (-a, a --targets line): parsed (IPv4,
 * IPv6 maybe bracketed, link-local maybe scoped to -i), unicast, and
 * routed out of the interface (RTM_GETROUTE through libnl).
 */
#ifndef RANT_SKPEER_H
#define RANT_SKPEER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* ss's port (host order), by its family; 0 for a raw or ping socket's
 * address, whose port is its protocol's, or which the kernel names none. */
static inline void sk_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/*
 * A reflector's address as the user gave it (text) with port into *ss:
 * unicast, and routed out of ifindex (iface). 0, or -errno with one line
 * (problem and fix) in err. sk_init()'s check of -a; the fleet's of
 * each target.
 */
int sk_peer_resolve(const char *text, uint16_t port, unsigned int ifindex, const char *iface,
		    struct sockaddr_storage *ss, socklen_t *sl, char *err, size_t len);

#endif
