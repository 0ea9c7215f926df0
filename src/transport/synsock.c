// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --syn's raw socket (synsock.h).
 */
#include <errno.h>
#include <linux/filter.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "skpeer.h"
#include "synsock.h"

struct syn_state {
	struct sockaddr_storage local;	/* port 0 */
	socklen_t local_len;
	uint8_t addr[16];
};

/*
 * Only segments from the server's port reach the socket (a raw TCP
 * socket is handed a copy of every TCP segment the host receives). An
 * IPv4 raw socket reads from the IP header, an IPv6 one from the TCP
 * header.
 */
/* Only TCP segments whose port at off (0: source, 2: destination) is
 * port reach fd. */
static int filter_at(int fd, int family, uint16_t port, uint32_t off)
{
	struct sock_filter v4[] = {
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),		/* x = the IP header's length */
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, off),	/* the port */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter v6[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, off),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {
		.len = family == AF_INET6 ? 4 : 5,
		.filter = family == AF_INET6 ? v6 : v4,
	};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ? -errno : 0;
}

int synsock_filter(int fd, int family, uint16_t port)
{
	return filter_at(fd, family, port, 0);
}

int synsock_fleet_open(struct sk *s, const struct rant_cfg *cfg, int family, int rcvbuf,
		       int *hold, uint16_t *port, char *err, size_t len)
{
	struct sockaddr_storage any = { .ss_family = (sa_family_t)family };
	int ret;

	memset(s, 0, sizeof(*s));
	s->family = family;
	s->ifindex = if_nametoindex(cfg->iface);
	*hold = -1;
	s->fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s->fd < 0) {
		ret = -errno;
		snprintf(err, len, "syn targets: a raw TCP socket: %s%s", strerror(-ret),
			 ret == -EPERM ? " (it needs CAP_NET_RAW: run as root)" : "");
		return ret;
	}
	ret = sk_configure(s, cfg, err, len);
	/* the ICMP errors that return a SYN onto the error queue (the
	 * kernel's raw_err queues every TCP segment's of this host) */
	if (!ret && (ret = sk_sockopt_int(s->fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
					  family == AF_INET6 ? IPV6_RECVERR : IP_RECVERR, 1)))
		snprintf(err, len, "setsockopt IP%s_RECVERR on the raw socket: %s",
			 family == AF_INET6 ? "V6" : "", strerror(-ret));
	if (!ret && sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf))
		sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	if (!ret && (ret = synsock_hold(&any, family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					sizeof(struct sockaddr_in), SOCK_STREAM, hold, port)))
		snprintf(err, len, "syn targets: a TCP port to send from: %s", strerror(-ret));
	if (!ret && (ret = filter_at(s->fd, family, *port, 2)))
		snprintf(err, len, "SO_ATTACH_FILTER on the raw socket: %s", strerror(-ret));
	if (ret) {
		if (*hold >= 0)
			close(*hold);
		*hold = -1;
		sk_close(s);
	}
	return ret;
}

int synsock_local_addr(const struct sockaddr_storage *peer, socklen_t peer_len, const char *iface,
		       struct sockaddr_storage *local, socklen_t *local_len)
{
	int fd = socket(peer->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	*local_len = sizeof(*local);
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, iface, (socklen_t)strlen(iface) + 1) ||
	    connect(fd, (const struct sockaddr *)peer, peer_len) ||
	    getsockname(fd, (struct sockaddr *)local, local_len))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	sk_set_port(local, 0);
	return 0;
}

static int syn_local(struct sk *s, struct syn_state *st, const char *iface)
{
	int ret = synsock_local_addr(&s->peer, s->peer_len, iface, &st->local, &st->local_len);

	if (ret)
		return ret;
	if (s->family == AF_INET6)
		memcpy(st->addr, &((struct sockaddr_in6 *)&st->local)->sin6_addr, 16);
	else
		memcpy(st->addr, &((struct sockaddr_in *)&st->local)->sin_addr, 4);
	return 0;
}

/* The peer's address without its port: a raw socket's port is its
 * protocol (0: the socket's). */
static struct sockaddr_storage peer0(const struct sk *s)
{
	struct sockaddr_storage to = s->peer;

	sk_set_port(&to, 0);
	return to;
}

static int syn_socket(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	struct sockaddr_storage to;
	int ret;

	s->fd = socket(s->family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s->fd < 0) {
		ret = -errno;
		if (ret == -EPERM)
			snprintf(err, len, "--syn sends its SYNs on a raw socket, which needs CAP_NET_RAW: run as root (or setcap cap_net_raw,cap_net_admin,cap_ipc_lock+ep rant)");
		else
			snprintf(err, len, "raw TCP socket: %s", strerror(-ret));
		return ret;
	}
	ret = sk_configure(s, cfg, err, len);
	if (ret)
		return ret;
	ret = synsock_filter(s->fd, s->family, cfg->port);
	if (ret) {
		snprintf(err, len, "SO_ATTACH_FILTER on the raw socket: %s", strerror(-ret));
		return ret;
	}
	/* Connected, a raw socket hears only its peer's segments. */
	to = peer0(s);
	if (connect(s->fd, (const struct sockaddr *)&to, s->peer_len)) {
		ret = -errno;
		snprintf(err, len, "connect the raw socket to %s: %s", cfg->addr, strerror(-ret));
	}
	return ret;
}

static int syn_open(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	struct syn_state *st;
	int ret = sk_init(s, cfg, err, len);

	if (ret)
		return ret;
	/* a socket holds each probe's port while it is out */
	ret = conn_fd_limit(cfg->open_loop ? (uint64_t)(cfg->timeout_ns / cfg->interval_ns) + 2 : 1,
			    "--open-loop's probes in flight, each holding its port's socket",
			    "raise --interval or lower --timeout", err, len);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, len, "cannot allocate the --syn socket's state");
		return -ENOMEM;
	}
	s->priv = st;
	ret = syn_local(s, st, cfg->iface);
	if (ret) {
		snprintf(err, len, "no local address to reach %s from on %s: %s", cfg->addr,
			 cfg->iface, strerror(-ret));
		return ret;
	}
	return syn_socket(s, cfg, err, len);
}

static void syn_close(struct sk *s)
{
	sk_close(s);
	free(s->priv);
	s->priv = NULL;
}

/* One segment built by the caller, to the peer. */
static int syn_send(struct sk *s, const void *buf, size_t len, const struct sk_msg *reply,
		    uint32_t *key)
{
	(void)reply;
	if (send(s->fd, buf, len, MSG_DONTWAIT) < 0)
		return -errno;
	*key = s->tx_key++;
	return 0;
}

static int syn_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m, bool sw,
		    bool block)
{
	return sk_recv(s, buf, len, m, sw, block);
}

const uint8_t *synsock_local(const struct sk *s)
{
	return ((const struct syn_state *)s->priv)->addr;
}

int synsock_hold(const struct sockaddr_storage *local, socklen_t local_len, int type, int *fd,
		 uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int ret;

	*fd = socket(local->ss_family, type | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (bind(*fd, (const struct sockaddr *)local, local_len) ||
	    getsockname(*fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		close(*fd);
		*fd = -1;
		return ret;
	}
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

int synsock_reserve(const struct sk *s, int *fd, uint16_t *port)
{
	const struct syn_state *st = s->priv;

	return synsock_hold(&st->local, st->local_len, SOCK_STREAM, fd, port);
}

const struct transport transport_syn = {
	.name = "tcp",
	.caps = { .stream = true, .max_len = 1500 },
	.open = syn_open,
	.close = syn_close,
	.send = syn_send,
	.recv = syn_recv,
};
