/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One TCP socket of a server as the kernel shows it: its addresses and
 * state from sock_diag, its owner from /proc, its TCP_INFO, and (where
 * rant may duplicate it) the options set on it. The data shared by
 * sockdiag.c, pidsock.c and srvview.c.
 */
#ifndef RANT_SRVSOCK_H
#define RANT_SRVSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* The kernel's TCP state of a listener (TCP_LISTEN of <netinet/tcp.h>,
 * which cannot be included beside <linux/tcp.h>'s whole TCP_INFO). */
#define SRV_LISTEN 10

/* TCP_INFO's fields rant reports (times in us, as the kernel keeps them). */
struct srv_tcpinfo {
	bool valid;
	bool full;			/* from the socket itself: every field; else
					 * sock_diag's older part (no rates, no
					 * limited times) */
	uint8_t ca_state;
	uint32_t rtt_us, rttvar_us, ato_us, rto_us;
	uint32_t snd_cwnd, snd_mss, unacked, lost, retrans, total_retrans;
	uint64_t delivery_rate;		/* bytes/s (full only) */
	uint64_t busy_us, rwnd_limited_us, sndbuf_limited_us;	/* full only */
	uint64_t bytes_acked, bytes_received;			/* full only */
};

/* What was set on the socket, read with getsockopt on a duplicate. */
struct srv_opts {
	int err;			/* 0 read; -errno of pidfd_open/_getfd */
	int nodelay, cork, notsent_lowat, user_timeout_ms;
	int delayed_acks;		/* !TCP_QUICKACK: the socket is in the
					 * delayed-ACK (pingpong) mode now */
	int sndbuf, rcvbuf;		/* SO_SNDBUF, SO_RCVBUF: bytes */
	char cong[16];			/* TCP_CONGESTION */
};

struct srv_sock {
	uint64_t inode;
	struct sockaddr_storage local, peer;
	uint8_t state;			/* SRV_LISTEN, TCP_ESTABLISHED, ... */
	uint32_t rqueue, wqueue;	/* a listener: accept queue now, backlog */
	uint32_t rmem, tmem;		/* sock_diag's meminfo: bytes held to read,
					 * to send */
	char cong[16];			/* sock_diag's congestion control */
	int pid, fd;			/* an owner found in /proc (pid 0: none) */
	int nowners;			/* processes holding it (a shared listener) */
	struct srv_tcpinfo ti;
	struct srv_opts opt;		/* opt.err -ENODATA: not read */
};

#endif
