// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's connections (conn.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "conn.h"
#include "timeutil.h"

/* Files a run holds besides its connections: stdio, the outputs, the
 * capture, epoll, netlink, the metrics' server. */
#define CONN_FD_SPARE 64

static uint64_t fd_before, fd_now;

/* fs.nr_open: as far as root may raise the hard limit. */
static uint64_t nr_open(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

int conn_fd_limit(uint64_t need, const char *what, const char *fix, char *err, size_t len)
{
	struct rlimit rl;

	need += CONN_FD_SPARE;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	fd_now = rl.rlim_cur;
	if (rl.rlim_cur >= need)
		return 0;
	fd_before = rl.rlim_cur;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;	/* root only (CAP_SYS_RESOURCE), up to fs.nr_open */
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		getrlimit(RLIMIT_NOFILE, &rl);
		snprintf(err, len, "%s takes %llu open files, more than this process may have (%llu, ulimit -Hn%s; fs.nr_open %llu): %s, or raise the limit (ulimit -n, LimitNOFILE= in a unit)",
			 what, (unsigned long long)need, (unsigned long long)rl.rlim_max,
			 geteuid() ? "; root may raise it" : "",
			 (unsigned long long)nr_open(), fix);
		return -EMFILE;
	}
	fd_now = need;
	return 0;
}

void conn_fd_limit_was(uint64_t *before, uint64_t *now)
{
	*before = fd_before;
	*now = fd_now;
}

/* The interface, the stamps and the options every connection gets,
 * checked before anything is sent (as tcp.c does). */
static int conn_transport_open(struct sk *s, const struct rant_cfg *cfg, char *err,
			       size_t len)
{
	char what[64];
	int ret = sk_init(s, cfg, err, len);

	if (ret)
		return ret;
	snprintf(what, sizeof(what), "--connections %u", cfg->connections);
	ret = conn_fd_limit(cfg->connections, what, "lower --connections", err, len);
	if (ret)
		return ret;
	return sk_configure_check(s, cfg, err, len);
}

static void conn_transport_close(struct sk *s)
{
	sk_close(s);
}

int conn_open(const struct sk *s, const struct rant_cfg *cfg, int *fd)
{
	return conn_open_to(cfg, &s->peer, s->peer_len, -1, fd);
}

int conn_open_to(const struct rant_cfg *cfg, const struct sockaddr_storage *to, socklen_t len,
		 int tos, int *fd)
{
	bool v6 = to->ss_family == AF_INET6;
	int ret;

	*fd = socket(to->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return -errno;
	if (setsockopt(*fd, SOL_SOCKET, SO_BINDTODEVICE, cfg->iface,
		       (socklen_t)strlen(cfg->iface) + 1) ||
	    sk_sockopt_int(*fd, IPPROTO_TCP, TCP_NODELAY, 1) ||
	    (tos >= 0 && sk_sockopt_int(*fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
					v6 ? IPV6_TCLASS : IP_TOS, tos)) ||
	    (cfg->busy_poll_us && sk_sockopt_int(*fd, SOL_SOCKET, SO_BUSY_POLL, cfg->busy_poll_us)))
		goto failed;
	if (cfg->quickack)
		conn_quickack(*fd);
	if (connect(*fd, (const struct sockaddr *)to, len) && errno != EINPROGRESS)
		goto failed;
	return 0;
failed:
	ret = -errno;
	close(*fd);
	*fd = -1;
	return ret;
}

int conn_result(int fd)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		return -errno;
	return -err;
}

int conn_stamp(const struct sk *s, const struct rant_cfg *cfg, int fd)
{
	unsigned int flags = sk_ts_flags(s, cfg);

	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) ? -errno : 0;
}

ssize_t conn_send(int fd, const void *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n;
}

ssize_t conn_recv(int fd, void *buf, size_t len, struct ts_stamps *rx)
{
	char control[SK_CMSG_BUF];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);

	if (n < 0)
		return -errno;
	rx->kn_ns = rx->hw_ns = TS_NONE;
	if (n > 0 && !ts_parse_rx_only(&msg, rx))
		ts_parse_rx(&msg, rx);
	return n;
}

int conn_tx_read(int fd, struct ts_tx *tx)
{
	char control[SK_CMSG_BUF];
	struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };

	for (;;) {
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return -EAGAIN;
		if (ts_parse_tx(&msg, tx) == 0)
			return 0;	/* else a foreign report: the next */
	}
}

int conn_tx_readv(int fd, struct ts_tx *tx, int max)
{
	char control[CONN_TX_BATCH][SK_CMSG_BUF];
	struct mmsghdr m[CONN_TX_BATCH];
	int n, got = 0;

	if (max > CONN_TX_BATCH)
		max = CONN_TX_BATCH;
	for (int i = 0; i < max; i++)
		m[i] = (struct mmsghdr){ .msg_hdr = {
			.msg_control = control[i], .msg_controllen = sizeof(control[i]) } };
	n = recvmmsg(fd, m, (unsigned int)max, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
	if (n <= 0)
		return -EAGAIN;
	for (int i = 0; i < n; i++)
		if (ts_parse_tx(&m[i].msg_hdr, &tx[got]) == 0)
			got++;	/* else a foreign report: skipped */
	return got;
}

void conn_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

int conn_poll_create(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	return ep < 0 ? -errno : ep;
}

int conn_poll_watch(int ep, int fd, uint32_t idx, bool out, bool added)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0),
		.data.u32 = idx,
	};

	return epoll_ctl(ep, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int conn_poll_wait(int ep, struct epoll_event *ev, int max, int64_t deadline_ns)
{
	int64_t left = deadline_ns ? deadline_ns - monotonic_ns() : 0;
	struct timespec ts = ns_to_timespec(left > 0 ? left : 0);
	int n = epoll_pwait2(ep, ev, max, &ts, NULL);

	return n < 0 ? -errno : n;
}

void conn_quickack(int fd)
{
	sk_sockopt_int(fd, IPPROTO_TCP, TCP_QUICKACK, 1);
}

/* No message of rant's travels on it: the probe sends and reads on its
 * connections itself (src/probe/). */
static int conn_tp_send(struct sk *s, const void *buf, size_t len, const struct sk_msg *reply,
			uint32_t *key)
{
	(void)s, (void)buf, (void)len, (void)reply, (void)key;
	return -EOPNOTSUPP;
}

static int conn_tp_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m, bool sw,
			bool block)
{
	(void)s, (void)buf, (void)len, (void)m, (void)sw, (void)block;
	return -EOPNOTSUPP;
}

const struct transport transport_conn = {
	.name = "tcp",
	.caps = { .stream = true, .ack_stamps = true, .max_len = PROBE_MAX_REQUEST },
	.open = conn_transport_open,
	.close = conn_transport_close,
	.send = conn_tp_send,
	.recv = conn_tp_recv,
};
