// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's sockets (see pathsk.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "pathsk.h"

/* <linux/in6.h>'s flow label lease, which <netinet/in.h> lacks (the two
 * headers clash). */
#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif
struct flowlabel_req {
	struct in6_addr flr_dst;
	uint32_t flr_label;		/* network order */
	uint8_t flr_action, flr_share;
	uint16_t flr_flags, flr_expires, flr_linger;
	uint32_t flr_pad;
};
#define FL_A_GET 0
#define FL_F_CREATE 1
#define FL_S_ANY 255

/*
 * Bind s to *port (0: an ephemeral one). A shared port: SO_REUSEPORT
 * set before the bind to a given port (joining the group), after the
 * bind to an ephemeral one (the kernel's choice of a free port counts a
 * port another program's group holds as free for a socket that asks
 * for SO_REUSEPORT before it binds).
 */
static int bind_port(struct sk *s, bool share, uint16_t *port, char *err, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sk_any_addr(s->fd, s->family, *port, &ss);
	int ret = 0;

	if (share && *port)
		ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_REUSEPORT, 1);
	if (!ret && (bind(s->fd, (struct sockaddr *)&ss, sl) ||
		     getsockname(s->fd, (struct sockaddr *)&ss, &sl)))
		ret = -errno;
	if (!ret && share && !*port)
		ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_REUSEPORT, 1);
	if (ret) {
		if (*port)
			snprintf(err, len, "bind a fleet socket to UDP port %u beside the others (SO_REUSEPORT): %s",
				 *port, strerror(-ret));
		else
			snprintf(err, len, "bind a fleet socket to an ephemeral UDP port: %s (sysctl net.ipv4.ip_local_port_range)",
				 strerror(-ret));
		return ret;
	}
	*port = ntohs(s->family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

int pathsk_rcvbuf(const struct sk *s)
{
	int v = 0;
	socklen_t vl = sizeof(v);

	if (getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &v, &vl))
		return 0;
	return v / 2;
}

int pathsk_open(struct sk *s, const struct rant_cfg *cfg, int family, bool share,
		uint16_t *port, int rcvbuf, char *err, size_t len)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->family = family;
	s->ifindex = if_nametoindex(cfg->iface);
	if (!s->ifindex) {
		snprintf(err, len, "%s: no such interface (ip link lists them; in a namespace, run rant under ip netns exec)",
			 cfg->iface);
		return -ENODEV;
	}
	ret = sk_socket(s, cfg, SOCK_DGRAM, err, len);
	if (!ret)
		ret = sk_configure(s, cfg, err, len);
	if (!ret && sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf))
		sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	if (!ret)
		ret = bind_port(s, share, port, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

int pathsk_labels(struct sk *s, const struct in6_addr *dst, uint32_t *label, unsigned int n,
		  char *err, size_t len)
{
	uint32_t first;
	int ret;

	if (s->family != AF_INET6 || !dst) {
		snprintf(err, len, "--flow-label: the targets are IPv4, which has no flow label: drop it (the paths differ by source port)");
		return -EINVAL;
	}
	if (getrandom(&first, sizeof(first), 0) != sizeof(first))
		first = 0x12345;
	ret = sk_sockopt_int(s->fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, 1);
	for (unsigned int i = 0; !ret && i < n; i++) {
		struct flowlabel_req r = {
			.flr_action = FL_A_GET, .flr_share = FL_S_ANY, .flr_flags = FL_F_CREATE,
		};

		label[i] = ((first & 0xfff00) + i + 1) & 0xfffff;
		r.flr_label = htonl(label[i]);
		r.flr_dst = *dst;	/* the kernel leases a label for an address */
		if (setsockopt(s->fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &r, sizeof(r)))
			ret = -errno;
	}
	if (ret)
		snprintf(err, len, "--flow-label: leasing %u IPv6 flow labels: %s", n, strerror(-ret));
	return ret;
}

int pathsk_send(struct sk *s, const void *buf, size_t len, const struct sockaddr_storage *to,
		socklen_t tolen, int tos, int sock_tos, uint32_t label, uint32_t *key)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_in6 lab;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_name = (void *)to, .msg_namelen = tolen,
			      .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (label && to->ss_family == AF_INET6) {
		lab = *(const struct sockaddr_in6 *)to;
		lab.sin6_flowinfo = htonl(label);
		msg.msg_name = &lab;
	}
	if (tos != sock_tos) {
		struct cmsghdr *c = (struct cmsghdr *)ctl.b;
		bool v4 = to->ss_family == AF_INET ||
			  IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)to)->sin6_addr);

		msg.msg_control = ctl.b;
		msg.msg_controllen = sizeof(ctl.b);
		c->cmsg_level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = v4 ? IP_TOS : IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &tos, sizeof(tos));
	}
	if (!msg.msg_control && msg.msg_name == to)
		n = sendto(s->fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *)to, tolen);
	else
		n = sendmsg(s->fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return -errno;	/* a refused send takes no key (as 6.18 does) */
	*key = s->tx_key++;	/* OPT_ID counts the datagrams sent */
	return n == (ssize_t)len ? 0 : -EMSGSIZE;
}
