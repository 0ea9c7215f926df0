// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP transport: one datagram per message. The emitter's socket is
 * connected to the reflector; the reflector binds its port on a
 * dual-stack IPv6 socket (IPv4 where IPv6 is disabled) and answers each
 * datagram to its source.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "transport.h"

static int udp_bind(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sk_any_addr(s->fd, s->family, cfg->port, &ss);
	int ret;

	if (bind(s->fd, (struct sockaddr *)&ss, sl)) {
		ret = -errno;
		if (ret == -EADDRINUSE)
			snprintf(err, len, "UDP port %u is in use (ss -lunp 'sport = :%u'): stop the other reflector or use --port",
				 cfg->port, cfg->port);
		else
			snprintf(err, len, "bind to UDP port %u: %s", cfg->port, strerror(-ret));
		return ret;
	}
	return 0;
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
	if (!ret)
		ret = cfg->mode == MODE_EMIT ? udp_connect(s, cfg, err, len) :
					       udp_bind(s, cfg, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

static int udp_send(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key)
{
	ssize_t n;

	*key = s->tx_key++;	/* OPT_ID counts datagrams on UDP */
	if (reply)
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
	.open = udp_open,
	.close = sk_close,
	.send = udp_send,
	.recv = sk_recv,
};

const struct transport *transport_for(const struct rant_cfg *cfg)
{
	return cfg->tcp ? &transport_tcp : &transport_udp;
}
