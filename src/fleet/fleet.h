/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet's emitter (--targets FILE, or -a over --paths N): one loop
 * measures every target of the table (fleettab.h) at once.
 *
 * Each target has a schedule of its own (--interval from a phase of its
 * own, the targets spread over the interval): its pings leave on time
 * whatever became of its earlier ones, and of any other target's (open
 * loop); a target late by an --interval or more skips the slots it
 * missed (counted) rather than bursting. Its pings go round its paths
 * (ping k by path k mod --paths: each path a socket, a source port, of
 * its own), so every target is measured over the same flows. A pong is
 * its target's by the address it came from, its session id and its seq
 * (each target its own session); a TX stamp its ping's by the OPT_ID key
 * of its socket, however late, never by order. A ping is retired when
 * its pong and its TX stamp have come, or --timeout after it left:
 * counted (the target's, its path's, the run's), its round trip into the
 * target's and the path's statistics, logged (-l, with its TARGET and
 * PATH) and checked against -t (a breach is counted and kept; the fleet
 * never stops for one).
 *
 * SIGHUP reads --targets again (fleetreload.c, a thread off the loop):
 * targets added start (a slot prepared beside the loop, handed over),
 * targets removed stop and leave the table, the others keep their
 * counters and their schedules.
 */
#ifndef RANT_FLEET_H
#define RANT_FLEET_H

#include "run.h"

/* Measure r's fleet until -d, -c (each target's measured pings) or a
 * signal: 0, or -errno with r->failure set. */
int fleet_run(struct run *r);

#endif
