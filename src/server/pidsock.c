// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading another process's socket (see pidsock.h).
 */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pidsock.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int int_opt(int fd, int level, int name)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return getsockopt(fd, level, name, &v, &len) ? -1 : v;
}

static void read_info(int fd, struct srv_tcpinfo *t)
{
	struct tcp_info i;
	socklen_t len = sizeof(i);

	memset(&i, 0, sizeof(i));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &i, &len))
		return;
	*t = (struct srv_tcpinfo){
		.valid = true, .full = len >= offsetof(struct tcp_info, tcpi_sndbuf_limited) +
					    sizeof(i.tcpi_sndbuf_limited),
		.ca_state = i.tcpi_ca_state, .rtt_us = i.tcpi_rtt, .rttvar_us = i.tcpi_rttvar,
		.ato_us = i.tcpi_ato, .rto_us = i.tcpi_rto, .snd_cwnd = i.tcpi_snd_cwnd,
		.snd_mss = i.tcpi_snd_mss, .unacked = i.tcpi_unacked, .lost = i.tcpi_lost,
		.retrans = i.tcpi_retrans, .total_retrans = i.tcpi_total_retrans,
		.delivery_rate = i.tcpi_delivery_rate, .busy_us = i.tcpi_busy_time,
		.rwnd_limited_us = i.tcpi_rwnd_limited, .sndbuf_limited_us = i.tcpi_sndbuf_limited,
		.bytes_acked = i.tcpi_bytes_acked, .bytes_received = i.tcpi_bytes_received,
	};
}

static void read_opts(int fd, struct srv_sock *s)
{
	struct srv_opts *o = &s->opt;
	socklen_t len = sizeof(o->cong) - 1;
	int qa;

	o->nodelay = int_opt(fd, IPPROTO_TCP, TCP_NODELAY);
	o->cork = int_opt(fd, IPPROTO_TCP, TCP_CORK);
	o->notsent_lowat = int_opt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT);
	o->user_timeout_ms = int_opt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT);
	qa = int_opt(fd, IPPROTO_TCP, TCP_QUICKACK);
	o->delayed_acks = qa < 0 ? -1 : !qa;
	o->sndbuf = int_opt(fd, SOL_SOCKET, SO_SNDBUF);
	o->rcvbuf = int_opt(fd, SOL_SOCKET, SO_RCVBUF);
	memset(o->cong, 0, sizeof(o->cong));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cong, &len))
		o->cong[0] = '\0';
	if (s->state != SRV_LISTEN)
		read_info(fd, &s->ti);
}

int pidsock_read(struct srv_sock *s)
{
	int pidfd, fd, ret = 0;

	pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	if (pidfd < 0) {
		s->opt.err = -errno;
		return s->opt.err;
	}
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, s->fd, 0);
	if (fd < 0) {
		ret = -errno;
	} else {
		read_opts(fd, s);
		close(fd);
	}
	close(pidfd);
	s->opt.err = ret;
	return ret;
}

const char *pidsock_why(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "no ptrace rights over it (another user, or CAP_SYS_PTRACE dropped): run rant as root or as the server's user; sock_diag's view is shown instead";
	case -ESRCH:
		return "the process is gone";
	case -EBADF:
		return "the descriptor was closed meanwhile";
	case -ENOSYS:
		return "this kernel has no pidfd_getfd (Linux 5.6 or newer)";
	default:
		return strerror(-err);
	}
}
