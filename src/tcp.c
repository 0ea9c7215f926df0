// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP transport (--tcp): rant's messages on one TCP connection, each
 * preceded by its length (frame.h). The emitter connects; the reflector
 * listens and serves one connection at a time, and the next one after
 * it closes.
 *
 * Stamps: SO_TIMESTAMPING with OPT_ID counts bytes on TCP, so the key of
 * a TX stamp is the offset of the last byte of the send call it belongs
 * to (the kernel stamps the last segment of each call). OPT_ID can only
 * be set on a connected socket, so timestamping is turned on after
 * connect() or accept(). The emitter also asks for SCHED and ACK
 * reports; a message's T1 is the stamp of its first write (with one
 * write, of its last byte), its ACK stamp that of its last byte.
 *
 * Receiving reassembles whole messages: what recvmsg() returns is kept
 * in a buffer until a message is complete; the message is returned with
 * the RX stamps of the read that completed it. A stream that cannot be
 * rant's (frame_check) is dropped (-EPROTO).
 *
 * The emitter whose connection broke reconnects before its next send;
 * a send that cannot reconnect takes --timeout, like a lost ping, and
 * returns -ENOTCONN.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "allow.h"
#include "frame.h"
#include "missing.h"
#include "timeutil.h"
#include "transport.h"

#define TCP_RX_CAP (FRAME_PREFIX + RANT_TCP_MAX_LEN)
#define CMSG_BUF 256

struct tcp_state {
	const struct rant_cfg *cfg;
	int listen_fd;			/* reflector */
	uint8_t *rx;			/* TCP_RX_CAP bytes: the stream read so far */
	size_t have;			/* bytes in rx */
	struct ts_stamps rx_ts;		/* of the last read */
	int64_t rx_sw;			/* CLOCK_REALTIME after the last read */
	int64_t last_connect;		/* emitter: monotonic ns of the last attempt */
	struct tcp_stats stats;
};

static struct tcp_state tcp;

const struct tcp_stats *tcp_stats(void)
{
	return &tcp.stats;
}

/* O_NONBLOCK on or off; 0 or -1 with errno. */
static int fcntl_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* One SOCK_STREAM socket of s's family, bound to the interface. */
static int tcp_socket(struct sk *s, const struct rant_cfg *cfg)
{
	int fd = socket(s->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, cfg->iface,
		       (socklen_t)strlen(cfg->iface) + 1)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The checks sk_configure() makes (interface, busy poll, timestamping:
 * deciding s->hw) on a throwaway UDP socket, at start-up, so that a
 * problem is reported before anything connects.
 */
static int tcp_probe(struct sk *s, const struct rant_cfg *cfg, char *err,
		     size_t len)
{
	int ret = sk_socket(s, cfg, SOCK_DGRAM, err, len);

	if (ret)
		return ret;
	ret = sk_configure(s, cfg, err, len);
	sk_close(s);
	return ret;
}

/* The TCP options of --nodelay, and the send timeout. */
static int tcp_options(int fd, const struct rant_cfg *cfg)
{
	int64_t to = cfg->timeout_ns > NS_PER_SEC ? cfg->timeout_ns : NS_PER_SEC;
	struct timeval tv = { .tv_sec = to / NS_PER_SEC,
			      .tv_usec = (to % NS_PER_SEC) / NS_PER_US };

	if (cfg->nodelay && sk_sockopt_int(fd, IPPROTO_TCP, TCP_NODELAY, 1))
		return -errno;
	if (cfg->quickack && sk_sockopt_int(fd, IPPROTO_TCP, TCP_QUICKACK, 1))
		return -errno;
	/* A blocking send (a large message) never waits longer than this. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/*
 * A connection is up on s->fd: timestamping (OPT_ID counts bytes from
 * here), the options, an empty stream. The emitter adds SCHED and ACK
 * reports. 0, or -errno with err.
 */
static int tcp_established(struct sk *s, char *err, size_t len)
{
	const struct rant_cfg *cfg = tcp.cfg;
	unsigned int flags = 0;
	socklen_t fl = sizeof(flags);
	int ret;

	ret = sk_configure(s, cfg, err, len);
	if (!ret && cfg->mode == MODE_EMIT) {
		if (getsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &fl) == 0) {
			flags |= SOF_TIMESTAMPING_TX_SCHED | SOF_TIMESTAMPING_TX_ACK;
			if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
				ret = -errno;
		} else {
			ret = -errno;
		}
		if (ret)
			snprintf(err, len, "setsockopt SO_TIMESTAMPING (TX_ACK) on TCP: %s", strerror(-ret));
	}
	if (!ret && (ret = tcp_options(s->fd, cfg)))
		snprintf(err, len, "setsockopt on the TCP connection: %s", strerror(-ret));
	s->tx_key = 0;
	memset(s->stash, 0, sizeof(s->stash));
	tcp.have = 0;
	return ret;
}

/* connect() within timeout_ns. 0, or -errno. */
static int tcp_connect_fd(int fd, const struct sk *s, int64_t timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	struct timespec ts = ns_to_timespec(timeout_ns);
	int err = 0;
	socklen_t el = sizeof(err);
	int n;

	if (connect(fd, (const struct sockaddr *)&s->peer, s->peer_len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	n = ppoll(&pfd, 1, &ts, NULL);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		return -errno;
	return -err;
}

/* Connect to the reflector: 0 with s->fd, or -errno with err. */
static int tcp_connect(struct sk *s, char *err, size_t len)
{
	const struct rant_cfg *cfg = tcp.cfg;
	int fd, ret;

	fd = tcp_socket(s, cfg);
	if (fd < 0) {
		snprintf(err, len, "TCP socket on %s: %s", cfg->iface, strerror(-fd));
		return fd;
	}
	ret = sk_sockopt_int(fd, IPPROTO_TCP, TCP_NODELAY, cfg->nodelay);
	/* Non-blocking only while connecting, so the wait is bounded. */
	if (!ret && fcntl_nonblock(fd, true))
		ret = -errno;
	if (!ret)
		ret = tcp_connect_fd(fd, s, cfg->timeout_ns);
	if (!ret && fcntl_nonblock(fd, false))
		ret = -errno;
	if (ret) {
		close(fd);
		snprintf(err, len, "TCP connect to %s port %u: %s: is a reflector running there with --tcp (rant -i IFACE --tcp)?",
			 cfg->addr, cfg->port, strerror(-ret));
		return ret;
	}
	s->fd = fd;
	ret = tcp_established(s, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

/* The reflector's listening socket (dual-stack where IPv6 is up). */
static int tcp_listen(struct sk *s, const struct rant_cfg *cfg, char *err,
		      size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, ret;

	fd = tcp_socket(s, cfg);
	if (fd < 0) {
		snprintf(err, len, "TCP socket on %s: %s", cfg->iface, strerror(-fd));
		return fd;
	}
	sl = sk_any_addr(fd, s->family, cfg->port, &ss);
	sk_sockopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 4)) {
		ret = -errno;
		if (ret == -EADDRINUSE)
			snprintf(err, len, "TCP port %u is in use (ss -ltnp 'sport = :%u'): stop the other reflector or use --port",
				 cfg->port, cfg->port);
		else
			snprintf(err, len, "bind/listen on TCP port %u: %s", cfg->port, strerror(-ret));
		close(fd);
		return ret;
	}
	tcp.listen_fd = fd;
	return 0;
}

static int tcp_open(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len)
{
	int ret = sk_init(s, cfg, err, len);

	tcp.cfg = cfg;
	tcp.listen_fd = -1;
	tcp.have = 0;
	tcp.last_connect = 0;
	memset(&tcp.stats, 0, sizeof(tcp.stats));
	if (ret)
		return ret;
	tcp.rx = malloc(TCP_RX_CAP);
	if (!tcp.rx) {
		snprintf(err, len, "cannot allocate the TCP receive buffer (%d bytes)", TCP_RX_CAP);
		return -ENOMEM;
	}
	ret = tcp_probe(s, cfg, err, len);
	if (ret)
		return ret;
	return cfg->mode == MODE_EMIT ? tcp_connect(s, err, len) :
					tcp_listen(s, cfg, err, len);
}

static void tcp_close(struct sk *s)
{
	sk_close(s);
	if (tcp.listen_fd >= 0)
		close(tcp.listen_fd);
	tcp.listen_fd = -1;
	free(tcp.rx);
	tcp.rx = NULL;
}

/* The connection is over (closed by the peer, broken, or dropped). */
static void tcp_drop(struct sk *s)
{
	sk_close(s);
	tcp.have = 0;
}

/* Sleep until deadline (CLOCK_MONOTONIC ns). */
static void tcp_sleep_until(int64_t deadline)
{
	struct timespec ts = ns_to_timespec(deadline);

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * The emitter has no connection: make one, or -ENOTCONN after --timeout.
 * Attempts are --timeout apart at least, so a peer that accepts and
 * then breaks every connection is not hammered.
 */
static int tcp_reconnect(struct sk *s)
{
	int64_t start = monotonic_ns();
	char err[256];

	if (tcp.last_connect && start - tcp.last_connect < tcp.cfg->timeout_ns) {
		tcp_sleep_until(tcp.last_connect + tcp.cfg->timeout_ns);
		start = monotonic_ns();
	}
	tcp.last_connect = start;
	if (tcp_connect(s, err, sizeof(err)) == 0) {
		tcp.stats.reconnects++;
		return 0;
	}
	tcp.stats.connect_failures++;
	tcp_sleep_until(start + tcp.cfg->timeout_ns);
	return -ENOTCONN;
}

/* Write bytes [a, b) of the framed message (prefix, then buf). */
static int tcp_write(int fd, const uint8_t *pfx, const uint8_t *buf,
		     size_t a, size_t b)
{
	while (a < b) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t n;

		if (a < FRAME_PREFIX) {
			iov[msg.msg_iovlen++] = (struct iovec){ (void *)(pfx + a),
				(b < FRAME_PREFIX ? b : FRAME_PREFIX) - a };
			if (b > FRAME_PREFIX)
				iov[msg.msg_iovlen++] =
					(struct iovec){ (void *)buf, b - FRAME_PREFIX };
		} else {
			iov[msg.msg_iovlen++] =
				(struct iovec){ (void *)(buf + a - FRAME_PREFIX), b - a };
		}
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		a += (size_t)n;
	}
	return 0;
}

/*
 * One message in --writes calls (the framed bytes split evenly), corked
 * with --cork. *key: the first write's last byte.
 */
static int tcp_send(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key)
{
	const struct rant_cfg *cfg = tcp.cfg;
	size_t framed = FRAME_PREFIX + len, a = 0;
	unsigned int writes = cfg->writes ? cfg->writes : 1;
	uint8_t pfx[FRAME_PREFIX];
	bool first = true;
	int ret = 0;

	(void)reply;	/* the connection is the peer */
	if (s->fd < 0 && (cfg->mode == MODE_REFLECT || tcp_reconnect(s)))
		return -ENOTCONN;
	frame_put_len(pfx, (uint32_t)len);
	if (cfg->cork)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_CORK, 1);
	for (unsigned int w = 1; w <= writes && !ret; w++) {
		size_t b = framed * w / writes;

		if (b == a)
			continue;
		ret = tcp_write(s->fd, pfx, buf, a, b);
		if (first)
			*key = s->tx_key + (uint32_t)b - 1;
		first = false;
		a = b;
	}
	if (cfg->cork)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_CORK, 0);
	if (ret) {
		tcp_drop(s);
		return ret == -ETIMEDOUT ? ret : -ENOTCONN;
	}
	s->tx_key += (uint32_t)framed;	/* OPT_ID counts bytes on TCP */
	return 0;
}

/*
 * The reflector has no connection: accept one, waiting up to
 * SK_REFLECT_WAKE_NS with block. 0 when one is up, -EAGAIN when none,
 * -EACCES when one came from outside --allow (closed at once).
 */
static int tcp_accept(struct sk *s, bool block)
{
	struct pollfd pfd = { .fd = tcp.listen_fd, .events = POLLIN };
	struct timespec ts = ns_to_timespec(block ? SK_REFLECT_WAKE_NS : 0);
	char err[256];
	int fd, n;

	n = ppoll(&pfd, 1, &ts, NULL);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EAGAIN;
	s->peer_len = sizeof(s->peer);
	fd = accept4(tcp.listen_fd, (struct sockaddr *)&s->peer, &s->peer_len, SOCK_CLOEXEC);
	if (fd < 0)
		return -EAGAIN;
	if (!allow_match(&tcp.cfg->allow, (const struct sockaddr *)&s->peer)) {
		close(fd);
		return -EACCES;
	}
	s->fd = fd;
	if (tcp_established(s, err, sizeof(err))) {
		tcp_drop(s);
		return -EAGAIN;
	}
	tcp.stats.accepted++;
	return 0;
}

/* One read into the stream buffer, with its RX stamps. >0 bytes, or -errno
 * (-ECONNRESET when the peer closed). */
static ssize_t tcp_read(struct sk *s, bool sw, bool block)
{
	char control[CMSG_BUF];
	struct iovec iov = { .iov_base = tcp.rx + tcp.have,
			     .iov_len = TCP_RX_CAP - tcp.have };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(s->fd, &msg, block ? 0 : MSG_DONTWAIT);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -ECONNRESET;
	tcp.rx_sw = sw ? realtime_ns() : TS_NONE;
	if (ts_parse_rx(&msg, &tcp.rx_ts))
		tcp.rx_ts.kn_ns = tcp.rx_ts.hw_ns = TS_NONE;
	if (tcp.cfg->quickack)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_QUICKACK, 1);
	tcp.have += (size_t)n;
	return n;
}

/* Hand the whole message of len bytes at the buffer's start to the caller. */
static void tcp_deliver(const struct sk *s, void *buf, size_t len, uint32_t mlen,
			struct sk_msg *m)
{
	size_t used = FRAME_PREFIX + mlen;

	if (mlen <= len) {
		memcpy(buf, tcp.rx + FRAME_PREFIX, mlen);
		m->len = mlen;
	} else {
		m->len = -1;	/* larger than the caller takes: invalid */
	}
	m->rx = tcp.rx_ts;
	m->sw_ns = tcp.rx_sw;
	/* The connection's peer: the reflector keys its sessions by it. */
	m->src = s->peer;
	m->src_len = s->peer_len;
	tcp.have -= used;
	if (tcp.have)
		memmove(tcp.rx, tcp.rx + used, tcp.have);
}

static int tcp_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m,
		    bool sw, bool block)
{
	enum frame_state st;
	uint32_t mlen = 0;
	ssize_t n;

	if (s->fd < 0) {
		if (tcp.cfg->mode == MODE_EMIT)
			return -ENOTCONN;
		n = tcp_accept(s, block);
		if (n)
			return (int)n;
	}
	for (;;) {
		st = frame_check(tcp.rx, tcp.have, RANT_TCP_MAX_LEN, &mlen);
		if (st == FRAME_WHOLE) {
			tcp_deliver(s, buf, len, mlen, m);
			return 0;
		}
		if (st != FRAME_NEED) {
			tcp.stats.garbage++;
			tcp_drop(s);
			return -EPROTO;
		}
		n = tcp_read(s, sw, block);
		if (n == -EAGAIN || n == -EINTR)
			return (int)n;
		if (n < 0) {
			tcp.stats.closed += n == -ECONNRESET;
			tcp_drop(s);
			return -ECONNRESET;
		}
	}
}

const struct transport transport_tcp = {
	.name = "tcp",
	.caps = { .stream = true, .ack_stamps = true, .max_len = RANT_TCP_MAX_LEN },
	.open = tcp_open,
	.close = tcp_close,
	.send = tcp_send,
	.recv = tcp_recv,
};
