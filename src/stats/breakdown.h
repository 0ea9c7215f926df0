/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of one transaction: every stamp it has and every step of
 * the path, and which step inside the metric that breached took longest
 * ("where the spike is"). A step outside that metric (the emitter's user
 * space around the wire RTT: emit_tx before T1, emit_rx after T4) is
 * shown but never blamed: it is not part of the time that breached.
 */
#ifndef RANT_BREAKDOWN_H
#define RANT_BREAKDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "metric.h"
#include "record.h"

struct breakdown {
	bool have[M_COUNT];
	int64_t ns[M_COUNT];
	int within;		/* the metric the spike is looked for in */
	int largest;		/* the largest step inside it (metric id), or the
				 * sender's queue holding most of that step; -1:
				 * none known */
};

/*
 * The path steps of rec: on the emitter emit_tx, network, the
 * reflector's steps and emit_rx; on the reflector its own steps. When
 * only some of the reflector's steps are known, its response stands as
 * one step instead (when the response is known itself).
 * Only steps whose stamps are all present count; the largest of those
 * inside the metric within is marked (metric.h: metric_inside).
 */
void breakdown_compute(const struct txrec *rec, bool emit, enum metric_id within,
		       struct breakdown *b);

/* Is metric m a step of the path for this side (emit or not)? */
bool breakdown_is_step(const struct breakdown *b, enum metric_id m, bool emit);

/*
 * Is metric m a part of a step for this side: the side's own sender's
 * queue (emit_queue inside emit_tx, before T1; reflect_queue inside
 * reflect_tx and the response)? Shown with the path; marked instead of
 * its step when it holds more than half of the largest step.
 */
bool breakdown_is_part(enum metric_id m, bool emit);

/* Is step or part m of b inside the metric b's spike is looked for in? */
static inline bool breakdown_inside(const struct breakdown *b, enum metric_id m)
{
	return metric_inside(m, (enum metric_id)b->within);
}

#endif
