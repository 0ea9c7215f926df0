// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace's sockets (hopsock.h).
 */
#include <errno.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "hopsock.h"
#include "skpeer.h"
#include "sock.h"
#include "synsock.h"
#include "timeutil.h"

static const char *const proto_names[] = { "tcp", "udp", "icmp" };

int hopsock_proto_parse(const char *name, enum hopsock_proto *p)
{
	for (size_t i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (!strcmp(name, proto_names[i])) {
			*p = (enum hopsock_proto)i;
			return 0;
		}
	return -EINVAL;
}

const char *hopsock_proto_name(enum hopsock_proto p)
{
	return proto_names[p];
}

static int bind_dev(int fd, const char *iface)
{
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, iface,
			  (socklen_t)strlen(iface) + 1) ? -errno : 0;
}

/* A raw socket of protocol proto through iface, stamped. */
static int raw_socket(struct hopsock *h, int proto, const char *iface, int *fd, char *err,
		      size_t len)
{
	int ret;

	*fd = socket(h->family, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (*fd < 0) {
		ret = -errno;
		if (ret == -EPERM)
			snprintf(err, len, "trace sends and reads raw packets, which needs CAP_NET_RAW: run as root (or setcap cap_net_raw,cap_net_admin+ep rant)");
		else
			snprintf(err, len, "raw socket (protocol %d): %s", proto, strerror(-ret));
		return ret;
	}
	ret = bind_dev(*fd, iface);
	if (ret) {
		snprintf(err, len, "setsockopt SO_BINDTODEVICE %s: %s", iface, strerror(-ret));
		return ret;
	}
	ret = ts_sock_enable(*fd, h->hw, false);
	if (ret)
		snprintf(err, len, "setsockopt SO_TIMESTAMPING on the raw socket: %s", strerror(-ret));
	return ret;
}

/* The probes' socket: tcp and udp connected to the destination (a raw
 * socket's port is its protocol: 0), tcp filtered to its port. */
static int tx_socket(struct hopsock *h, const char *iface, char *err, size_t len)
{
	int proto = h->proto == HOPSOCK_TCP ? IPPROTO_TCP : IPPROTO_UDP, ret;

	if (h->proto == HOPSOCK_ICMP) {
		h->tx = h->icmp;
		return 0;
	}
	ret = raw_socket(h, proto, iface, &h->tx, err, len);
	if (ret)
		return ret;
	if (h->proto == HOPSOCK_TCP) {
		ret = synsock_filter(h->tx, h->family, h->port);
		if (ret) {
			snprintf(err, len, "SO_ATTACH_FILTER on the raw TCP socket: %s", strerror(-ret));
			return ret;
		}
	} else {	/* the UDP answers are ICMP: the raw UDP socket reads none */
		struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
		struct sock_fprog prog = { .len = 1, .filter = &none };

		if (setsockopt(h->tx, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog))) {
			ret = -errno;
			snprintf(err, len, "SO_ATTACH_FILTER on the raw UDP socket: %s", strerror(-ret));
			return ret;
		}
	}
	if (connect(h->tx, (const struct sockaddr *)&h->peer, h->peer_len)) {
		ret = -errno;
		snprintf(err, len, "connect the raw socket to the destination: %s", strerror(-ret));
	}
	return ret;
}

static void addr_bytes(const struct sockaddr_storage *ss, uint8_t out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET6)
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	else
		memcpy(out, &((const struct sockaddr_in *)ss)->sin_addr, 4);
}

/* Where the stamps come from: the NIC's where it has them (hwts.h). */
static int stamps(struct hopsock *h, const char *iface, bool no_hw, char *err, size_t len)
{
	int fd = socket(h->family, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "socket: %s", strerror(-ret));
		return ret;
	}
	ret = hwts_setup(fd, iface, no_hw, false, &h->hwts, h->hw_note, sizeof(h->hw_note), err,
			 len);
	close(fd);
	h->hw = !ret && h->hwts.hw;
	return ret;
}

static int resolve(struct hopsock *h, const char *iface, const char *addr, char *err, size_t len)
{
	unsigned int ifindex = if_nametoindex(iface);
	int ret;

	if (!ifindex) {
		snprintf(err, len, "%s: no such interface (ip link lists them; in a namespace, run rant under ip netns exec)",
			 iface);
		return -ENODEV;
	}
	ret = sk_peer_resolve(addr, 0, ifindex, iface, &h->peer, &h->peer_len, err, len);
	if (ret)
		return ret;
	h->family = h->peer.ss_family;
	ret = synsock_local_addr(&h->peer, h->peer_len, iface, &h->local, &h->local_len);
	if (ret) {
		snprintf(err, len, "no local address to reach %s from on %s: %s", addr, iface,
			 strerror(-ret));
		return ret;
	}
	addr_bytes(&h->peer, h->dst);
	addr_bytes(&h->local, h->src);
	return 0;
}

int hopsock_open(struct hopsock *h, const char *iface, const char *addr, enum hopsock_proto proto,
		 uint16_t port, bool no_hw, char *err, size_t len)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->tx = h->icmp = -1;
	h->proto = proto;
	h->port = port;
	ret = resolve(h, iface, addr, err, len);
	if (!ret)
		ret = stamps(h, iface, no_hw, err, len);
	if (!ret)
		ret = raw_socket(h, h->family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, iface,
				 &h->icmp, err, len);
	if (!ret)
		ret = tx_socket(h, iface, err, len);
	if (ret)
		hopsock_close(h);
	return ret;
}

void hopsock_close(struct hopsock *h)
{
	if (h->tx >= 0 && h->tx != h->icmp)
		close(h->tx);
	if (h->icmp >= 0)
		close(h->icmp);
	h->tx = h->icmp = -1;
}

int hopsock_hold(const struct hopsock *h, int *fd, uint16_t *port)
{
	return synsock_hold(&h->local, h->local_len,
			    h->proto == HOPSOCK_TCP ? SOCK_STREAM : SOCK_DGRAM, fd, port);
}

int hopsock_send(struct hopsock *h, const void *buf, size_t len, int ttl, uint32_t *key)
{
	int lvl = h->family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
	int opt = h->family == AF_INET6 ? IPV6_UNICAST_HOPS : IP_TTL;
	ssize_t n;

	if (setsockopt(h->tx, lvl, opt, &ttl, sizeof(ttl)))
		return -errno;
	if (h->proto == HOPSOCK_ICMP)	/* the ICMP socket is not connected */
		n = sendto(h->tx, buf, len, MSG_DONTWAIT, (const struct sockaddr *)&h->peer,
			   h->peer_len);
	else
		n = send(h->tx, buf, len, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	*key = h->tx_key++;
	return 0;
}

int hopsock_tx(struct hopsock *h, struct ts_tx *tx)
{
	return conn_tx_read(h->tx, tx);
}

int hopsock_recv(const struct hopsock *h, int fd, uint8_t *buf, size_t len, struct ts_stamps *rx,
		 uint8_t from[16])
{
	char control[SK_CMSG_BUF];
	struct sockaddr_storage ss = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = &ss, .msg_namelen = sizeof(ss),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);

	(void)h;
	if (n < 0)
		return -errno;
	rx->kn_ns = rx->hw_ns = TS_NONE;
	if (!ts_parse_rx_only(&msg, rx))
		ts_parse_rx(&msg, rx);
	if (msg.msg_namelen >= sizeof(struct sockaddr_in))
		addr_bytes(&ss, from);
	else
		memset(from, 0, 16);
	return (int)n;
}

int hopsock_wait(const struct hopsock *h, int64_t timeout_ns)
{
	struct pollfd p[2] = { { .fd = h->icmp, .events = POLLIN },
			       { .fd = h->tx, .events = POLLIN } };
	int ms = (int)((timeout_ns + NS_PER_MS - 1) / NS_PER_MS);

	/* the error queue's entries wake poll() as POLLERR */
	if (poll(p, h->tx == h->icmp ? 1 : 2, ms < 0 ? 0 : ms) < 0 && errno != EINTR)
		return -errno;
	return 0;
}
