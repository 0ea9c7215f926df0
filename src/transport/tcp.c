// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP transport (--tcp): rant's messages on TCP connections, each
 * preceded by its length (frame.h). The emitter connects; the reflector
 * listens and serves every connection at once.
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
 * in the connection's buffer until a message is complete; the message is
 * returned with the RX stamps of the read that completed it. A stream
 * that cannot be rant's (frame_check) is dropped (-EPROTO).
 *
 * The emitter whose connection broke reconnects before its next send;
 * a send that cannot reconnect takes --timeout, like a lost ping, and
 * returns -ENOTCONN. A connection the peer closes or resets before any
 * message came on it is counted apart (closed_before_pong): the --tcp
 * reflector turns a connection away so, closing it at accept (over
 * --max-sessions-per-address, or outside --allow: tcpserve.c).
 *
 * The reflector serves all its connections at once, each a struct sk of
 * its own (tcpserve.c); send with a received message as reply answers
 * on the connection it came on (m->via).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcpserve.h"
#include "tcpstream.h"
#include "timeutil.h"
#include "transport.h"

struct tcp_state {
	const struct rant_cfg *cfg;
	struct tcp_stats stats;
	/* emitter: its one connection is the transport's struct sk */
	struct tcpstream_rx rx;
	int64_t last_connect;		/* monotonic ns of the last attempt */
	bool answered;			/* a message came on this connection */
	/* reflector */
	int listen_fd;
	struct tcpserve *srv;
};

static const struct tcp_stats tcp_no_stats;

const struct tcp_stats *tcp_stats(const struct sk *s)
{
	const struct tcp_state *t = s->priv;

	return t ? &t->stats : &tcp_no_stats;
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

/* The emitter connects to the reflector: 0 with s->fd, or -errno with err. */
static int tcp_connect(struct tcp_state *t, struct sk *s, char *err, size_t len)
{
	const struct rant_cfg *cfg = t->cfg;
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
	t->rx.have = 0;
	t->answered = false;
	ret = tcpstream_established(cfg, s, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

/* The reflector's listening socket (dual-stack where IPv6 is up),
 * non-blocking, and what serves its connections. */
static int tcp_listen(struct tcp_state *t, struct sk *s, char *err, size_t len)
{
	const struct rant_cfg *cfg = t->cfg;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, ret;

	fd = tcp_socket(s, cfg);
	if (fd < 0) {
		snprintf(err, len, "TCP socket on %s: %s", cfg->iface, strerror(-fd));
		return fd;
	}
	t->listen_fd = fd;
	sl = sk_any_addr(fd, s->family, cfg->port, &ss);
	sk_sockopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	/* SOMAXCONN (capped by net.core.somaxconn): the loop accepts them all */
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, SOMAXCONN)) {
		ret = -errno;
		if (ret == -EADDRINUSE)
			snprintf(err, len, "TCP port %u is in use (ss -ltnp 'sport = :%u'): stop the other reflector or use --port",
				 cfg->port, cfg->port);
		else
			snprintf(err, len, "bind/listen on TCP port %u: %s", cfg->port, strerror(-ret));
		return ret;
	}
	if (fcntl_nonblock(fd, true)) {
		ret = -errno;
		snprintf(err, len, "fcntl O_NONBLOCK on the TCP listening socket: %s", strerror(-ret));
		return ret;
	}
	t->srv = tcpserve_create(cfg, fd, &t->stats, err, len);
	return t->srv ? 0 : -ENOMEM;
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
static int tcp_reconnect(struct tcp_state *t, struct sk *s)
{
	int64_t start = monotonic_ns();
	char err[256];

	if (t->last_connect && start - t->last_connect < t->cfg->timeout_ns) {
		tcp_sleep_until(t->last_connect + t->cfg->timeout_ns);
		start = monotonic_ns();
	}
	t->last_connect = start;
	if (tcp_connect(t, s, err, sizeof(err)) == 0) {
		t->stats.reconnects++;
		return 0;
	}
	t->stats.connect_failures++;
	tcp_sleep_until(start + t->cfg->timeout_ns);
	return -ENOTCONN;
}

/* The emitter's connection is over: the peer closed or reset it (ret
 * -ECONNRESET, -EPIPE), counted, apart when no message came on it. */
static void tcp_emit_closed(struct tcp_state *t, int ret)
{
	if (ret != -ECONNRESET && ret != -EPIPE)
		return;
	t->stats.closed++;
	t->stats.closed_before_pong += !t->answered;
}

/* The emitter's send: reconnect if the connection broke. */
static int tcp_emit_send(struct tcp_state *t, struct sk *s, const void *buf,
			 size_t len, uint32_t *key)
{
	size_t done;
	int ret;

	if (s->fd < 0 && tcp_reconnect(t, s))
		return -ENOTCONN;
	ret = tcpstream_send(t->cfg, s, buf, len, true, key, &done);
	if (!ret)
		return 0;
	tcp_emit_closed(t, ret);
	sk_close(s);	/* the connection is over */
	return ret == -EAGAIN ? -ETIMEDOUT : -ENOTCONN;
}

/* The emitter's receive: the pong on its one connection. */
static int tcp_emit_recv(struct tcp_state *t, struct sk *s, void *buf, size_t len,
			 struct sk_msg *m, bool sw, bool block)
{
	int ret;

	if (s->fd < 0)
		return -ENOTCONN;
	ret = tcpstream_next(s->fd, &t->rx, t->cfg, buf, len, m, sw, block);
	if (!ret) {
		m->src = s->peer;
		m->src_len = s->peer_len;
		m->via = NULL;
		t->answered = true;
		return 0;
	}
	if (ret == -EAGAIN || ret == -EINTR)
		return ret;
	if (ret == -EPROTO)
		t->stats.garbage++;
	else
		tcp_emit_closed(t, ret);
	sk_close(s);
	return ret == -EPROTO ? ret : -ECONNRESET;
}

static int tcp_open(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len)
{
	struct tcp_state *t;
	int ret = sk_init(s, cfg, err, len);

	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, len, "cannot allocate the TCP transport's state");
		return -ENOMEM;
	}
	t->cfg = cfg;
	t->listen_fd = -1;
	s->priv = t;
	ret = sk_configure_check(s, cfg, err, len);
	if (ret)
		return ret;
	if (cfg->mode == MODE_REFLECT)
		return tcp_listen(t, s, err, len);
	if (tcpstream_grow(&t->rx, TCPSTREAM_MAX)) {
		snprintf(err, len, "cannot allocate the TCP receive buffer (%d bytes)", TCPSTREAM_MAX);
		return -ENOMEM;
	}
	return tcp_connect(t, s, err, len);
}

static void tcp_close(struct sk *s)
{
	struct tcp_state *t = s->priv;

	sk_close(s);
	if (!t)
		return;
	/* First: no connection made as the others close joins the backlog. */
	if (t->listen_fd >= 0)
		close(t->listen_fd);
	tcpserve_destroy(t->srv);
	free(t->rx.buf);
	free(t);
	s->priv = NULL;
}

/* The emitter sends on its connection; the reflector answers on reply's. */
static int tcp_send(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key)
{
	struct tcp_state *t = s->priv;

	if (t->cfg->mode == MODE_EMIT)
		return tcp_emit_send(t, s, buf, len, key);
	if (!reply || !reply->via)
		return -ENOTCONN;
	return tcpserve_reply(t->srv, reply->via, buf, len, !reply->unstamped, key);
}

static int tcp_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m,
		    bool sw, bool block)
{
	struct tcp_state *t = s->priv;

	if (t->cfg->mode == MODE_EMIT)
		return tcp_emit_recv(t, s, buf, len, m, sw, block);
	return tcpserve_recv(t->srv, s, buf, len, m, sw, block);
}

const struct transport transport_tcp = {
	.name = "tcp",
	.caps = { .stream = true, .ack_stamps = true, .max_len = RANT_TCP_MAX_LEN },
	.open = tcp_open,
	.close = tcp_close,
	.send = tcp_send,
	.recv = tcp_recv,
};
