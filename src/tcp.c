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
 * returns -ENOTCONN.
 *
 * The reflector's connections, each a struct sk of its own (its fd,
 * peer, OPT_ID byte count and TX stash, so each stamp is matched on the
 * connection its pong left on), are served from one epoll set:
 * - recv returns the next whole message of any connection, taking them
 *   in turn (a busy one cannot starve the others), with m->via naming
 *   its connection; send with that message as reply answers on it.
 * - At most --max-sessions connections are open (each is its own
 *   session); one more is accepted and closed at once (refused), so no
 *   client waits in the backlog (SOMAXCONN) behind the others.
 * - A connection that brings no whole message in --tcp-idle-timeout is
 *   closed: idle, or a message begun and not finished. The check runs
 *   in the loop's idle gaps (every TCP_SWEEP_POLLS empty polls while
 *   spinning), a quarter of the timeout apart, so no clock is read per
 *   message: the close comes between 1 and 1.25 timeouts after the last
 *   message.
 * - Writes never block: what the socket does not take of a pong is kept
 *   and written when it has room (EPOLLOUT). A pong due while the
 *   previous one is still unsent is dropped (counted): a rant emitter
 *   reads each pong before its next ping, so such a peer is not reading,
 *   and a pong written in part would break the framing. A peer that
 *   stops reading also stops pinging, and the idle timeout closes it.
 * Buffers grow with the messages a connection brings (TCP_CONN_RX_MIN at
 * accept, up to one message): set up per connection, not per message.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "allow.h"
#include "frame.h"
#include "missing.h"
#include "timeutil.h"
#include "transport.h"

#define TCP_RX_CAP (FRAME_PREFIX + RANT_TCP_MAX_LEN)
#define TCP_CONN_RX_MIN 4096	/* a reflector connection's first buffer */
#define TCP_ACCEPT_BATCH 16	/* accepts per call: the loop goes on between */
#define TCP_EVENTS 32
#define TCP_SWEEP_POLLS 256	/* spinning: empty polls between clock reads */
#define TCP_SOLO_POLLS 64	/* spinning, one client: its reads per poll */
#define TCP_SPARE_FDS 64	/* descriptors beside the connections' */
#define TCP_SNDBUF_AUTO (64 * 1024)	/* pongs this long fit the kernel's own */
#define TCP_LISTEN_TAG UINT32_MAX	/* epoll data of the listening socket */
#define CMSG_BUF 256

/* One stream's framing: the bytes read and not yet handed out. */
struct tcp_rx {
	uint8_t *buf;
	size_t cap, have;
	struct ts_stamps ts;		/* of the last read */
	int64_t sw;			/* CLOCK_REALTIME after the last read */
};

/* One of the reflector's connections. */
struct tcp_conn {
	struct sk sk;			/* fd (-1: slot free), peer, tx_key, stash */
	struct tcp_rx rx;
	uint8_t *out;			/* bytes of a pong the socket did not take */
	size_t out_cap, out_len, out_off;
	size_t sndbuf_for;		/* the longest pong its send buffer was sized for */
	uint64_t msgs, msgs_seen;	/* whole messages; as the last sweep saw */
	int64_t quiet_since;		/* monotonic ns: no message since */
	bool ready;			/* in the ready ring: may have a message */
};

struct tcp_state {
	const struct rant_cfg *cfg;
	struct tcp_stats stats;
	/* emitter: its one connection is the transport's struct sk */
	struct tcp_rx rx;
	int64_t last_connect;		/* monotonic ns of the last attempt */
	/* reflector */
	int listen_fd, ep;
	struct tcp_conn *conns;		/* max slots */
	size_t max, open;
	uint32_t *ring;			/* ready connections, in turn */
	size_t ring_head, ring_n;
	int64_t next_sweep;		/* monotonic ns */
	unsigned int polls, spins;
	struct tcp_conn *last;		/* the last one a message came from */
	struct tcp_conn *solo;		/* the one client, out of the epoll set */
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
 * here), the options, an empty TX stash. The emitter adds SCHED and ACK
 * reports. 0, or -errno with err.
 */
static int tcp_established(const struct rant_cfg *cfg, struct sk *s, char *err,
			   size_t len)
{
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
	ret = tcp_established(cfg, s, err, len);
	if (ret)
		sk_close(s);
	return ret;
}

/* The reflector's listening socket (dual-stack where IPv6 is up) and its
 * epoll set, non-blocking. */
static int tcp_listen(struct tcp_state *t, struct sk *s, char *err, size_t len)
{
	const struct rant_cfg *cfg = t->cfg;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TCP_LISTEN_TAG };
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
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep < 0 || fcntl_nonblock(fd, true) ||
	    epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		snprintf(err, len, "epoll for the TCP reflector: %s", strerror(-ret));
		return ret;
	}
	return 0;
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

/*
 * Write bytes [*a, b) of the framed message (prefix, then buf), advancing
 * *a: 0 when all are written, -EAGAIN when the socket takes no more (full,
 * or the emitter's send timeout), or -errno.
 */
static int tcp_write(int fd, const uint8_t *pfx, const uint8_t *buf,
		     size_t *a, size_t b)
{
	while (*a < b) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov };
		ssize_t n;

		if (*a < FRAME_PREFIX) {
			iov[msg.msg_iovlen++] = (struct iovec){ (void *)(pfx + *a),
				(b < FRAME_PREFIX ? b : FRAME_PREFIX) - *a };
			if (b > FRAME_PREFIX)
				iov[msg.msg_iovlen++] =
					(struct iovec){ (void *)buf, b - FRAME_PREFIX };
		} else {
			iov[msg.msg_iovlen++] =
				(struct iovec){ (void *)(buf + *a - FRAME_PREFIX), b - *a };
		}
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		*a += (size_t)n;
	}
	return 0;
}

/*
 * One message on s in --writes calls (the framed bytes split evenly),
 * corked with --cork. *key: the first write's last byte; *done: the
 * framed bytes written. 0, -EAGAIN (the rest did not fit: the message
 * still counts in the byte offsets), or -errno.
 */
static int tcp_send_msg(const struct rant_cfg *cfg, struct sk *s, const void *buf,
			size_t len, uint32_t *key, size_t *done)
{
	size_t framed = FRAME_PREFIX + len, a = 0;
	unsigned int writes = cfg->writes ? cfg->writes : 1;
	uint8_t pfx[FRAME_PREFIX];
	bool first = true;
	int ret = 0;

	frame_put_len(pfx, (uint32_t)len);
	if (cfg->cork)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_CORK, 1);
	for (unsigned int w = 1; w <= writes && !ret; w++) {
		size_t b = framed * w / writes;

		if (b == a)
			continue;
		if (first)
			*key = s->tx_key + (uint32_t)b - 1;
		first = false;
		ret = tcp_write(s->fd, pfx, buf, &a, b);
	}
	if (cfg->cork)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_CORK, 0);
	*done = a;
	if (!ret || ret == -EAGAIN)
		s->tx_key += (uint32_t)framed;	/* OPT_ID counts bytes on TCP */
	return ret;
}

/* The emitter's send: reconnect if the connection broke. */
static int tcp_emit_send(struct tcp_state *t, struct sk *s, const void *buf,
			 size_t len, uint32_t *key)
{
	size_t done;
	int ret;

	if (s->fd < 0 && tcp_reconnect(t, s))
		return -ENOTCONN;
	ret = tcp_send_msg(t->cfg, s, buf, len, key, &done);
	if (!ret)
		return 0;
	sk_close(s);	/* the connection is over */
	return ret == -EAGAIN ? -ETIMEDOUT : -ENOTCONN;
}

/*
 * One read into rx (up to its room), with its RX stamps: >0 bytes, or
 * -errno (-ECONNRESET when the peer closed, -EAGAIN when nothing came).
 */
static ssize_t tcp_read(int fd, struct tcp_rx *rx, const struct rant_cfg *cfg,
			bool sw, bool block)
{
	char control[CMSG_BUF];
	struct iovec iov = { .iov_base = rx->buf + rx->have,
			     .iov_len = rx->cap - rx->have };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(fd, &msg, block ? 0 : MSG_DONTWAIT);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -ECONNRESET;
	rx->sw = sw ? realtime_ns() : TS_NONE;
	if (ts_parse_rx(&msg, &rx->ts))
		rx->ts.kn_ns = rx->ts.hw_ns = TS_NONE;
	if (cfg->quickack)
		sk_sockopt_int(fd, IPPROTO_TCP, TCP_QUICKACK, 1);
	rx->have += (size_t)n;
	return n;
}

/* Room in rx for need bytes (at most TCP_RX_CAP). 0 or -ENOMEM. */
static int tcp_rx_grow(struct tcp_rx *rx, size_t need)
{
	size_t cap = rx->cap * 2 > need ? rx->cap * 2 : need;
	uint8_t *b;

	if (cap > TCP_RX_CAP)
		cap = TCP_RX_CAP;
	b = realloc(rx->buf, cap);
	if (!b)
		return -ENOMEM;
	rx->buf = b;
	rx->cap = cap;
	return 0;
}

/* Hand the whole message of mlen bytes at rx's start to the caller. */
static void tcp_take(struct tcp_rx *rx, void *buf, size_t len, uint32_t mlen,
		     struct sk_msg *m)
{
	size_t used = FRAME_PREFIX + mlen;

	if (mlen <= len) {
		memcpy(buf, rx->buf + FRAME_PREFIX, mlen);
		m->len = mlen;
	} else {
		m->len = -1;	/* larger than the caller takes: invalid */
	}
	m->rx = rx->ts;
	m->sw_ns = rx->sw;
	rx->have -= used;
	if (rx->have)
		memmove(rx->buf, rx->buf + used, rx->have);
}

/*
 * The next whole message on a stream: 0 with it in buf and m (without
 * its source), -EAGAIN or -EINTR while it has not all come, -EPROTO when
 * the stream cannot be rant's, -ECONNRESET (or another -errno) when the
 * connection is over.
 */
static int tcp_next(int fd, struct tcp_rx *rx, const struct rant_cfg *cfg,
		    void *buf, size_t len, struct sk_msg *m, bool sw, bool block)
{
	enum frame_state st;
	uint32_t mlen = 0;
	ssize_t n;

	for (;;) {
		st = frame_check(rx->buf, rx->have, RANT_TCP_MAX_LEN, &mlen);
		if (st == FRAME_WHOLE) {
			tcp_take(rx, buf, len, mlen, m);
			return 0;
		}
		if (st != FRAME_NEED)
			return -EPROTO;
		if (rx->have >= FRAME_PREFIX && FRAME_PREFIX + mlen > rx->cap &&
		    tcp_rx_grow(rx, FRAME_PREFIX + mlen))
			return -ENOMEM;
		n = tcp_read(fd, rx, cfg, sw, block);
		if (n < 0)
			return (int)n;
	}
}

/* The emitter's receive: the pong on its one connection. */
static int tcp_emit_recv(struct tcp_state *t, struct sk *s, void *buf, size_t len,
			 struct sk_msg *m, bool sw, bool block)
{
	int ret;

	if (s->fd < 0)
		return -ENOTCONN;
	ret = tcp_next(s->fd, &t->rx, t->cfg, buf, len, m, sw, block);
	if (!ret) {
		m->src = s->peer;
		m->src_len = s->peer_len;
		m->via = NULL;
		return 0;
	}
	if (ret == -EAGAIN || ret == -EINTR)
		return ret;
	if (ret == -EPROTO)
		t->stats.garbage++;
	else
		t->stats.closed += ret == -ECONNRESET;
	sk_close(s);
	return ret == -EPROTO ? ret : -ECONNRESET;
}

/* ---- the reflector's connections ---- */

static struct tcp_conn *conn_of(struct sk *s)
{
	return (struct tcp_conn *)(void *)((char *)s - offsetof(struct tcp_conn, sk));
}

/* c may have a message: at the end of the turn. */
static void ring_push(struct tcp_state *t, struct tcp_conn *c)
{
	if (c->ready)
		return;
	c->ready = true;
	t->ring[(t->ring_head + t->ring_n++) % t->max] = (uint32_t)(c - t->conns);
}

static struct tcp_conn *ring_pop(struct tcp_state *t)
{
	struct tcp_conn *c;

	if (!t->ring_n)
		return NULL;
	c = &t->conns[t->ring[t->ring_head]];
	t->ring_head = (t->ring_head + 1) % t->max;
	t->ring_n--;
	c->ready = false;
	return c;
}

/* Close c (its slot is free again); drop what it grew past a new one's. */
static void conn_close(struct tcp_state *t, struct tcp_conn *c)
{
	sk_close(&c->sk);	/* and out of the epoll set */
	t->open--;
	if (t->solo == c)
		t->solo = NULL;
	c->rx.have = 0;
	if (c->rx.cap > TCP_CONN_RX_MIN) {
		free(c->rx.buf);
		c->rx.buf = NULL;
		c->rx.cap = 0;
	}
	free(c->out);
	c->out = NULL;
	c->out_cap = c->out_len = c->out_off = 0;
}

/* c's stream ended with ret (tcp_next): count why, close it. */
static void conn_lost(struct tcp_state *t, struct tcp_conn *c, int ret)
{
	if (ret == -EPROTO)
		t->stats.garbage++;
	else
		t->stats.closed++;
	conn_close(t, c);
}

/* Watch c in the epoll set, edge-triggered (added, it reports at once
 * what is already waiting). 0 or -errno. */
static int conn_watch(struct tcp_state *t, struct tcp_conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
				  .data.u32 = (uint32_t)(c - t->conns) };

	return epoll_ctl(t->ep, EPOLL_CTL_ADD, c->sk.fd, &ev) ? -errno : 0;
}

/*
 * Spinning with one client, its socket leaves the epoll set: the loop
 * reads it directly (one syscall, not epoll_wait() and a read), and the
 * kernel no longer calls into epoll for each of its packets and stamps.
 * It goes back when another connects, the loop blocks, or a pong waits
 * for room (EPOLLOUT).
 */
static void solo_begin(struct tcp_state *t, struct tcp_conn *c)
{
	if (t->solo != c && !epoll_ctl(t->ep, EPOLL_CTL_DEL, c->sk.fd, NULL))
		t->solo = c;
}

static void solo_end(struct tcp_state *t)
{
	struct tcp_conn *c = t->solo;

	t->solo = NULL;
	if (c && c->sk.fd >= 0 && conn_watch(t, c))
		conn_lost(t, c, -ECONNRESET);
}

/* Write what c kept of a pong: 0 (all of it, or as much as fits), or -errno. */
static int conn_flush(struct tcp_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->sk.fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EWOULDBLOCK ? 0 : -errno;
		c->out_off += (size_t)n;
	}
	return 0;
}

/* Keep bytes [from, framed) of a framed pong for conn_flush. 0 or -ENOMEM. */
static int conn_keep(struct tcp_conn *c, const void *buf, size_t len, size_t from)
{
	size_t framed = FRAME_PREFIX + len, n = framed - from;

	if (n > c->out_cap) {
		uint8_t *o = realloc(c->out, n);

		if (!o)
			return -ENOMEM;
		c->out = o;
		c->out_cap = n;
	}
	c->out_len = 0;
	c->out_off = 0;
	if (from < FRAME_PREFIX) {
		frame_put_len(c->out, (uint32_t)len);
		memmove(c->out, c->out + from, FRAME_PREFIX - from);
		c->out_len = FRAME_PREFIX - from;
		from = FRAME_PREFIX;
	}
	memcpy(c->out + c->out_len, (const uint8_t *)buf + from - FRAME_PREFIX, framed - from);
	c->out_len += framed - from;
	return 0;
}

/*
 * Room in c's send buffer for a pong of framed bytes, so that a long one
 * leaves in one non-blocking write as it did in a blocking one:
 * SO_SNDBUFFORCE (root), else SO_SNDBUF (up to net.core.wmem_max); the
 * kernel doubles it for its overhead. Once per length the connection
 * brings (a pong is never longer than its ping).
 */
static void conn_sndbuf(struct tcp_conn *c, size_t framed)
{
	if (framed <= TCP_SNDBUF_AUTO || framed <= c->sndbuf_for)
		return;
	c->sndbuf_for = framed;
	if (sk_sockopt_int(c->sk.fd, SOL_SOCKET, SO_SNDBUFFORCE, (int)framed))
		sk_sockopt_int(c->sk.fd, SOL_SOCKET, SO_SNDBUF, (int)framed);
}

/*
 * The reflector's reply on the connection via: never blocks (tcp.c's
 * head says what is kept, dropped and closed). 0 with *key, or -errno.
 */
static int tcp_reply(struct tcp_state *t, struct sk *via, const void *buf,
		     size_t len, uint32_t *key)
{
	struct tcp_conn *c = conn_of(via);
	size_t done;
	int ret;

	if (c->sk.fd < 0)
		return -ENOTCONN;
	if (c->out_off < c->out_len) {
		ret = conn_flush(c);
		if (!ret && c->out_off < c->out_len) {
			t->stats.pongs_dropped++;
			return -ENOBUFS;
		}
	} else {
		ret = 0;
	}
	conn_sndbuf(c, FRAME_PREFIX + len);
	if (!ret)
		ret = tcp_send_msg(t->cfg, &c->sk, buf, len, key, &done);
	if (ret == -EAGAIN) {
		ret = conn_keep(c, buf, len, done);
		if (t->solo == c)
			solo_end(t);	/* EPOLLOUT says when it has room */
	}
	if (ret) {
		conn_lost(t, c, ret);
		return -ENOTCONN;
	}
	return 0;
}

/* Close the connections that brought no whole message in the timeout. */
static void tcp_sweep(struct tcp_state *t, int64_t now)
{
	for (size_t i = 0; i < t->max; i++) {
		struct tcp_conn *c = &t->conns[i];

		if (c->sk.fd < 0)
			continue;
		if (c->msgs != c->msgs_seen) {
			c->msgs_seen = c->msgs;
			c->quiet_since = now;
			continue;
		}
		if (now - c->quiet_since < t->cfg->tcp_idle_ns)
			continue;
		if (c->rx.have)
			t->stats.partial_timeouts++;
		else
			t->stats.idle_timeouts++;
		conn_close(t, c);
	}
	t->next_sweep = now + t->cfg->tcp_idle_ns / 4;
}

/* A free slot, or NULL when --max-sessions connections are open. */
static struct tcp_conn *conn_free(struct tcp_state *t)
{
	if (t->open >= t->max)
		return NULL;
	for (size_t i = 0; i < t->max; i++)
		if (t->conns[i].sk.fd < 0)
			return &t->conns[i];
	return NULL;
}

/* The accepted fd on slot c: set up and watched (edge-triggered), or closed. */
static void conn_open(struct tcp_state *t, struct tcp_conn *c, int fd,
		      const struct sk *ls, const struct sockaddr_storage *peer,
		      socklen_t peer_len)
{
	char err[256];

	solo_end(t);
	c->sk.fd = fd;
	c->sk.family = ls->family;
	c->sk.ifindex = ls->ifindex;
	c->sk.peer = *peer;
	c->sk.peer_len = peer_len;
	c->rx.have = 0;
	c->msgs = c->msgs_seen = 0;
	c->sndbuf_for = 0;
	c->quiet_since = monotonic_ns();
	t->open++;
	if (!c->rx.buf && tcp_rx_grow(&c->rx, TCP_CONN_RX_MIN)) {
		conn_close(t, c);
		return;
	}
	if (tcp_established(t->cfg, &c->sk, err, sizeof(err)) || conn_watch(t, c)) {
		conn_close(t, c);
		return;
	}
	t->stats.accepted++;
	if (t->open > t->stats.max_open)
		t->stats.max_open = t->open;
}

/*
 * Accept what is waiting, up to TCP_ACCEPT_BATCH: 0, or -EACCES when one
 * came from outside --allow (closed at once; the rest wait for the next
 * call). Over --max-sessions, a connection is closed at once (refused).
 */
static int tcp_accept(struct tcp_state *t, const struct sk *ls)
{
	for (int i = 0; i < TCP_ACCEPT_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t peer_len = sizeof(peer);
		struct tcp_conn *c;
		int fd = accept4(t->listen_fd, (struct sockaddr *)&peer, &peer_len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return 0;
		if (!allow_match(&t->cfg->allow, (const struct sockaddr *)&peer)) {
			close(fd);
			return -EACCES;
		}
		c = conn_free(t);
		if (!c) {
			close(fd);
			t->stats.refused++;
			continue;
		}
		conn_open(t, c, fd, ls, &peer, peer_len);
	}
	return 0;
}

/*
 * One epoll_wait (with block, up to SK_REFLECT_WAKE_NS or the next
 * sweep): new connections accepted, those with something to read put in
 * the ring, kept pong bytes written. 0, -EAGAIN when nothing came, or
 * -errno (-EACCES: tcp_accept).
 */
static int tcp_poll(struct tcp_state *t, const struct sk *ls, bool block)
{
	struct epoll_event ev[TCP_EVENTS];
	int timeout_ms = 0, ret = 0, n;

	if (block || !(++t->polls % TCP_SWEEP_POLLS)) {
		int64_t now = monotonic_ns(), wait;

		if (now >= t->next_sweep)
			tcp_sweep(t, now);
		wait = t->next_sweep - now < SK_REFLECT_WAKE_NS ? t->next_sweep - now :
								 SK_REFLECT_WAKE_NS;
		if (block)
			timeout_ms = (int)((wait + NS_PER_MS - 1) / NS_PER_MS);
	}
	n = epoll_wait(t->ep, ev, TCP_EVENTS, timeout_ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		struct tcp_conn *c;

		if (ev[i].data.u32 == TCP_LISTEN_TAG) {
			int a = tcp_accept(t, ls);

			ret = a ? a : ret;
			continue;
		}
		c = &t->conns[ev[i].data.u32];
		if (c->sk.fd < 0)
			continue;
		if ((ev[i].events & EPOLLOUT) && conn_flush(c)) {
			conn_lost(t, c, -ECONNRESET);
			continue;
		}
		if (ev[i].events & ~(uint32_t)EPOLLOUT)
			ring_push(t, c);
	}
	return ret ? ret : n ? 0 : -EAGAIN;
}

/*
 * The reflector's receive: the next whole message of the ready
 * connections in turn (each goes to the end of the ring after one), else
 * one poll for more. m->via names the connection.
 */
static int tcp_reflect_recv(struct tcp_state *t, const struct sk *ls, void *buf,
			    size_t len, struct sk_msg *m, bool sw, bool block)
{
	struct tcp_conn *c;
	int ret;

	for (int round = 0; round < 2; round++) {
		while ((c = ring_pop(t))) {
			if (c->sk.fd < 0)
				continue;
			ret = tcp_next(c->sk.fd, &c->rx, t->cfg, buf, len, m, sw, false);
			if (ret == -EAGAIN)
				continue;	/* drained: epoll says when more comes */
			if (ret == 0 || ret == -EINTR)
				ring_push(t, c);
			if (ret == 0) {
				t->last = c;
				c->msgs++;
				m->src = c->sk.peer;
				m->src_len = c->sk.peer_len;
				m->via = &c->sk;
				return 0;
			}
			if (ret == -EINTR)
				return ret;
			conn_lost(t, c, ret);
			if (ret == -EPROTO)
				return ret;
		}
		if (round)
			break;
		/* one client, spinning: solo_begin(); still a poll now and then */
		c = t->last;
		if (!block && t->open == 1 && c && c->sk.fd >= 0 &&
		    c->out_off == c->out_len && ++t->spins % TCP_SOLO_POLLS) {
			solo_begin(t, c);
			ring_push(t, c);
			continue;
		}
		if (block)
			solo_end(t);
		ret = tcp_poll(t, ls, block);
		if (ret)
			return ret;
	}
	return -EAGAIN;
}

/* The reflector's connection table and ring, all slots free. */
static int tcp_conns_alloc(struct tcp_state *t, char *err, size_t len)
{
	struct rlimit rl;

	t->max = t->cfg->max_sessions ? t->cfg->max_sessions : 1;
	t->conns = calloc(t->max, sizeof(*t->conns));
	t->ring = calloc(t->max, sizeof(*t->ring));
	if (!t->conns || !t->ring) {
		snprintf(err, len, "cannot allocate the table of %zu TCP connections", t->max);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->max; i++)
		t->conns[i].sk.fd = -1;
	/* A descriptor for each, where the hard limit lets the soft one rise
	 * (1024 by default: below --max-sessions 4096). */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < t->max + TCP_SPARE_FDS) {
		rl.rlim_cur = rl.rlim_max < t->max + TCP_SPARE_FDS ? rl.rlim_max :
								    t->max + TCP_SPARE_FDS;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
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
	t->listen_fd = t->ep = -1;
	s->priv = t;
	ret = tcp_probe(s, cfg, err, len);
	if (ret)
		return ret;
	if (cfg->mode == MODE_REFLECT) {
		ret = tcp_conns_alloc(t, err, len);
		return ret ? ret : tcp_listen(t, s, err, len);
	}
	if (tcp_rx_grow(&t->rx, TCP_RX_CAP)) {
		snprintf(err, len, "cannot allocate the TCP receive buffer (%d bytes)", TCP_RX_CAP);
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
	for (size_t i = 0; t->conns && i < t->max; i++) {
		sk_close(&t->conns[i].sk);
		free(t->conns[i].rx.buf);
		free(t->conns[i].out);
	}
	if (t->ep >= 0)
		close(t->ep);
	free(t->conns);
	free(t->ring);
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
	return reply && reply->via ? tcp_reply(t, reply->via, buf, len, key) : -ENOTCONN;
}

static int tcp_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m,
		    bool sw, bool block)
{
	struct tcp_state *t = s->priv;

	if (t->cfg->mode == MODE_EMIT)
		return tcp_emit_recv(t, s, buf, len, m, sw, block);
	return tcp_reflect_recv(t, s, buf, len, m, sw, block);
}

const struct transport transport_tcp = {
	.name = "tcp",
	.caps = { .stream = true, .ack_stamps = true, .max_len = RANT_TCP_MAX_LEN },
	.open = tcp_open,
	.close = tcp_close,
	.send = tcp_send,
	.recv = tcp_recv,
};
