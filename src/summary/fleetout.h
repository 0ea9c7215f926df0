/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's part of the summary (snap.h's struct snap_fleet): in the
 * JSON, "targets" (each target: address, port, its counts and metrics
 * as a single target's run has them, and with --paths its "paths", each
 * with source_port or flow_label, counts and metrics) and "diagnosis"
 * (the paths that stand out: kind, target, source_ports, the numbers and
 * the fix); in the text, the diagnosis and a table of the targets and
 * their paths (sent, received, lost, the ICMP errors that answered,
 * loss %, p50, p99, max), worst first (the worst FLEETOUT_TEXT_TARGETS of them and
 * every target with a path named; the JSON has every one).
 */
#ifndef RANT_FLEETOUT_H
#define RANT_FLEETOUT_H

#include "out.h"
#include "snap.h"

#define FLEETOUT_TEXT_TARGETS 50

void fleetout_print(struct out *o, const struct snap *s);

#endif
