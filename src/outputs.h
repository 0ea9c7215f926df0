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

#include <stdbool.h>
#include <stddef.h>

#include "opts.h"
#include "output.h"

/* The rows, in the order the outputs are opened and written. */
extern const struct output_def outputs_table[];
extern const size_t outputs_count;

/*
 * Set-up: report temporaries left by writers that are gone (stderr),
 * then create the file of each output cfg names. 0, or -errno after a
 * line "rant: -j: ..." on stderr (the ones created stay for
 * outputs_abort()).
 */
int outputs_open(struct output *outs, const struct rant_cfg *c);
/* The open output of option opt ("-l"), or NULL. */
const struct output *outputs_get(const struct output *outs, const char *opt);
/*
 * SIGHUP: the file of option opt ("-l") written so far is committed
 * (renamed over its target) and a new temporary opened for the rest:
 * its descriptor, or -errno after a line on stderr. A stream target
 * (stdout, a device, a FIFO) stays as it is.
 */
int outputs_reopen(struct output *outs, const char *opt, const struct rant_cfg *c);
/* End, before the summary: each drain. 0 or the first -errno. */
int outputs_drain(struct output *outs, const struct output_src *src);
/* End: the outputs that join the pass add their streams to *pass. */
int outputs_join(struct output *outs, struct out *pass);
/* End, after the pass: each write, then every commit. 0 or the first -errno. */
int outputs_finish(struct output *outs, const struct output_src *src);
/* Remove the temporaries of what was not committed. */
void outputs_abort(struct output *outs);

#endif
