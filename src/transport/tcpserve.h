/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --tcp reflector's connections: every one served at once, none able
 * to lock the others out (tcpserve.c's head says how). Each connection
 * is a struct sk of its own; a message received names it in m->via, and
 * the reply goes out on it (tcp.c's send with that message as reply).
 */
#ifndef RANT_TCPSERVE_H
#define RANT_TCPSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "sock.h"
#include "transport.h"

struct tcpserve;

/*
 * Serve the connections that come on listen_fd (listening, non-blocking;
 * the caller's, closed by the caller), counting in *stats. NULL with one
 * line in err.
 */
struct tcpserve *tcpserve_create(const struct rant_cfg *cfg, int listen_fd,
				 struct tcp_stats *stats, char *err, size_t len);
/* Close every connection and free the table. */
void tcpserve_destroy(struct tcpserve *t);

/*
 * The next whole message of the connections in turn (ls: the listening
 * transport's struct sk, for the interface), m->via naming its
 * connection: 0, -EAGAIN when none came (with block, after up to
 * SK_REFLECT_WAKE_NS), -EPROTO when a connection was dropped for not
 * speaking rant, -EACCES when one came from outside --allow (closed at
 * once), -ECONNREFUSED when one was refused (its address holds its share
 * of the connections, all live; closed at once), -ECONNRESET with m->src
 * when a connection that brought messages has closed (its session can
 * end), or -errno.
 */
int tcpserve_recv(struct tcpserve *t, const struct sk *ls, void *buf, size_t len,
		  struct sk_msg *m, bool sw, bool block);

/* The reply on the connection via, never blocking; not stamped, without
 * a TX stamp (tcpstream_send). 0 with *key (its TX stamp's OPT_ID on
 * via), or -errno (-ENOBUFS: dropped, counted). */
int tcpserve_reply(struct tcpserve *t, struct sk *via, const void *buf, size_t len,
		   bool stamped, uint32_t *key);

#endif
