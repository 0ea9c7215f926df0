/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter's summary of what rant's own reflector reported of its
 * side in its pongs (doc/wire.md: the report): how many of the lost
 * pongs its qdisc dropped or its kernel refused, and how long it held
 * pongs in its qdisc; text and the JSON's reflector_report in one pass.
 */
#ifndef RANT_PEEROUT_H
#define RANT_PEEROUT_H

#include "out.h"
#include "snap.h"

void peerout_print(struct out *o, const struct snap *s);

#endif
