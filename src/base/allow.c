// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflector's --allow list (see allow.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allow.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* The prefix length after the '/': digits only, at most max. */
static int parse_len(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* Whether bits past p->len of p->addr are all zero. */
static bool host_bits_clear(const struct allow_prefix *p)
{
	unsigned int bytes = p->family == AF_INET ? 4 : 16;

	for (unsigned int bit = p->len; bit < bytes * 8; bit++)
		if (p->addr[bit / 8] & (0x80 >> (bit % 8)))
			return false;
	return true;
}

/* The network of p: bits past p->len cleared. */
static void clear_host_bits(struct allow_prefix *p)
{
	unsigned int bytes = p->family == AF_INET ? 4 : 16;

	for (unsigned int bit = p->len; bit < bytes * 8; bit++)
		p->addr[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
}

/* ::ffff:a.b.c.d/96+N is the IPv4 prefix a.b.c.d/N. */
static void unmap_v4(struct allow_prefix *p)
{
	if (p->family != AF_INET6 || p->len < 96 || memcmp(p->addr, v4mapped, 12))
		return;
	memmove(p->addr, p->addr + 12, 4);
	memset(p->addr + 4, 0, 12);
	p->family = AF_INET;
	p->len -= 96;
}

int allow_parse(const char *s, struct allow_prefix *p, char *msg, size_t len)
{
	char addr[INET6_ADDRSTRLEN + 1], net[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int max;

	memset(p, 0, sizeof(*p));
	if (alen >= sizeof(addr))
		goto bad_addr;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, p->addr) == 1)
		p->family = AF_INET6;
	else
		goto bad_addr;
	max = p->family == AF_INET ? 32 : 128;
	p->len = max;
	if (slash && parse_len(slash + 1, max, &p->len)) {
		snprintf(msg, len, "'%s': the prefix length '%s' is not a number from 0 to %u: give ADDR/LEN, e.g. %s",
			 s, slash + 1, max, p->family == AF_INET ? "10.1.0.0/16" : "fd00::/64");
		return -1;
	}
	if (!host_bits_clear(p)) {
		clear_host_bits(p);
		allow_str(p, net, sizeof(net));
		snprintf(msg, len, "'%s' has bits set past its /%u: give the network, %s (or %s alone for that one address)",
			 s, p->len, net, addr);
		return -1;
	}
	unmap_v4(p);
	return 0;
bad_addr:
	snprintf(msg, len, "'%s' is not an IPv4 or IPv6 address or prefix: give ADDR or ADDR/LEN, e.g. 10.1.0.0/16, fd00::/64 or 10.1.2.3",
		 s);
	return -1;
}

int allow_add(struct allow_list *l, const char *s, char *msg, size_t len)
{
	if (l->n >= ALLOW_MAX) {
		snprintf(msg, len, "more than %d prefixes: join them into shorter prefixes (e.g. 10.1.0.0/16 for 10.1.x.y)",
			 ALLOW_MAX);
		return -1;
	}
	if (allow_parse(s, &l->p[l->n], msg, len))
		return -1;
	l->n++;
	return 0;
}

/* The first len bits of a and b are equal. */
static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int bytes = len / 8, rest = len % 8;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	if (memcmp(a, b, bytes))
		return false;
	return !rest || !((a[bytes] ^ b[bytes]) & mask);
}

bool allow_match(const struct allow_list *l, const struct sockaddr *sa)
{
	const uint8_t *a;
	int family;

	if (!l->n)
		return true;
	if (sa->sa_family == AF_INET) {
		family = AF_INET;
		a = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		family = AF_INET6;
		if (!memcmp(a, v4mapped, sizeof(v4mapped))) {
			family = AF_INET;
			a += sizeof(v4mapped);
		}
	} else {
		return false;
	}
	for (unsigned int i = 0; i < l->n; i++)
		if (l->p[i].family == family && prefix_eq(l->p[i].addr, a, l->p[i].len))
			return true;
	return false;
}

void allow_str(const struct allow_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(p->family, p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
}
