/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/dueheap.h: deadlines by id. Against a plain array, over
 * random sets, moves and removals: the top is always the earliest (ties
 * by any id of that due), an id is in exactly when it was set and not
 * removed.
 */
#include <stdlib.h>

#include "dueheap.h"
#include "tap.h"

#define CAP 500

int main(void)
{
	static int64_t due[CAP];
	static bool in[CAP];
	struct dueheap h;
	int bad = 0;

	if (!ok(dueheap_init(&h, CAP) == 0, "init"))
		return done_testing();
	srand(11);
	for (int step = 0; step < 200000; step++) {
		uint32_t id = (uint32_t)rand() % CAP, top;
		int64_t best = INT64_MAX, d;

		if (rand() % 3) {
			due[id] = rand() % 1000;
			in[id] = true;
			dueheap_set(&h, id, due[id]);
		} else {
			in[id] = false;
			dueheap_remove(&h, id);
		}
		for (int i = 0; i < CAP; i++) {
			if (in[i] && due[i] < best)
				best = due[i];
			if (in[i] != dueheap_has(&h, (uint32_t)i))
				bad++;
		}
		if (best == INT64_MAX ? dueheap_top(&h, &top, &d) :
		    !dueheap_top(&h, &top, &d) || d != best || due[top] != best || !in[top])
			bad++;
	}
	is_int(bad, 0, "200000 sets and removals: the top the earliest, membership exact");
	dueheap_free(&h);
	return done_testing();
}
