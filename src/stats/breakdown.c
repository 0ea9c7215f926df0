// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Breakdown of a transaction into the steps of its path (see breakdown.h).
 */
#include <string.h>

#include "breakdown.h"

static const enum metric_id emit_steps[] = {
	M_EMIT_TX, M_NETWORK, M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_TX,
	M_EMIT_RX,
};
static const enum metric_id reflect_steps[] = {
	M_REFLECT_RX, M_REFLECT_PROC, M_REFLECT_TX,
};

bool breakdown_is_step(const struct breakdown *b, enum metric_id m, bool emit)
{
	bool split = b->have[M_REFLECT_RX] && b->have[M_REFLECT_PROC] &&
		     b->have[M_REFLECT_TX];

	/*
	 * The reflector's response is split into its three steps when all
	 * three are known. With only some known it stands as one step, since
	 * the unknown parts could hold the time; without it (its T3 wire
	 * stamp never came) the known parts are the steps.
	 */
	if (m == M_RESPONSE)
		return !split && b->have[M_RESPONSE];
	if (m == M_REFLECT_RX || m == M_REFLECT_PROC || m == M_REFLECT_TX)
		return split || !b->have[M_RESPONSE];
	if (emit) {
		for (size_t i = 0; i < sizeof(emit_steps) / sizeof(emit_steps[0]); i++)
			if (emit_steps[i] == m)
				return true;
		return false;
	}
	for (size_t i = 0; i < sizeof(reflect_steps) / sizeof(reflect_steps[0]); i++)
		if (reflect_steps[i] == m)
			return true;
	return false;
}

bool breakdown_is_part(enum metric_id m, bool emit)
{
	return m == (emit ? M_EMIT_QUEUE : M_REFLECT_QUEUE);
}

/* The step a part (a sender's queue) lies in, on this side. */
static enum metric_id part_step(const struct breakdown *b, enum metric_id part)
{
	if (part == M_EMIT_QUEUE)
		return M_EMIT_TX;
	return breakdown_is_step(b, M_RESPONSE, false) ? M_RESPONSE : M_REFLECT_TX;
}

void breakdown_compute(const struct txrec *rec, bool emit, enum metric_id within,
		       struct breakdown *b)
{
	memset(b, 0, sizeof(*b));
	b->within = within;
	b->largest = -1;
	for (int m = 0; m < M_COUNT; m++)
		b->have[m] = metric_value(m, rec, &b->ns[m]);
	for (int m = 0; m < M_COUNT; m++) {
		if (!b->have[m] || !breakdown_is_step(b, m, emit) || !breakdown_inside(b, m))
			continue;
		if (b->largest < 0 || b->ns[m] > b->ns[b->largest])
			b->largest = m;
	}
	/* A queue that holds most of the largest step is where its time went. */
	for (int m = 0; m < M_COUNT && b->largest >= 0; m++) {
		if (b->have[m] && breakdown_is_part(m, emit) &&
		    (int)part_step(b, m) == b->largest && b->ns[m] > b->ns[b->largest] / 2) {
			b->largest = m;
			break;
		}
	}
}
