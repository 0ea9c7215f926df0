// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One TCP stream of rant's messages (see tcpstream.h).
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "missing.h"
#include "tcpstream.h"
#include "timeutil.h"

#define CMSG_BUF 256

/* The TCP options of --nodelay, and the send timeout. */
static int stream_options(int fd, const struct rant_cfg *cfg)
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

int tcpstream_established(const struct rant_cfg *cfg, struct sk *s, char *err,
			   size_t len)
{
	unsigned int flags = 0;
	socklen_t fl = sizeof(flags);
	int ret;

	ret = sk_configure(s, cfg, err, len);
	if (!ret && cfg->mode == MODE_EMIT) {
		if (getsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &fl) == 0) {
			flags |= SOF_TIMESTAMPING_TX_ACK;
			if (setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
				ret = -errno;
		} else {
			ret = -errno;
		}
		if (ret)
			snprintf(err, len, "setsockopt SO_TIMESTAMPING (TX_ACK) on TCP: %s", strerror(-ret));
	}
	if (!ret && (ret = stream_options(s->fd, cfg)))
		snprintf(err, len, "setsockopt on the TCP connection: %s", strerror(-ret));
	s->tx_key = 0;
	memset(s->stash, 0, sizeof(s->stash));
	return ret;
}

/*
 * Write bytes [*a, b) of the framed message (prefix, then buf), advancing
 * *a: 0 when all are written, -EAGAIN when the socket takes no more (full,
 * or the emitter's send timeout), or -errno. Not stamped: without TX
 * stamps (tcpstream_send).
 */
static int stream_write(int fd, const uint8_t *pfx, const uint8_t *buf,
		     size_t *a, size_t b, bool stamped)
{
	union {
		char b[TS_NO_TX_CMSG_LEN];
		struct cmsghdr align;
	} ctl;
	size_t ctl_len = stamped ? 0 : ts_no_tx_cmsg(ctl.b);

	while (*a < b) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov, .msg_control = ctl_len ? ctl.b : NULL,
				      .msg_controllen = ctl_len };
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

int tcpstream_send(const struct rant_cfg *cfg, struct sk *s, const void *buf,
			size_t len, bool stamped, uint32_t *key, size_t *done)
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
		/* The emitter's T1: its first write's leaving (the ping starts
		 * out); the reflector's T3: its last byte's (a pong held by
		 * Nagle leaves in parts, and its response ends with the last) */
		if (first || cfg->mode == MODE_REFLECT)
			*key = s->tx_key + (uint32_t)b - 1;
		first = false;
		ret = stream_write(s->fd, pfx, buf, &a, b, stamped);
	}
	if (cfg->cork)
		sk_sockopt_int(s->fd, IPPROTO_TCP, TCP_CORK, 0);
	*done = a;
	if (!ret || ret == -EAGAIN)
		s->tx_key += (uint32_t)framed;	/* OPT_ID counts bytes on TCP */
	return ret;
}

/*
 * One read into rx (up to its room), with its RX stamps: >0 bytes, or
 * -errno (-ECONNRESET when the peer closed, -EAGAIN when nothing came).
 */
static ssize_t stream_read(int fd, struct tcpstream_rx *rx, const struct rant_cfg *cfg,
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

int tcpstream_grow(struct tcpstream_rx *rx, size_t need)
{
	size_t cap = rx->cap * 2 > need ? rx->cap * 2 : need;
	uint8_t *b;

	if (cap > TCPSTREAM_MAX)
		cap = TCPSTREAM_MAX;
	b = realloc(rx->buf, cap);
	if (!b)
		return -ENOMEM;
	rx->buf = b;
	rx->cap = cap;
	return 0;
}

/* Hand the whole message of mlen bytes at rx's start to the caller. */
static void stream_take(struct tcpstream_rx *rx, void *buf, size_t len, uint32_t mlen,
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
	m->ttl = 0;		/* a stream has none a message */
	m->tos = -1;
	m->dst_known = false;
	rx->have -= used;
	if (rx->have)
		memmove(rx->buf, rx->buf + used, rx->have);
}

int tcpstream_next(int fd, struct tcpstream_rx *rx, const struct rant_cfg *cfg,
		    void *buf, size_t len, struct sk_msg *m, bool sw, bool block)
{
	enum frame_state st;
	uint32_t mlen = 0;
	ssize_t n;

	for (;;) {
		st = frame_check(rx->buf, rx->have, RANT_TCP_MAX_LEN, &mlen);
		if (st == FRAME_WHOLE) {
			stream_take(rx, buf, len, mlen, m);
			return 0;
		}
		if (st != FRAME_NEED)
			return -EPROTO;
		if (rx->have >= FRAME_PREFIX && FRAME_PREFIX + mlen > rx->cap &&
		    tcpstream_grow(rx, FRAME_PREFIX + mlen))
			return -ENOMEM;
		n = stream_read(fd, rx, cfg, sw, block);
		if (n < 0)
			return (int)n;
	}
}
