// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --tcp reflector's connections (see tcpserve.h): each a struct sk
 * of its own (its fd, peer, OPT_ID byte count and TX stash, so each
 * stamp is matched on the connection its pong left on), served from one
 * epoll set:
 * - recv returns the next whole message of any connection, taking them
 *   in turn (a busy one cannot starve the others), with m->via naming
 *   its connection; send with that message as reply answers on it.
 * - At most --max-sessions connections are open (each is its own
 *   session), at most --max-sessions-per-address from one address, as
 *   the UDP reflector's sessions (session.h): a newcomer over its
 *   address's share takes the slot of its address's connection idle
 *   SESSION_IDLE_NS, or is closed at once (refused, counted in the
 *   reflector's counts.refused: tcpserve_recv returns -ECONNREFUSED);
 *   in a full table it takes the slot of the least used connection
 *   (session_use_worse(): fewest messages in the last one to two
 *   seconds, counted once a second), which is closed (evicted). No
 *   client waits in the backlog (SOMAXCONN) behind the others, and
 *   connections that ping rarely cannot keep one that pings often out.
 *   A line on stderr, at most one a second, says what was turned away.
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
 * - A connection that brought messages and closed (for whatever reason)
 *   is told to the caller: tcpserve_recv returns -ECONNRESET with its
 *   peer in m->src, so its session (one connection, one sender port)
 *   can be given up at once (sessions_closed()); up to TCP_CLOSED_MAX
 *   wait to be told, beyond that the oldest are forgotten (their
 *   sessions then age out as idle ones).
 * Buffers grow with the messages a connection brings (TCP_CONN_RX_MIN at
 * accept, up to one message): set up per connection, not per message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "allow.h"
#include "session.h"
#include "tcpserve.h"
#include "tcpstream.h"
#include "timeutil.h"

#define TCP_CONN_RX_MIN 4096	/* a connection's first buffer */
#define TCP_ACCEPT_BATCH 16	/* accepts per call: the loop goes on between */
#define TCP_EVENTS 32
#define TCP_SWEEP_POLLS 256	/* spinning: empty polls between clock reads */
#define TCP_SOLO_POLLS 64	/* spinning, one client: its reads per poll */
#define TCP_SPARE_FDS 64	/* descriptors beside the connections' */
#define TCP_SNDBUF_AUTO (64 * 1024)	/* pongs this long fit the kernel's own */
#define TCP_LISTEN_TAG UINT32_MAX	/* epoll data of the listening socket */
#define TCP_CLOSED_MAX 64	/* closed connections waiting to be told */

/* One of the reflector's connections. */
struct tcp_conn {
	struct sk sk;			/* fd (-1: slot free), peer, tx_key, stash */
	struct tcpstream_rx rx;
	uint8_t *out;			/* bytes of a pong the socket did not take */
	size_t out_cap, out_len, out_off;
	size_t sndbuf_for;		/* the longest pong its send buffer was sized for */
	uint64_t msgs, msgs_seen;	/* whole messages; as the last sweep saw */
	int64_t quiet_since;		/* monotonic ns: no message since */
	uint64_t msgs_tick;		/* msgs at the last use tick (once a second) */
	uint32_t use_prev;		/* messages in the second before that tick */
	int64_t active_ns;		/* accepted, or the last tick that saw a message */
	bool ready;			/* in the ready ring: may have a message */
};

struct tcpserve {
	const struct rant_cfg *cfg;
	struct tcp_stats *stats;	/* the transport's */
	int listen_fd, ep;
	struct tcp_conn *conns;		/* max slots */
	size_t max, open;
	uint32_t *ring;			/* ready connections, in turn */
	size_t ring_head, ring_n;
	int64_t next_sweep;		/* monotonic ns */
	unsigned int polls, spins;
	struct tcp_conn *last;		/* the last one a message came from */
	struct tcp_conn *solo;		/* the one client, out of the epoll set */
	int64_t next_tick;		/* monotonic ns: the next use tick */
	/* the line on what was turned away: when last, the counts it gave */
	int64_t notice_ns;
	bool noticed, last_refused;
	uint64_t said_refused, said_evicted;
	struct sockaddr_storage last_peer;
	/* connections that brought messages and closed, to tell the caller */
	struct closed_peer {
		struct sockaddr_storage addr;
		socklen_t len;
	} closed[TCP_CLOSED_MAX];
	size_t closed_head, closed_n;
};

static struct tcp_conn *conn_of(struct sk *s)
{
	return (struct tcp_conn *)(void *)((char *)s - offsetof(struct tcp_conn, sk));
}

/* c may have a message: at the end of the turn. */
static void ring_push(struct tcpserve *t, struct tcp_conn *c)
{
	if (c->ready)
		return;
	c->ready = true;
	t->ring[(t->ring_head + t->ring_n++) % t->max] = (uint32_t)(c - t->conns);
}

static struct tcp_conn *ring_pop(struct tcpserve *t)
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

/* c, which brought messages, is closing: its peer to tell the caller
 * (the oldest forgotten when TCP_CLOSED_MAX wait). */
static void closed_push(struct tcpserve *t, const struct tcp_conn *c)
{
	size_t i = (t->closed_head + t->closed_n) % TCP_CLOSED_MAX;

	if (t->closed_n == TCP_CLOSED_MAX) {
		t->closed_head = (t->closed_head + 1) % TCP_CLOSED_MAX;
		t->closed_n--;
	}
	t->closed[i] = (struct closed_peer){ c->sk.peer, c->sk.peer_len };
	t->closed_n++;
}

/* The oldest closed peer told into m (no connection: m->via NULL). */
static void closed_pop(struct tcpserve *t, struct sk_msg *m)
{
	const struct closed_peer *p = &t->closed[t->closed_head];

	m->src = p->addr;
	m->src_len = p->len;
	m->via = NULL;
	t->closed_head = (t->closed_head + 1) % TCP_CLOSED_MAX;
	t->closed_n--;
}

/* Close c (its slot is free again); drop what it grew past a new one's. */
static void conn_close(struct tcpserve *t, struct tcp_conn *c)
{
	if (c->msgs)
		closed_push(t, c);
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
static void conn_lost(struct tcpserve *t, struct tcp_conn *c, int ret)
{
	if (ret == -EPROTO)
		t->stats->garbage++;
	else
		t->stats->closed++;
	conn_close(t, c);
}

/* Watch c in the epoll set, edge-triggered (added, it reports at once
 * what is already waiting). 0 or -errno. */
static int conn_watch(struct tcpserve *t, struct tcp_conn *c)
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
static void solo_begin(struct tcpserve *t, struct tcp_conn *c)
{
	if (t->solo != c && !epoll_ctl(t->ep, EPOLL_CTL_DEL, c->sk.fd, NULL))
		t->solo = c;
}

static void solo_end(struct tcpserve *t)
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

int tcpserve_reply(struct tcpserve *t, struct sk *via, const void *buf,
		     size_t len, bool stamped, uint32_t *key)
{
	struct tcp_conn *c = conn_of(via);
	size_t done;
	int ret;

	if (c->sk.fd < 0)
		return -ENOTCONN;
	if (c->out_off < c->out_len) {
		ret = conn_flush(c);
		if (!ret && c->out_off < c->out_len) {
			t->stats->pongs_dropped++;
			return -ENOBUFS;
		}
	} else {
		ret = 0;
	}
	conn_sndbuf(c, FRAME_PREFIX + len);
	if (!ret)
		ret = tcpstream_send(t->cfg, &c->sk, buf, len, stamped, key, &done);
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
static void tcp_sweep(struct tcpserve *t, int64_t now)
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
			t->stats->partial_timeouts++;
		else
			t->stats->idle_timeouts++;
		conn_close(t, c);
	}
	t->next_sweep = now + t->cfg->tcp_idle_ns / 4;
}

/* Once a second: each connection's messages in the second that ended. */
static void use_tick(struct tcpserve *t, int64_t now)
{
	for (size_t i = 0; i < t->max; i++) {
		struct tcp_conn *c = &t->conns[i];

		if (c->sk.fd < 0)
			continue;
		c->use_prev = (uint32_t)(c->msgs - c->msgs_tick);
		if (c->msgs != c->msgs_tick)
			c->active_ns = now;
		c->msgs_tick = c->msgs;
	}
	t->next_tick = now + SESSION_USE_NS;
}

/* c as the eviction rule sees it at now. */
static struct session_use conn_use(const struct tcp_conn *c, int64_t now)
{
	uint32_t fresh = (uint32_t)(c->msgs - c->msgs_tick);

	return (struct session_use){ .idle = !fresh && now - c->active_ns >= SESSION_IDLE_NS,
				     .recent = fresh + c->use_prev, .last_ns = c->active_ns };
}

/* The line on what was turned away, at most one a SESSION_NOTICE_NS. */
static void notice(struct tcpserve *t, const struct sockaddr_storage *peer, bool refused,
		   int64_t now)
{
	char addr[INET6_ADDRSTRLEN + 16];

	t->last_peer = *peer;
	t->last_refused = refused;
	if (t->noticed && now - t->notice_ns < SESSION_NOTICE_NS)
		return;
	session_sockaddr_str(&t->last_peer, true, addr, sizeof(addr));
	fprintf(stderr, "rant: tcp connections%s: %" PRIu64 " refused, %" PRIu64
		" evicted; the last, %s, %s\n", t->noticed ? " since the last line" : "",
		t->stats->refused - t->said_refused, t->stats->evicted - t->said_evicted, addr,
		t->last_refused ?
		"refused: its address holds --max-sessions-per-address connections, all live" :
		"evicted: --max-sessions connections were open, it was the idlest or least used");
	fflush(stderr);
	t->noticed = true;
	t->notice_ns = now;
	t->said_refused = t->stats->refused;
	t->said_evicted = t->stats->evicted;
}

/* Close c to make room (counted and said). */
static struct tcp_conn *conn_evict(struct tcpserve *t, struct tcp_conn *c, int64_t now)
{
	struct sockaddr_storage peer = c->sk.peer;

	conn_close(t, c);
	t->stats->evicted++;
	notice(t, &peer, false, now);
	return c;
}

/*
 * The slot for a connection from peer (tcpserve.c's head): a free one, or
 * an evicted connection's; NULL: refused (counted and said).
 */
static struct tcp_conn *conn_slot(struct tcpserve *t, const struct sockaddr_storage *peer,
				  int64_t now)
{
	struct tcp_conn *own = NULL, *victim = NULL, *free_slot = NULL;
	size_t n = 0, per_addr = t->cfg->max_per_address;
	struct session_use vu = { 0 };

	for (size_t i = 0; i < t->max; i++) {
		struct tcp_conn *c = &t->conns[i];
		struct session_use u;

		if (c->sk.fd < 0) {
			free_slot = free_slot ? free_slot : c;
			continue;
		}
		if (session_same_host(&c->sk.peer, (const struct sockaddr *)peer) &&
		    (!n++ || c->active_ns < own->active_ns))
			own = c;
		u = conn_use(c, now);
		if (!victim || session_use_worse(&u, &vu)) {
			victim = c;
			vu = u;
		}
	}
	if (per_addr && n >= per_addr) {
		if (conn_use(own, now).idle)
			return conn_evict(t, own, now);
		t->stats->refused++;
		notice(t, peer, true, now);
		return NULL;
	}
	if (free_slot)
		return free_slot;
	return victim ? conn_evict(t, victim, now) : NULL;
}

/* The accepted fd on slot c: set up and watched (edge-triggered), or closed. */
static void conn_open(struct tcpserve *t, struct tcp_conn *c, int fd,
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
	c->msgs = c->msgs_seen = c->msgs_tick = 0;
	c->use_prev = 0;
	c->sndbuf_for = 0;
	c->quiet_since = c->active_ns = monotonic_ns();
	t->open++;
	if (!c->rx.buf && tcpstream_grow(&c->rx, TCP_CONN_RX_MIN)) {
		conn_close(t, c);
		return;
	}
	if (tcpstream_established(t->cfg, &c->sk, err, sizeof(err)) || conn_watch(t, c)) {
		conn_close(t, c);
		return;
	}
	t->stats->accepted++;
	if (t->open > t->stats->max_open)
		t->stats->max_open = t->open;
}

/*
 * Accept what is waiting, up to TCP_ACCEPT_BATCH: 0, or -EACCES when one
 * came from outside --allow, -ECONNREFUSED when one was refused
 * (conn_slot()), each closed at once (the rest wait for the next call).
 */
static int tcp_accept(struct tcpserve *t, const struct sk *ls)
{
	int64_t now = monotonic_ns();

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
		c = conn_slot(t, &peer, now);
		if (!c) {
			close(fd);
			return -ECONNREFUSED;
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
static int tcp_poll(struct tcpserve *t, const struct sk *ls, bool block)
{
	struct epoll_event ev[TCP_EVENTS];
	int timeout_ms = 0, ret = 0, n;

	if (block || !(++t->polls % TCP_SWEEP_POLLS)) {
		int64_t now = monotonic_ns(), wait;

		if (now >= t->next_sweep)
			tcp_sweep(t, now);
		if (now >= t->next_tick)
			use_tick(t, now);
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

int tcpserve_recv(struct tcpserve *t, const struct sk *ls, void *buf,
			    size_t len, struct sk_msg *m, bool sw, bool block)
{
	struct tcp_conn *c;
	int ret;

	if (t->closed_n) {
		closed_pop(t, m);
		return -ECONNRESET;
	}
	for (int round = 0; round < 2; round++) {
		while ((c = ring_pop(t))) {
			if (c->sk.fd < 0)
				continue;
			ret = tcpstream_next(c->sk.fd, &c->rx, t->cfg, buf, len, m, sw, false);
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
static int serve_alloc(struct tcpserve *t, char *err, size_t len)
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

struct tcpserve *tcpserve_create(const struct rant_cfg *cfg, int listen_fd,
				 struct tcp_stats *stats, char *err, size_t len)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TCP_LISTEN_TAG };
	struct tcpserve *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, len, "cannot allocate the TCP reflector's state");
		return NULL;
	}
	t->cfg = cfg;
	t->stats = stats;
	t->listen_fd = listen_fd;
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (serve_alloc(t, err, len))
		goto fail;
	if (t->ep < 0 || epoll_ctl(t->ep, EPOLL_CTL_ADD, listen_fd, &ev)) {
		snprintf(err, len, "epoll for the TCP reflector: %s", strerror(errno));
		goto fail;
	}
	return t;
fail:
	tcpserve_destroy(t);
	return NULL;
}

void tcpserve_destroy(struct tcpserve *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->conns && i < t->max; i++) {
		sk_close(&t->conns[i].sk);
		free(t->conns[i].rx.buf);
		free(t->conns[i].out);
	}
	if (t->ep >= 0)
		close(t->ep);
	free(t->conns);
	free(t->ring);
	free(t);
}
