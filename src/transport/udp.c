// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP transport: one datagram per message. The emitter's socket is
 * connected to the reflector; the reflector binds its port on a
 * dual-stack IPv6 socket (IPv4 where IPv6 is disabled) and answers each
 * datagram to its source. With --ptp-mode (whose PTP header is the
 * message format's, ptp.c) both sides bind the port.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "transport.h"
#include "wire.h"

static int udp_bind(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sk_any_addr(s->fd, s->family, cfg->port, &ss);
	int ret;

	if (bind(s->fd, (struct sockaddr *)&ss, sl)) {
		ret = -errno;
		if (ret == -EADDRINUSE && cfg->ptp_mode)
			snprintf(err, len, "UDP port %u is in use on this host (ss -lunp 'sport = :%u'): a PTP daemon (ptp4l) or another rant holds it: stop it, or give --port",
				 cfg->port, cfg->port);
		else if (ret == -EADDRINUSE)
			snprintf(err, len, "UDP port %u is in use (ss -lunp 'sport = :%u'): stop the other reflector or use --port",
				 cfg->port, cfg->port);
		else if (ret == -EACCES)
			snprintf(err, len, "binding UDP port %u%s needs root or CAP_NET_BIND_SERVICE: run as root, or setcap cap_net_bind_service,cap_net_raw,cap_net_admin,cap_ipc_lock+ep rant%s",
				 cfg->port, cfg->ptp_mode ? " (--ptp-mode)" : "",
				 cfg->ptp_mode ? " (a --port above 1023 is not stamped by a NIC that stamps only PTP packets)" : "");
		else
			snprintf(err, len, "bind to UDP port %u: %s", cfg->port, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * The reflector's receive buffer: room for a burst of a fleet's pings,
 * or for the moments its CPU is taken from it, and for the TX stamp
 * reports of its pongs, which the error queue keeps in the same buffer
 * (a full buffer drops stamps as well as pings). Root (CAP_NET_ADMIN)
 * gets it whole; others as much as net.core.rmem_max allows.
 */
#define UDP_REFLECT_RCVBUF (4 * 1024 * 1024)

static void udp_rcvbuf(struct sk *s)
{
	if (sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, UDP_REFLECT_RCVBUF))
		sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUF, UDP_REFLECT_RCVBUF);
}

static int udp_connect(struct sk *s, const struct rant_cfg *cfg, char *err,
		       size_t len)
{
	int ret;

	if (connect(s->fd, (struct sockaddr *)&s->peer, s->peer_len)) {
		ret = -errno;
		snprintf(err, len, "connect to %s: %s", cfg->addr, strerror(-ret));
		return ret;
	}
	return 0;
}

static int udp_open(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len)
{
	int ret = sk_init(s, cfg, err, len);

	if (ret)
		return ret;
	ret = sk_socket(s, cfg, SOCK_DGRAM, err, len);
	if (ret)
		return ret;
	ret = sk_configure(s, cfg, err, len);
	/* --ptp-mode: the emitter sends from the port too (NICs match the
	 * destination port of the pongs as well). */
	if (!ret && cfg->mode == MODE_REFLECT)
		udp_rcvbuf(s);
	if (!ret && (cfg->mode == MODE_REFLECT || cfg->ptp_mode))
		ret = udp_bind(s, cfg, err, len);
	if (!ret && cfg->mode == MODE_EMIT)
		ret = udp_connect(s, cfg, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

/* A reply that leaves with a TOS of its own (sk_msg.tos_out). */
static ssize_t udp_send_ctl(struct sk *s, const void *buf, size_t len,
			    const struct sk_msg *reply)
{
	union {
		char b[SK_REPLY_CTL_LEN];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)&reply->src, .msg_namelen = reply->src_len,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.b, .msg_controllen = sk_reply_ctl(s, reply, ctl.b),
	};

	return sendmsg(s->fd, &msg, MSG_DONTWAIT);
}

static int udp_send(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key)
{
	bool stamped = !(reply && reply->unstamped);
	ssize_t n;

	/* OPT_ID counts the datagrams sent with a TX stamp on UDP */
	*key = stamped ? s->tx_key++ : 0;
	if (reply && (reply->dst_known || reply->tos_out >= 0 || !stamped))
		n = udp_send_ctl(s, buf, len, reply);
	else if (reply)
		n = sendto(s->fd, buf, len, MSG_DONTWAIT,
			   (const struct sockaddr *)&reply->src, reply->src_len);
	else
		n = send(s->fd, buf, len, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EMSGSIZE;
}

const struct transport transport_udp = {
	.name = "udp",
	.caps = { .stream = false, .ack_stamps = false, .max_len = WIRE_MAX_LEN, .batch = true },
	.open = udp_open,
	.close = sk_close,
	.send = udp_send,
	.recv = sk_recv,
};
