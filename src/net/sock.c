// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The measuring socket (see sock.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "missing.h"
#include "skpeer.h"
#include "sock.h"
#include "timeutil.h"

int sk_sockopt_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) ? -errno : 0;
}

static int sk_busy_poll(struct sk *s, const struct rant_cfg *cfg, char *err,
			size_t len)
{
	int ret = 0;

	if (!cfg->busy_poll_us)
		return 0;
	ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_BUSY_POLL, cfg->busy_poll_us);
	if (!ret && cfg->budget)
		ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, cfg->budget);
	if (!ret && cfg->prefer_busypoll)
		ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, 1);
	if (ret == -EPERM)
		snprintf(err, len, "busy-poll options above net.core.busy_read need CAP_NET_ADMIN: run as root");
	else if (ret)
		snprintf(err, len, "setsockopt SO_BUSY_POLL family failed: %s (kernel too old for -B/-P?)",
			 strerror(-ret));
	return ret;
}

int sk_init(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->ifindex = if_nametoindex(cfg->iface);
	if (!s->ifindex) {
		snprintf(err, len, "%s: no such interface (ip link lists them; in a namespace, run rant under ip netns exec)",
			 cfg->iface);
		return -ENODEV;
	}
	if (cfg->mode == MODE_REFLECT || !cfg->addr) {
		s->family = AF_INET6;	/* dual stack: serves IPv4 too */
		return 0;
	}
	ret = sk_peer_resolve(cfg->addr, cfg->port, s->ifindex, cfg->iface, &s->peer,
			      &s->peer_len, err, len);
	s->family = s->peer.ss_family;
	return ret;
}

/*
 * Decide the wire stamps (hwts.h) before any packet: where the NIC
 * cannot stamp, s->hw stays false and hw_note says why.
 */
unsigned int sk_ts_flags(const struct sk *s, const struct rant_cfg *cfg)
{
	/* a probe's requests: no SCHED stamp (their queue is not a metric) */
	unsigned int flags = ts_flags(s->hw, !cfg->no_queue_stamps && !cfg_requests(cfg));

	if ((cfg->tcp || cfg_requests(cfg)) && cfg->mode == MODE_EMIT)
		flags |= SOF_TIMESTAMPING_TX_ACK;	/* tcpstream_established() */
	return flags;
}

static int sk_timestamping(struct sk *s, const struct rant_cfg *cfg, char *err,
			   size_t len)
{
	int ret;

	ret = hwts_setup(s->fd, cfg->iface, cfg->no_hw_ts, cfg->ptp_mode, &s->hwts,
			 s->hw_note, sizeof(s->hw_note), err, len);
	if (ret)
		return ret;
	s->hw = s->hwts.hw;
	ret = ts_sock_enable(s->fd, s->hw, !cfg->no_queue_stamps);
	if (ret)
		snprintf(err, len, "setsockopt SO_TIMESTAMPING: %s", strerror(-ret));
	return ret;
}

/* How long a blocking receive waits: the emitter's --timeout; the
 * reflector wakes to check -d and signals. */
static int sk_rcvtimeo(struct sk *s, const struct rant_cfg *cfg, char *err,
		       size_t len)
{
	struct timespec ts = ns_to_timespec(cfg->mode == MODE_EMIT ?
					    cfg->timeout_ns : SK_REFLECT_WAKE_NS);
	struct timeval tv = { .tv_sec = ts.tv_sec, .tv_usec = ts.tv_nsec / 1000 };
	int ret = 0;

	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		snprintf(err, len, "setsockopt SO_RCVTIMEO: %s", strerror(-ret));
	}
	return ret;
}

/*
 * SO_RXQ_OVFL: each datagram comes with the count of those the queue
 * dropped. Set before bind()/connect(), while that count is still 0.
 */
static int sk_drop_count(struct sk *s, char *err, size_t len)
{
	int ret = sk_sockopt_int(s->fd, SOL_SOCKET, SO_RXQ_OVFL, 1);

	if (ret)
		snprintf(err, len, "setsockopt SO_RXQ_OVFL: %s (kernel drops could not be counted)",
			 strerror(-ret));
	s->drops = 0;
	s->drops_raw = 0;
	return ret;
}

/*
 * --stamp's reflector copies each request's TTL (Hop Limit) into its
 * reply: the kernel hands it over with each datagram (IPv4-mapped
 * senders on the dual-stack socket by IP_RECVTTL).
 */
static int sk_recv_ttl(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret;

	s->want_ttl = cfg->stamp && cfg->mode == MODE_REFLECT;
	s->want_tos = false;
	if (!s->want_ttl)
		return 0;
	ret = sk_sockopt_int(s->fd, IPPROTO_IP, IP_RECVTTL, 1);
	if (!ret && s->family == AF_INET6)
		ret = sk_sockopt_int(s->fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1);
	if (ret)
		snprintf(err, len, "setsockopt IP_RECVTTL/IPV6_RECVHOPLIMIT: %s (the STAMP reflector reports the received TTL)",
			 strerror(-ret));
	return ret;
}

/*
 * Read each datagram's TOS too (IP_RECVTOS, IPV6_RECVTCLASS): every UDP
 * reflector's, at set-up (sk_recv_dst), so that each session's DSCP and,
 * from a STAMP reflector's first request on, a Class of Service TLV are
 * answered from it. The kernel's report costs every datagram (0.7% of a
 * veth round trip, doc/stamp.md). 0 or -errno; asked once either way
 * (s->want_tos).
 */
static int sk_recv_tos(struct sk *s)
{
	int ret;

	s->want_tos = true;	/* asked once, whatever the kernel says */
	ret = sk_sockopt_int(s->fd, IPPROTO_IP, IP_RECVTOS, 1);
	if (!ret && s->family == AF_INET6)
		ret = sk_sockopt_int(s->fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
	return ret;
}

int sk_set_tos(struct sk *s, int tos, char *err, size_t len)
{
	int ret = 0;

	if (!tos)
		return 0;
	if (s->family == AF_INET6)
		ret = sk_sockopt_int(s->fd, IPPROTO_IPV6, IPV6_TCLASS, tos);
	if (!ret)
		ret = sk_sockopt_int(s->fd, IPPROTO_IP, IP_TOS, tos);
	if (ret)
		snprintf(err, len, "setsockopt IP_TOS/IPV6_TCLASS %d (--dscp %d): %s", tos, tos >> 2,
			 strerror(-ret));
	return ret;
}

int sk_iface_addrs(const char *iface, unsigned int *v4, unsigned int *v6)
{
	struct ifaddrs *ifa, *a;

	*v4 = *v6 = 0;
	if (getifaddrs(&ifa))
		return -errno;
	for (a = ifa; a; a = a->ifa_next) {
		if (!a->ifa_addr || !a->ifa_name || strcmp(a->ifa_name, iface))
			continue;
		if (a->ifa_addr->sa_family == AF_INET)
			(*v4)++;
		else if (a->ifa_addr->sa_family == AF_INET6 &&
			 !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr))
			(*v6)++;
	}
	freeifaddrs(ifa);
	return 0;
}

bool sk_iface_several(const char *iface)
{
	unsigned int v4, v6;

	return !sk_iface_addrs(iface, &v4, &v6) && (v4 > 1 || v6 > 1);
}

int sk_ask_dst(int fd, int family)
{
	return family == AF_INET6 ? sk_sockopt_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1) :
	       sk_sockopt_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
}

/*
 * The UDP reflector tells the DSCP each ping came with (a path that
 * re-marks shows), and on an interface of more than one address of a
 * family answers each from the address it was sent to (sk_reply_cmsg):
 * the kernel hands both over with each datagram (IPv4-mapped senders on
 * the dual-stack socket too: IP_RECVTOS). With one address the kernel's
 * own choice is that one, and the PKTINFO's price (about 5% of a veth
 * round trip: doc/fleet.md) is not paid until a second address comes
 * (addrwatch.h).
 */
static int sk_recv_dst(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret;

	if (cfg->mode != MODE_REFLECT || cfg->tcp)
		return 0;
	s->want_dst = sk_iface_several(cfg->iface);
	ret = s->want_dst ? sk_ask_dst(s->fd, s->family) : 0;
	if (!ret)
		ret = sk_recv_tos(s);
	if (ret)
		snprintf(err, len, "setsockopt IPV6_RECVPKTINFO/IP_PKTINFO, IP_RECVTOS/IPV6_RECVTCLASS: %s (the reflector answers from the address each ping came to, and tells the DSCP it came with)",
			 strerror(-ret));
	return ret;
}

int sk_configure(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret;

	if (setsockopt(s->fd, SOL_SOCKET, SO_BINDTODEVICE, cfg->iface,
		       (socklen_t)strlen(cfg->iface) + 1)) {
		ret = -errno;
		if (ret == -EPERM)
			snprintf(err, len, "binding to %s needs CAP_NET_RAW: run as root (or setcap cap_net_raw,cap_net_admin,cap_ipc_lock+ep rant)",
				 cfg->iface);
		else
			snprintf(err, len, "setsockopt SO_BINDTODEVICE %s: %s", cfg->iface, strerror(-ret));
		return ret;
	}
	ret = sk_busy_poll(s, cfg, err, len);
	if (!ret)
		ret = sk_timestamping(s, cfg, err, len);
	if (!ret)
		ret = sk_drop_count(s, err, len);
	if (!ret)
		ret = sk_rcvtimeo(s, cfg, err, len);
	if (!ret)
		ret = sk_recv_ttl(s, cfg, err, len);
	if (!ret)
		ret = sk_recv_dst(s, cfg, err, len);
	if (!ret && cfg->mode == MODE_EMIT)
		ret = sk_set_tos(s, cfg->dscp << 2, err, len);
	return ret;
}

int sk_configure_check(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len)
{
	int ret = sk_socket(s, cfg, SOCK_DGRAM, err, len);

	if (ret)
		return ret;
	ret = sk_configure(s, cfg, err, len);
	sk_close(s);
	return ret;
}

int sk_socket(struct sk *s, const struct rant_cfg *cfg, int type, char *err,
	      size_t len)
{
	int ret;

	s->fd = socket(s->family, type | SOCK_CLOEXEC, 0);
	if (s->fd < 0 && cfg->mode == MODE_REFLECT && errno == EAFNOSUPPORT) {
		s->family = AF_INET;	/* IPv6 disabled on this host */
		s->fd = socket(s->family, type | SOCK_CLOEXEC, 0);
	}
	if (s->fd < 0) {
		ret = -errno;
		snprintf(err, len, "socket: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

socklen_t sk_any_addr(int fd, int family, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		sk_sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return sizeof(*in6);
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_port = htons(port);
	return sizeof(struct sockaddr_in);
}

void sk_close(struct sk *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int sk_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m, bool sw,
	    bool block)
{
	char control[SK_CMSG_BUF];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	/* A connected socket (the emitter's: s->peer) hears only its peer:
	 * the kernel is not asked to copy the sender out, as the floor's
	 * client does not, inside the round trip. */
	struct msghdr msg = {
		.msg_name = s->peer_len ? NULL : &m->src,
		.msg_namelen = s->peer_len ? 0 : sizeof(m->src),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	ssize_t n;

	n = recvmsg(s->fd, &msg, block ? 0 : MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	m->sw_ns = sw ? realtime_ns() : TS_NONE;
	m->len = n;
	m->src_len = msg.msg_namelen;
	m->via = NULL;
	if (msg.msg_flags & MSG_TRUNC)
		m->len = -1;	/* larger than any valid datagram */
	sk_rx_msg(s, &msg, m);
	return 0;
}

void sk_rx_cmsg(struct sk *s, const struct msghdr *msg, struct sk_msg *m)
{
	struct ts_rx rx;

	ts_parse_rxmsg(msg, &rx);	/* one walk for all three */
	m->rx = rx.ts;
	if (rx.drops_ret == 0)
		sk_drops_seen(s, rx.drops);
	m->ttl = s->want_ttl && rx.ttl_ret == 0 ? rx.ttl : 0;
	m->dst_known = (s->want_dst || s->dst_watched) && ts_parse_dst(msg, m->dst) == 0;
	s->want_dst |= m->dst_known;	/* asked since the start: the fast path's now */
	m->tos = (s->want_ttl || s->want_tos) && rx.tos_ret == 0 ? rx.tos : -1;
	m->tos_out = -1;
	m->unstamped = false;
}

size_t sk_reply_cmsg(const struct sk *s, const struct sk_msg *reply, void *buf)
{
	struct cmsghdr *c = buf;
	unsigned char *d = CMSG_DATA(c);

	if (!reply->dst_known)
		return 0;
	/* each reply's: the fields written in place, the padding left as it is */
	if (s->family == AF_INET6) {
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(struct in6_pktinfo));
		memcpy(d + offsetof(struct in6_pktinfo, ipi6_addr), reply->dst, 16);
		memset(d + offsetof(struct in6_pktinfo, ipi6_ifindex), 0, sizeof(int));
		return CMSG_SPACE(sizeof(struct in6_pktinfo));
	}
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	memset(d, 0, sizeof(struct in_pktinfo));
	memcpy(d + offsetof(struct in_pktinfo, ipi_spec_dst), reply->dst + 12, 4);
	return CMSG_SPACE(sizeof(struct in_pktinfo));
}

size_t sk_tos_cmsg(const struct sk_msg *reply, void *buf)
{
	const struct sockaddr_in6 *d = (const struct sockaddr_in6 *)&reply->src;
	bool v6 = d->sin6_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&d->sin6_addr);
	struct cmsghdr c = { .cmsg_len = CMSG_LEN(sizeof(int)),
			     .cmsg_level = v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			     .cmsg_type = v6 ? IPV6_TCLASS : IP_TOS };
	int tos = reply->tos_out;

	if (tos < 0)
		return 0;
	memset(buf, 0, SK_TOS_CMSG_LEN);
	memcpy(buf, &c, sizeof(c));
	memcpy((char *)buf + CMSG_LEN(0), &tos, sizeof(tos));
	return SK_TOS_CMSG_LEN;
}

void sk_drops_seen(struct sk *s, uint32_t count)
{
	s->drops += (uint32_t)(count - s->drops_raw);
	s->drops_raw = count;
}

/* The kernel's u32 count of fd's drops into *count: 0, or -1. */
static int meminfo_drops(int fd, uint32_t *count)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		return -1;
	*count = mem[SK_MEMINFO_DROPS];
	return 0;
}

uint64_t sk_drops(struct sk *s)
{
	uint32_t count;

	if (!meminfo_drops(s->fd, &count))
		sk_drops_seen(s, count);
	return s->drops;
}

uint64_t sk_drops_peek(const struct sk *s)
{
	uint32_t count;

	return meminfo_drops(s->fd, &count) ? 0 : count;
}

/* One error-queue entry: 0 with a TX stamp report, -ENOMSG for another
 * entry, -EAGAIN when none can be read: empty, or the socket is gone (a
 * TCP connection that broke has fd -1; looping on EBADF would hang). */
static int errqueue_read(struct sk *s, struct ts_tx *tx)
{
	char control[SK_CMSG_BUF];
	struct msghdr msg = {
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};

	if (recvmsg(s->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return -EAGAIN;
	if (ts_parse_tx(&msg, tx) || (tx->type != SCM_TSTAMP_SND &&
				      tx->type != SCM_TSTAMP_SCHED &&
				      tx->type != SCM_TSTAMP_ACK))
		return -ENOMSG;
	return 0;
}

static void stash_put(struct sk *s, const struct ts_tx *tx)
{
	struct sk_stash *e = &s->stash[(tx->key + tx->type) % SK_STASH];

	e->key = tx->key;
	e->type = tx->type;
	e->ts = tx->ts;
	e->used = true;
}

static bool stash_take(struct sk *s, uint32_t key, uint32_t type,
		       struct ts_stamps *ts)
{
	struct sk_stash *e = &s->stash[(key + type) % SK_STASH];

	if (!e->used || e->key != key || e->type != type)
		return false;
	e->used = false;
	*ts = e->ts;
	return true;
}

static void errqueue_drain(struct sk *s)
{
	struct ts_tx tx;
	int err, ret;
	socklen_t len = sizeof(err);

	while ((ret = errqueue_read(s, &tx)) != -EAGAIN)
		if (ret == 0)
			stash_put(s, &tx);
	/* A pending ICMP error (ECONNREFUSED) keeps POLLERR up too. */
	getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
}

/* Is a message waiting to be received (or an error to be returned)? */
static bool sk_rx_pending(struct sk *s)
{
	char c;

	return recv(s->fd, &c, sizeof(c), MSG_PEEK | MSG_DONTWAIT) >= 0 || errno != EAGAIN;
}

/*
 * The report of the given type (SCM_TSTAMP_SND, _SCHED or _ACK) for key. The
 * wait ends early when a message is waiting: under a backlog the kernel
 * drops TX stamps (the receive queue is full, and the error queue shares
 * its room), and waiting for each would slow the loop further.
 */
static int sk_tx_report(struct sk *s, uint32_t key, uint32_t type,
			int64_t wait_ns, struct ts_stamps *ts)
{
	int64_t deadline = 0;
	struct ts_tx tx;
	int ret;

	if (stash_take(s, key, type, ts))
		return 0;
	for (;;) {
		ret = errqueue_read(s, &tx);
		if (ret == 0 && tx.key == key && tx.type == type) {
			*ts = tx.ts;
			return 0;
		}
		if (ret == 0)
			stash_put(s, &tx);	/* another key: maybe still wanted */
		if (ret != -EAGAIN)
			continue;
		if (wait_ns <= 0)
			return -ENOENT;
		if (!deadline)
			deadline = monotonic_ns() + wait_ns;
		else if (monotonic_ns() > deadline || sk_rx_pending(s))
			return -ENOENT;
	}
}

int sk_tx_stamp(struct sk *s, uint32_t key, int64_t wait_ns,
		struct ts_stamps *ts)
{
	return sk_tx_report(s, key, SCM_TSTAMP_SND, wait_ns, ts);
}

int sk_tx_sched(struct sk *s, uint32_t key, int64_t wait_ns, struct ts_stamps *ts)
{
	return sk_tx_report(s, key, SCM_TSTAMP_SCHED, wait_ns, ts);
}

int sk_tx_ack(struct sk *s, uint32_t key, int64_t wait_ns, struct ts_stamps *ts)
{
	return sk_tx_report(s, key, SCM_TSTAMP_ACK, wait_ns, ts);
}

int sk_tx_next(struct sk *s, uint32_t *key, struct ts_stamps *ts)
{
	struct ts_tx tx;
	int ret;

	for (int i = 0; i < SK_STASH; i++) {
		struct sk_stash *e = &s->stash[i];

		if (e->used && e->type == SCM_TSTAMP_SND) {
			e->used = false;
			*key = e->key;
			*ts = e->ts;
			return 0;
		}
	}
	while ((ret = errqueue_read(s, &tx)) != -EAGAIN) {
		if (ret)
			continue;
		if (tx.type == SCM_TSTAMP_SND) {
			*key = tx.key;
			*ts = tx.ts;
			return 0;
		}
		stash_put(s, &tx);
	}
	return -EAGAIN;
}

int sk_tx_read(struct sk *s, struct ts_tx *tx)
{
	int ret;

	for (int i = 0; i < SK_STASH; i++) {
		struct sk_stash *e = &s->stash[i];

		if (e->used) {
			e->used = false;
			tx->key = e->key;
			tx->type = e->type;
			tx->ts = e->ts;
			return 0;
		}
	}
	while ((ret = errqueue_read(s, tx)) != -EAGAIN)
		if (ret == 0)
			return 0;
	return -EAGAIN;
}

int sk_poll(struct sk *s, int64_t deadline_ns)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	int64_t left = deadline_ns - monotonic_ns();
	struct timespec ts = ns_to_timespec(left > 0 ? left : 0);
	int n = ppoll(&pfd, 1, &ts, NULL);

	return n < 0 ? -errno : n;
}

int sk_wait(struct sk *s, int64_t deadline_ns)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	for (;;) {
		int64_t left = deadline_ns - monotonic_ns();
		struct timespec ts = ns_to_timespec(left > 0 ? left : 0);
		int n = ppoll(&pfd, 1, &ts, NULL);

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (pfd.revents & POLLIN)
			return 1;
		errqueue_drain(s);	/* POLLERR alone: not a datagram */
	}
}
