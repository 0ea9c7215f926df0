/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector's --allow list: the address prefixes whose pings it
 * answers (an empty list: every address). An IPv4 prefix also matches
 * the IPv4-mapped IPv6 form of its addresses (what a dual-stack socket
 * reports for an IPv4 sender), and an IPv4-mapped IPv6 prefix
 * (::ffff:10.0.0.0/104) is taken as the IPv4 prefix it maps. Matching
 * compares at most 16 bytes per prefix and allocates nothing: it runs
 * in the packet loop, before any parsing.
 */
#ifndef RANT_ALLOW_H
#define RANT_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define ALLOW_MAX 32		/* --allow given at most this often */

struct allow_prefix {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* network byte order; 4 bytes used for AF_INET */
	unsigned int len;	/* prefix length, bits */
};

struct allow_list {
	struct allow_prefix p[ALLOW_MAX];
	unsigned int n;		/* 0: no --allow, every address may talk */
};

/*
 * Parse "ADDR/LEN" or a bare "ADDR" (/32, /128) into p. 0, or -1 with one
 * sentence for the user (what is wrong and how to write it) in msg.
 * Host bits set past the length are refused (10.1.2.3/16: give
 * 10.1.0.0/16), as ip-route does.
 */
int allow_parse(const char *s, struct allow_prefix *p, char *msg, size_t len);

/* Add s to l (allow_parse, then the ALLOW_MAX bound); 0 or -1 with msg. */
int allow_add(struct allow_list *l, const char *s, char *msg, size_t len);

/* Whether the sender sa may talk: always with an empty list. */
bool allow_match(const struct allow_list *l, const struct sockaddr *sa);

/* Prefix p as text: "10.1.0.0/16", "fd00::/64". */
void allow_str(const struct allow_prefix *p, char *buf, size_t len);

#endif
