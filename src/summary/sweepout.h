/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sweep's part of the summary (-m LIST or RANGE), from the snapshot:
 * the text's table of the round trip per size, the fit (one line, or
 * one per regime and where it breaks), the table of every metric's p50
 * per size; the JSON's "sizes" (each with all its metrics), "fit",
 * "fragments_above" and "regimes". Nothing without a sweep.
 */
#ifndef RANT_SWEEPOUT_H
#define RANT_SWEEPOUT_H

#include "out.h"
#include "snap.h"

void sweepout_print(struct out *o, const struct snap *s);

#endif
