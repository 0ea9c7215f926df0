// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --icmp's ping socket (icmpsock.h).
 */
#include <errno.h>
#include <time.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "icmpsock.h"
#include "icmpwire.h"
#include "timeutil.h"
#include "ts.h"

static int icmp_socket(struct sk *s, char *err, size_t len)
{
	bool v6 = s->family == AF_INET6;
	int ret;

	s->fd = socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	if (s->fd >= 0)
		return 0;
	ret = -errno;
	if (ret == -EACCES)
		snprintf(err, len, "a ping socket (--icmp) is for the groups in net.ipv4.ping_group_range, and this user's are not: sysctl -w net.ipv4.ping_group_range='0 2147483647' (in this network namespace)");
	else if (ret == -EPROTONOSUPPORT || ret == -ESOCKTNOSUPPORT)
		snprintf(err, len, "this kernel has no ping sockets (CONFIG_INET, 3.0 or later for IPv4, 3.11 for IPv6)");
	else
		snprintf(err, len, "socket(SOCK_DGRAM, IPPROTO_ICMP%s): %s", v6 ? "V6" : "",
			 strerror(-ret));
	return ret;
}

/* IP_RECVERR (IPV6_RECVERR): the ICMP errors that answer the socket's
 * requests onto its error queue. */
static int icmp_recverr(struct sk *s, char *err, size_t len)
{
	bool v6 = s->family == AF_INET6;
	int ret = sk_sockopt_int(s->fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
				 v6 ? IPV6_RECVERR : IP_RECVERR, 1);

	if (!ret)
		return 0;
	snprintf(err, len, "setsockopt IP%s_RECVERR on the ping socket: %s", v6 ? "V6" : "",
		 strerror(-ret));
	return ret;
}

int icmpsock_fleet_open(struct sk *s, const struct rant_cfg *cfg, int family, int rcvbuf,
			char *err, size_t len)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->family = family;
	s->ifindex = if_nametoindex(cfg->iface);
	ret = icmp_socket(s, err, len);
	if (!ret)
		ret = sk_configure(s, cfg, err, len);
	if (!ret)
		ret = icmp_recverr(s, err, len);
	if (!ret && sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf))
		sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	if (ret)
		sk_close(s);
	return ret;
}

static int icmp_open(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret = sk_init(s, cfg, err, len);

	if (ret)
		return ret;
	ret = icmp_socket(s, err, len);
	if (!ret)
		ret = sk_configure(s, cfg, err, len);
	if (ret)
		goto fail;
	ret = icmp_recverr(s, err, len);
	if (ret)
		goto fail;
	/* the port means nothing to ICMP: the kernel ignores it */
	if (connect(s->fd, (const struct sockaddr *)&s->peer, s->peer_len)) {
		ret = -errno;
		snprintf(err, len, "connect the ping socket to %s: %s", cfg->addr, strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	sk_close(s);
	return ret;
}

/* One echo request, its header built by the caller. */
static int icmp_send(struct sk *s, const void *buf, size_t len, const struct sk_msg *reply,
		     uint32_t *key)
{
	(void)reply;
	if (send(s->fd, buf, len, MSG_DONTWAIT) < 0)
		return -errno;
	*key = s->tx_key++;	/* OPT_ID counts the datagrams */
	return 0;
}

/* An ICMP error's entry: the extended error (ts.h) and the returned
 * header. */
static int icmp_error(const struct msghdr *msg, const uint8_t *buf, size_t n,
		      struct icmpsock_event *ev)
{
	struct ts_icmp e;

	if (ts_parse_icmp(msg, &e) ||
	    !icmpwire_seq(buf, n, e.v6 ? ICMPWIRE6_ECHO : ICMPWIRE_ECHO, &ev->seq))
		return -ENOMSG;
	ev->is_error = true;
	ev->type = e.type;
	ev->code = e.code;
	ev->rx = e.rx;
	return 0;
}

int icmpsock_errq(struct sk *s, struct icmpsock_event *ev)
{
	char control[SK_CMSG_BUF];
	uint8_t buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(s->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);

	if (n < 0)
		return -EAGAIN;
	memset(ev, 0, sizeof(*ev));
	if (!ts_parse_tx(&msg, &ev->tx))
		return 0;
	return icmp_error(&msg, buf, (size_t)n, ev);
}

const struct transport transport_icmp = {
	.name = "icmp",
	.caps = { .stream = false, .max_len = 65507 },
	.open = icmp_open,
	.close = sk_close,
	.send = icmp_send,
	.recv = sk_recv,
};
