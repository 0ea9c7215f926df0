/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's set-up (--targets, or -a over --paths), a part of
 * run_setup(): the targets read and checked, the table made (fleettab.h)
 * with room for those a reload adds, a session id and TOS for each, and
 * the sockets opened (pathsk.h: the run's own socket the first path's,
 * so that what a run says of its socket, its stamps, holds for the
 * fleet's); what a reload (fleetreload.c) checks and fills the same way.
 *
 * The sockets: a group a path (with --flow-label, one socket that the
 * labels are leased to), each group's sockets on one source port
 * (SO_REUSEPORT), as many as its pongs a second need
 * (FLEETSET_SOCK_RATE each), so that the kernel spreads the
 * pongs of many targets over several queues; a target's pings leave by
 * one socket of its path's group (fleetset_sock), whose error queue has
 * their TX stamps. Each socket's receive buffer holds its share of the
 * pongs and TX stamp reports of a --timeout (the loop may be held back
 * that long without a pong lost), 8 MiB at least, or --rcvbuf's.
 * The fleet's loop (src/fleet/) measures them.
 */
#ifndef RANT_FLEETSET_H
#define RANT_FLEETSET_H

#include <stdio.h>

#include "cfg.h"
#include "fleettab.h"
#include "msgfmt.h"
#include "sock.h"
#include "transport.h"

/* Pongs a second a socket of a group takes at most (the table's
 * targets and a reload's room, at --interval, over --paths). */
#define FLEETSET_SOCK_RATE 25000
#define FLEETSET_MAX_SK 256		/* sockets of a fleet at most */
#define FLEETSET_RCVBUF_MIN (8 * 1024 * 1024)
#define FLEETSET_RCVBUF_MAX (256 * 1024 * 1024)

/* What a fleet's set-up makes (struct run holds it). */
struct fleetset {
	struct fleet *fleet;		/* its targets, or NULL: not a fleet */
	struct sk *sk[FLEETSET_MAX_SK];	/* its sockets: sk[0] is the run's own */
	unsigned int nsk;		/* ngroup x share */
	unsigned int ngroup;		/* source ports: a path's each (one with
					 * --flow-label) */
	unsigned int share;		/* sockets a port (SO_REUSEPORT) */
	int rcvbuf_asked;		/* each socket's receive buffer: asked, */
	int rcvbuf;			/* ... and as the kernel set it (bytes) */
};

/*
 * The sockets for a table of cap targets over npaths, each ping wire_len
 * bytes (fs's ngroup, share, rcvbuf_asked): how many a group (the
 * table's pongs a second at --interval, FLEETSET_SOCK_RATE each; one
 * with --flow-label), and each one's receive buffer (its share of the
 * pongs of a --timeout and their TX stamp reports, FLEETSET_RCVBUF_MIN
 * to _MAX; --rcvbuf's when given).
 */
void fleetset_plan(struct fleetset *fs, const struct rant_cfg *c, size_t cap, unsigned int npaths,
		   size_t wire_len);

/* The socket that path's pings of slot's target leave by: its group's
 * (path), one of the group's by slot. */
static inline unsigned int fleetset_sock(const struct fleetset *fs, unsigned int path,
					 size_t slot)
{
	return path % fs->ngroup * fs->share + (unsigned int)(slot % fs->share);
}

/*
 * For c's targets, with the run's format fmt (session ids): the table,
 * and the sockets, first (its socket's r->sk, opened here). 0, or -errno
 * after a line (problem and fix) on stderr.
 */
int fleetset_open(struct fleetset *fs, const struct rant_cfg *c, const struct msgfmt_ctx *fmt,
		  struct sk *first);
void fleetset_close(struct fleetset *fs);

/* What --targets' lines are checked against in this run (f NULL: before
 * the table, any family). */
void fleetset_ctx(const struct rant_cfg *c, const struct fleet *f, struct targets_ctx *ctx);

/* Slot i of f filled for target t (fleettab_fill) with a new session id
 * (fmt's key) and its TOS. */
void fleetset_fill(const struct rant_cfg *c, const struct msgfmt_ctx *fmt, struct fleet *f,
		   size_t i, const struct target_spec *t);

/* The TOS octet of target t's pings. */
static inline int fleetset_tos(const struct rant_cfg *c, const struct target_spec *t)
{
	return (t->dscp >= 0 ? t->dscp : c->dscp) << 2;
}

#endif
