/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The connections of --http and --request (transport_conn): the
 * transport opens no socket of its own; at start it looks up the server
 * and decides the stamps (hardware where the interface stamps) on a
 * throwaway socket configured as every connection will be, and the probe
 * opens its connections with conn_open(): non-blocking, bound to the
 * interface, Nagle off (a request leaves in one write). SO_TIMESTAMPING
 * (TX, the server's ACK, RX; OPT_ID counting the bytes sent) is turned on
 * once a connection is made (conn_stamp): OPT_ID needs a connected socket.
 */
#ifndef RANT_CONN_H
#define RANT_CONN_H

#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/types.h>

#include "transport.h"

/* A new connection to s's peer, under way (connect() in progress): 0 with
 * *fd, or -errno (-EMFILE: the open-file limit). */
int conn_open(const struct sk *s, const struct rant_cfg *cfg, int *fd);
/* ... to address to (a fleet's http target), its TOS octet tos (DSCP and
 * ECN; -1: the system's), as conn_open() otherwise. */
int conn_open_to(const struct rant_cfg *cfg, const struct sockaddr_storage *to, socklen_t len,
		 int tos, int *fd);

/* Did the connection under way on fd succeed? 0, or its -errno. */
int conn_result(int fd);

/* The connection on fd is made: its stamps turned on, their byte count
 * from 0. 0 or -errno. */
int conn_stamp(const struct sk *s, const struct rant_cfg *cfg, int fd);

/* Send len bytes without blocking: how many went (0: the send buffer is
 * full), or -errno. */
ssize_t conn_send(int fd, const void *buf, size_t len);

/* Read what is there without blocking, with the RX stamps of the last
 * segment read (TS_NONE where absent): the bytes read, 0 at the end of
 * the stream, -EAGAIN when nothing is queued, or -errno. */
ssize_t conn_recv(int fd, void *buf, size_t len, struct ts_stamps *rx);

/* One TX stamp report (SND, ACK) off fd's error queue: 0, or -EAGAIN
 * when none is queued. */
int conn_tx_read(int fd, struct ts_tx *tx);
/* Up to max (at most CONN_TX_BATCH) of them in one recvmmsg(): how many
 * are in tx[] (foreign reports are skipped: 0 when only those came), or
 * -EAGAIN when none is queued. */
#define CONN_TX_BATCH 4
int conn_tx_readv(int fd, struct ts_tx *tx, int max);

/* Close a connection (it leaves the epoll set with it). */
void conn_close(int fd);

/* The connections' events: an epoll instance (-errno), a connection
 * watched (idx: the caller's; out: for writing too, while connecting or
 * while a request is written), the events until deadline (CLOCK_MONOTONIC
 * ns; 0: what is there now): how many, or -errno (-EINTR: a signal). */
int conn_poll_create(void);
int conn_poll_watch(int ep, int fd, uint32_t idx, bool out, bool added);
int conn_poll_wait(int ep, struct epoll_event *ev, int max, int64_t deadline_ns);

/* --quickack: TCP_QUICKACK, again after each read (the kernel clears it
 * when it delays an ACK again). */
void conn_quickack(int fd);

/*
 * The open-file limit raised to need where it is lower, as far as the
 * hard limit allows (root raises that too, up to fs.nr_open): 0, or
 * -EMFILE with one line in err naming what needs them and the fix (what
 * and fix: the caller's words). conn_fd_limit_was() says the limit before
 * (0: not raised) and now.
 */
int conn_fd_limit(uint64_t need, const char *what, const char *fix, char *err, size_t len);
void conn_fd_limit_was(uint64_t *before, uint64_t *now);

#endif
