/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pieces of --read/--watch's report (watchrep.h) that every level
 * prints alike: a diagnosis list (a flow's, a server port's, the
 * capture's), a flow (its row of the text table, its JSON object with
 * metrics, diagnosis, what it could not tell and its timeline), what a
 * flow could not tell, by name.
 */
#ifndef RANT_WATCHFLOW_H
#define RANT_WATCHFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"
#include "snap.h"
#include "watchrep.h"

/* "no_client", ...: TCPANA_U_* bit i's JSON name, and what it means. */
const char *watchflow_unknown_name(unsigned int bit);
const char *watchflow_unknown_text(unsigned int bit);

/* JSON: key: [{kind, exchanges, share, typical_ns, max_ns, [flows,] fix}];
 * flows (by kind) NULL for a flow's own. */
void watchflow_diag(struct out *o, const char *key, const struct tcpana_diag *d, size_t n,
		    const uint64_t *flows);

/* A flow's metric m as a summary's statistics (percentile_precision set). */
void watchflow_stats(struct snap_stats *st, const struct watch_flow *f, enum watch_metric m);

/* The text table's header and a flow's row. */
void watchflow_head(struct out *o);
void watchflow_row(struct out *o, const struct watch_flow *f);
/* JSON: the flow's object (inside the flows array). */
void watchflow_json(struct out *o, const struct watch_flow *f);

#endif
