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

#include "transport.h"

/* A new connection to s's peer, under way (connect() in progress): 0 with
 * *fd, or -errno (-EMFILE: the open-file limit). */
int conn_open(const struct sk *s, const struct rant_cfg *cfg, int *fd);

/* Did the connection under way on fd succeed? 0, or its -errno. */
int conn_result(int fd);

/* The connection on fd is made: its stamps turned on, their byte count
 * from 0. 0 or -errno. */
int conn_stamp(const struct sk *s, const struct rant_cfg *cfg, int fd);

/* --quickack: TCP_QUICKACK, again after each read (the kernel clears it
 * when it delays an ACK again). */
void conn_quickack(int fd);

/*
 * The open-file limit raised to need where it is lower, as far as the
 * hard limit allows (root raises that too, up to fs.nr_open): 0, or
 * -EMFILE with one line in err naming what needs them and the fix.
 * conn_fd_limit_was() says the limit before (0: not raised) and now.
 */
int conn_fd_limit(uint64_t need, const char *what, char *err, size_t len);
void conn_fd_limit_was(uint64_t *before, uint64_t *now);

#endif
