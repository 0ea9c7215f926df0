/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packets' verdict held against the server's own state (srvview.h):
 * a Nagle stall is confirmed where the server's connections have
 * TCP_NODELAY off and it writes a response in several calls close
 * together, and refuted where TCP_NODELAY is on; TCP_CORK set is named
 * as the cause of its own; the server's own time is confirmed where its
 * threads took that time between reading the request and their first
 * write, and refuted where they wrote at once (then the time was spent
 * elsewhere: the path, its queues, the client). A busy server's queue
 * (server_queue) is confirmed where its threads wrote at once after each
 * read: the requests waited before it, behind the others.
 */
#ifndef RANT_SRVJUDGE_H
#define RANT_SRVJUDGE_H

#include <stddef.h>

#include "segdiag.h"
#include "srvview.h"

enum srvjudge_kind {
	SRVJ_NONE,			/* nothing to hold against the packets */
	SRVJ_NAGLE_CONFIRMED,
	SRVJ_NAGLE_REFUTED,		/* TCP_NODELAY on: not Nagle's */
	SRVJ_CORK,			/* TCP_CORK set: the cork held the response */
	SRVJ_LATE_WRITE,		/* its second write came late: its own time */
	SRVJ_SERVER_CONFIRMED,		/* read to first write took the time */
	SRVJ_SERVER_REFUTED,		/* it wrote at once: the time was elsewhere */
	SRVJ_QUEUE_CONFIRMED,		/* server_queue: it wrote at once after
					 * each read, the wait was before it */
	SRVJ_KINDS
};

struct srvjudge {
	enum srvjudge_kind kind;
	char line[640];			/* the sentence, with its evidence and fix */
};

/* "nagle_confirmed", ...: the JSON's name. */
const char *srvjudge_name(enum srvjudge_kind k);

/* d: what the packets named (NULL or !d->have: nothing); v: read. */
void srvjudge(const struct segdiag_result *d, const struct srv_view *v, struct srvjudge *out);

#endif
