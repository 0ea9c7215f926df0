/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's set-up (--targets, or -a over --paths), a part of
 * run_setup(): the targets read and checked, the table made (fleettab.h)
 * with room for those a reload adds, a session id and TOS for each, and
 * the sockets opened (pathsk.h: r->sk the first path's, so that what a
 * run says of its socket, its stamps, holds for the fleet's); and
 * the reload's half that reads the file again (fleetset_reload). The
 * fleet's loop (src/fleet/) measures them.
 */
#ifndef RANT_FLEETSET_H
#define RANT_FLEETSET_H

#include <stdio.h>

#include "run.h"

/* 0, or -errno after a line (problem and fix) on stderr. */
int fleetset_open(struct run *r);
void fleetset_close(struct run *r);

/* What --targets' lines are checked against in this run. */
void fleetset_ctx(const struct run *r, struct targets_ctx *ctx);

/* Slot i filled for target t (fleettab_fill) with a new session id and
 * its TOS. */
void fleetset_fill(struct run *r, size_t i, const struct target_spec *t);

/* The TOS octet of target t's pings. */
static inline int fleetset_tos(const struct rant_cfg *c, const struct target_spec *t)
{
	return (t->dscp >= 0 ? t->dscp : c->dscp) << 2;
}

#endif
