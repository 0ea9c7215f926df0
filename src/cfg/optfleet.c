// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's options against the rest (see optfleet.h).
 */
#include "optfleet.h"
#include "opttab.h"

int optfleet_mode(const bool *given, FILE *err)
{
	if (given['a'] && given[O_TARGETS]) {
		fprintf(err, "rant: -a/--address names one reflector, --targets a file of them: give one of the two\n");
		return -1;
	}
	return 0;
}

int optfleet_check(struct rant_cfg *c, const bool *given, FILE *err)
{
	char label[40];

	if (c->flow_label && c->paths < 2) {
		fprintf(err, "rant: --flow-label needs --paths 2 or more: the flows it labels\n");
		return -1;
	}
	if (given[O_RCVBUF] && !cfg_fleet(c)) {
		fprintf(err, "rant: --rcvbuf sizes a fleet's sockets: give --targets or --paths, or drop it\n");
		return -1;
	}
	if (!cfg_fleet(c))
		return 0;
	for (size_t i = 0; i < opt_count; i++) {	/* the rows' .not_fleet */
		if (!opt_table[i].not_fleet || !given[opt_table[i].val])
			continue;
		fprintf(err, "rant: %s is not for a fleet (--targets, --paths): %s: drop it\n",
			opt_label(opt_table[i].val, label, sizeof(label)), opt_table[i].not_fleet);
		return -1;
	}
	if (c->nsizes > 1) {
		fprintf(err, "rant: -m/--size with a list or range sweeps one reflector: give a fleet one size\n");
		return -1;
	}
	if (given[O_INTERVAL] && !c->interval_ns) {
		fprintf(err, "rant: --interval 0 (back to back) is not for a fleet: each target has its own schedule, give it an --interval above 0\n");
		return -1;
	}
	if (!given[O_INTERVAL])
		c->interval_ns = RANT_FLEET_INTERVAL_NS;
	if (!given['w'])
		c->warmup = RANT_FLEET_WARMUP;
	c->open_loop = true;
	c->no_queue_stamps = true;	/* the round trip alone: no SCHED stamp */
	c->cont = true;		/* one target's breach never stops the others */
	return 0;
}
