// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The path's SYNs (pathsyn.h).
 */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "pathsyn.h"
#include "skpeer.h"
#include "tcpwire.h"

#define MSS4 1460
#define MSS6 1440

struct pathsyn {
	int raw;			/* the raw TCP socket the SYNs leave on */
	int held[PATHSYN_PORTS];	/* the ports of the last SYNs, a ring */
	unsigned int next;
	struct sockaddr_storage local, peer;	/* local's port 0, peer's too */
	int family;			/* 4 or 6 */
	uint16_t dport;
	uint32_t isn;
	int64_t last_ns;
	uint64_t sent;
};

static const uint8_t *addr_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ?
		(const uint8_t *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
		(const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port :
		     ((const struct sockaddr_in *)ss)->sin_port);
}


static socklen_t ss_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* A raw socket that reads nothing, bound to iface, connected to peer. */
static int raw_open(struct pathsyn *p, const char *iface, char *err, size_t len)
{
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { .len = 1, .filter = none };

	p->raw = socket(p->peer.ss_family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_TCP);
	if (p->raw < 0) {
		snprintf(err, len, "the path's SYNs: raw TCP socket: %s (needs CAP_NET_RAW)",
			 strerror(errno));
		return -errno;
	}
	if (setsockopt(p->raw, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(p->raw, SOL_SOCKET, SO_BINDTODEVICE, iface, (socklen_t)strlen(iface) + 1) ||
	    connect(p->raw, (const struct sockaddr *)&p->peer, ss_len(&p->peer))) {
		snprintf(err, len, "the path's SYNs: raw socket on %s: %s", iface, strerror(errno));
		return -errno;
	}
	return 0;
}

struct pathsyn *pathsyn_open(const struct sockaddr_storage *local,
			     const struct sockaddr_storage *peer, const char *iface, char *err,
			     size_t len)
{
	struct pathsyn *p = calloc(1, sizeof(*p));
	int ret;

	if (!p) {
		snprintf(err, len, "the path's SYNs: no memory");
		return NULL;
	}
	for (unsigned int i = 0; i < PATHSYN_PORTS; i++)
		p->held[i] = -1;
	p->local = *local;
	p->peer = *peer;
	p->dport = port_of(peer);
	sk_set_port(&p->local, 0);
	sk_set_port(&p->peer, 0);
	p->family = peer->ss_family == AF_INET6 ? 6 : 4;
	if (getrandom(&p->isn, sizeof(p->isn), 0) != sizeof(p->isn))
		p->isn = (uint32_t)(uintptr_t)p;
	ret = raw_open(p, iface, err, len);
	if (ret) {
		pathsyn_close(p);
		errno = -ret;
		return NULL;
	}
	return p;
}

/* A port of its own (a bound socket holds it, in the ring's next place:
 * the oldest SYN's port let go). */
static int hold_port(struct pathsyn *p, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int *fd = &p->held[p->next];

	if (*fd >= 0)
		close(*fd);
	*fd = socket(p->local.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (bind(*fd, (const struct sockaddr *)&p->local, ss_len(&p->local)) ||
	    getsockname(*fd, (struct sockaddr *)&ss, &sl)) {
		close(*fd);
		*fd = -1;
		return -errno;
	}
	p->next = (p->next + 1) % PATHSYN_PORTS;
	*port = port_of(&ss);
	return 0;
}

void pathsyn_tick(struct pathsyn *p, int64_t now_ns)
{
	uint8_t pkt[TCPWIRE_SYN_LEN];
	uint16_t port = 0;

	if (!p || now_ns - p->last_ns < PATHSYN_EVERY_NS)
		return;
	p->last_ns = now_ns;
	if (hold_port(p, &port))
		return;
	p->isn += 0x9e3779b9u;
	tcpwire_syn(pkt, p->family, addr_of(&p->local), addr_of(&p->peer), port, p->dport,
		    p->isn, p->family == 6 ? MSS6 : MSS4, (uint32_t)(now_ns / 1000000));
	if (send(p->raw, pkt, sizeof(pkt), MSG_DONTWAIT) == (ssize_t)sizeof(pkt))
		p->sent++;
}

void pathsyn_close(struct pathsyn *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < PATHSYN_PORTS; i++)
		if (p->held[i] >= 0)
			close(p->held[i]);
	if (p->raw >= 0)
		close(p->raw);
	free(p);
}
