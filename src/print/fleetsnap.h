/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's part of a snapshot (snap.h's struct snap_fleet), taken from
 * its table (fleettab.h) live or at the end: every target measured now
 * with its paths, read under its slot's generation (a slot a reload
 * rewrites meanwhile is left out this time), the paths that stand out
 * (pathdiag.h) and the targets' order, worst first: those that answered
 * nothing, then by loss, by paths named, by p99.
 */
#ifndef RANT_FLEETSNAP_H
#define RANT_FLEETSNAP_H

#include "run.h"
#include "snap.h"

/* s->fleet from r's fleet (nothing without one): 0 or -ENOMEM. */
int fleetsnap_take(struct snap *s, const struct run *r);

/* Does the fleet f measure a target that ICMP errors may answer (icmp,
 * syn)? */
bool fleetsnap_has_errors(const struct snap_fleet *f);

#endif
