/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's set-up (--targets, or -a over --paths), a part of
 * run_setup(): the targets read and checked, the table made (fleettab.h)
 * with room for those a reload adds, a session id and TOS for each, and
 * the sockets opened (pathsk.h: the run's own socket the first path's,
 * so that what a run says of its socket, its stamps, holds for the
 * fleet's); what a reload (fleetreload.c) checks and fills the same way.
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

/* What a fleet's set-up makes (struct run holds it). */
struct fleetset {
	struct fleet *fleet;		/* its targets, or NULL: not a fleet */
	struct sk *sk[RANT_MAX_PATHS];	/* its sockets: sk[0] is the run's own */
	unsigned int nsk;
};

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
