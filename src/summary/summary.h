/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The summary of a run, rendered from its snapshot (snap.h) in one pass:
 * the text ("--- Latency Statistics ---" on) to o->t and the JSON
 * document (doc/output.md; schema/rant.schema.json) to o->j, either of which may be NULL.
 * It computes nothing: every number is the snapshot's.
 */
#ifndef RANT_SUMMARY_H
#define RANT_SUMMARY_H

#include "out.h"
#include "snap.h"

void summary_print(struct out *o, const struct snap *s);

#endif
