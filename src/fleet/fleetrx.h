/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet's pongs and TX stamps (fleetrx.c), for its loop (fleet.c):
 * a pong its target's by its source, session and seq, a TX stamp its
 * ping's by its socket's OPT_ID key.
 */
#ifndef RANT_FLEETRX_H
#define RANT_FLEETRX_H

#include "fleetloop.h"

/* The pongs queued on socket i, and its TX stamps, each to its ping. */
void fl_receive(struct fleetloop *L, unsigned int i);
void fl_harvest(struct fleetloop *L, unsigned int i);

#endif
