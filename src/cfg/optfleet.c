// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's options against the rest (see optfleet.h).
 */
#include "optfleet.h"
#include "opttab.h"

int optfleet_mode(struct rant_cfg *c, const bool *given, FILE *err)
{
	if (given['a'] && given[O_TARGETS]) {
		fprintf(err, "rant: -a/--address names one reflector, --targets a file of them: give one of the two\n");
		return -1;
	}
	c->mode = given['a'] || given[O_TARGETS] ? MODE_EMIT : MODE_REFLECT;
	return 0;
}

int optfleet_check(struct rant_cfg *c, const bool *given, FILE *err)
{
	static const struct { int val; const char *name, *why; } not_fleet[] = {
		{ O_TCP, "--tcp", "a fleet's pings are UDP datagrams" },
		{ O_PTP_MODE, "--ptp-mode",
		  "--ptp-mode binds port 319, and a fleet sends from a port a path" },
		{ O_ONE_WAY, "--one-way", "a fleet measures the round trip alone" },
		{ O_PCAP, "--pcap", "--pcap checks the stamps of one reflector's packets" },
	};

	if (c->flow_label && c->paths < 2) {
		fprintf(err, "rant: --flow-label needs --paths 2 or more: the flows it labels\n");
		return -1;
	}
	if (!cfg_fleet(c))
		return 0;
	for (size_t i = 0; i < sizeof(not_fleet) / sizeof(not_fleet[0]); i++) {
		if (!given[not_fleet[i].val])
			continue;
		fprintf(err, "rant: %s is not for a fleet (--targets, --paths): %s: drop it\n",
			not_fleet[i].name, not_fleet[i].why);
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
