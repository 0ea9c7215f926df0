// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP transport: one datagram per message. The emitter's socket is
 * connected to the reflector; the reflector binds its port on a
 * dual-stack IPv6 socket (IPv4 where IPv6 is disabled) and answers each
 * datagram to its source. With --ptp-mode each message follows a PTPv2
 * event header (ptp.h) and both sides bind the port.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

/*
 * --ptp-mode: the emitter speaks as a PTP slave (Delay_Req), the reflector
 * as a master (Sync, two-step); the clock identity is the EUI-64 of the
 * interface's MAC (zeros where it has none), as ptp4l makes it.
 */
static void udp_ptp_init(struct sk *s, const struct rant_cfg *cfg)
{
	bool emit = cfg->mode == MODE_EMIT;
	struct ptp_hdr h = {
		.type = emit ? PTP_DELAY_REQ : PTP_SYNC,
		.domain = PTP_RANT_DOMAIN,
		.flags = PTP_FLAG_UNICAST | (emit ? 0 : PTP_FLAG_TWO_STEP),
		.port = 1,
	};
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cfg->iface);
	if (!ioctl(s->fd, SIOCGIFHWADDR, &ifr))
		ptp_clock_id((const uint8_t *)ifr.ifr_hwaddr.sa_data, h.clock_id);
	ptp_put_hdr(s->ptp_hdr, &h);
	s->ptp_rx_type = emit ? PTP_SYNC : PTP_DELAY_REQ;
	s->ptp = true;
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
	if (!ret && cfg->ptp_mode)
		udp_ptp_init(s, cfg);
	/* --ptp-mode: the emitter sends from the port too (NICs match the
	 * destination port of the pongs as well). */
	if (!ret && (cfg->mode == MODE_REFLECT || cfg->ptp_mode))
		ret = udp_bind(s, cfg, err, len);
	if (!ret && cfg->mode == MODE_EMIT)
		ret = udp_connect(s, cfg, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

/* --ptp-mode: the PTP header, then the message, in one datagram. */
static ssize_t udp_send_ptp(struct sk *s, const void *buf, size_t len,
			    const struct sk_msg *reply)
{
	struct iovec iov[2] = {
		{ .iov_base = s->ptp_hdr, .iov_len = PTP_HDR_LEN },
		{ .iov_base = (void *)buf, .iov_len = len },
	};
	struct msghdr msg = {
		.msg_name = reply ? (void *)&reply->src : NULL,
		.msg_namelen = reply ? reply->src_len : 0,
		.msg_iov = iov,
		.msg_iovlen = 2,
	};
	ssize_t n;

	ptp_set_len_seq(s->ptp_hdr, len, wire_get_seq(buf, len));
	n = sendmsg(s->fd, &msg, MSG_DONTWAIT);
	return n < 0 ? n : n - PTP_HDR_LEN;
}

static int udp_send(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key)
{
	ssize_t n;

	*key = s->tx_key++;	/* OPT_ID counts datagrams on UDP */
	if (s->ptp)
		n = udp_send_ptp(s, buf, len, reply);
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
	.open = udp_open,
	.close = sk_close,
	.send = udp_send,
	.recv = sk_recv,
};

const struct transport *transport_for(const struct rant_cfg *cfg)
{
	return cfg->tcp ? &transport_tcp : &transport_udp;
}
