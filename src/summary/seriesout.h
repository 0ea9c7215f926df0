/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interval reports (-I) in the summary, from the snapshot's copy of
 * the rows (series.h: struct series_snap).
 */
#ifndef RANT_SERIESOUT_H
#define RANT_SERIESOUT_H

#include "out.h"
#include "series.h"

/*
 * The summary's part: text, the "over time" lines (an interval whose
 * median is at least twice run_p50, one that lost 1% or more and twice
 * run_loss_pct) and what is not in any interval; JSON, "series_missed"
 * and the "series" array of rows.
 */
void series_print(struct out *o, const struct series_snap *ss, int64_t run_p50,
		  double run_loss_pct);

#endif
