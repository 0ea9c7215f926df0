/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The files a run writes, one row each in a table (outputs.c): the
 * option that names it, the rant_cfg field holding its path, and what is
 * done at the end. Every file is created at set-up through outfile.c
 * (a temporary beside the target, so an unwritable path fails before
 * any packet) and renamed over its target on commit, or removed.
 *
 * At the end of a run, in this order:
 *   drain  what streamed into the file during the run is flushed (the
 *          log: its writer drains its ring), before the summary is taken
 *          so that the summary's counts of it are final;
 *   join   the output takes part in the summary's one pass over the
 *          snapshot (the JSON: its writer becomes the pass's JSON stream,
 *          beside the text), or
 *   write  it renders the snapshot (snap.h) on its own, for a format that
 *          is neither text nor JSON;
 *   commit the file is renamed over its target (a failure is reported
 *          in one line naming the file).
 * Each hook is optional. A new format is a file with its hooks and a row.
 */
#ifndef RANT_OUTPUTS_H
#define RANT_OUTPUTS_H

#include <stddef.h>

#include "output.h"

/* The rows, in the order the outputs are opened and written. */
extern const struct output_def outputs_table[];
extern const size_t outputs_count;

#endif
