/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of one transaction: every stamp it has and every step of
 * the path, and which step took longest ("where the spike is").
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
	int largest;		/* a path step (metric id), or -1: none known */
};

/*
 * The path steps of rec: on the emitter emit_tx, network, the
 * reflector's steps and emit_rx; on the reflector its own steps. When
 * only some of the reflector's steps are known, its response stands as
 * one step instead (when the response is known itself).
 * Only steps whose stamps are all present count; the largest is marked.
 */
void breakdown_compute(const struct txrec *rec, bool emit,
		       struct breakdown *b);

/* Is metric m a step of the path for this side (emit or not)? */
bool breakdown_is_step(const struct breakdown *b, enum metric_id m, bool emit);

/*
 * Is metric m a part of a step for this side: the side's own sender's
 * queue (emit_queue inside emit_tx, before T1; reflect_queue inside
 * reflect_tx and the response)? Shown with the path, never "largest".
 */
bool breakdown_is_part(enum metric_id m, bool emit);

#endif
