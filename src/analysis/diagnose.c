// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diagnoses from a run's numbers (see diagnose.h).
 */
#include <stdio.h>

#include "diagnose.h"
#include "timeutil.h"

/* Delayed-ACK timers in the wild, and the window taken as "near" one. */
static const struct delack {
	int64_t timer_ns, lo_ns, hi_ns;
	const char *who;
} delacks[] = {
	{ 40 * NS_PER_MS, 30 * NS_PER_MS, 70 * NS_PER_MS,
	  "Linux's delayed-ACK timer (40 ms at least)" },
	{ 100 * NS_PER_MS, 80 * NS_PER_MS, 140 * NS_PER_MS,
	  "the BSD and macOS delayed-ACK timer" },
	{ 200 * NS_PER_MS, 160 * NS_PER_MS, 260 * NS_PER_MS,
	  "the delayed-ACK timer of Windows (and Linux's longest)" },
};

bool diagnose_delack(const struct rant_cfg *c, const int64_t q[DIAG_NQ],
		     char *buf, size_t len)
{
	if (!c->tcp || c->nodelay || c->cork || c->writes < 2)
		return false;
	for (size_t d = 0; d < sizeof(delacks) / sizeof(delacks[0]); d++) {
		const struct delack *k = &delacks[d];
		int near = 0, lo = -1, hi = -1;

		for (int i = 0; i < DIAG_NQ; i++) {
			if (q[i] < k->lo_ns || q[i] > k->hi_ns)
				continue;
			near++;
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (near * 4 < DIAG_NQ)
			continue;
		snprintf(buf, len,
			 "round trips from p%d to p%d sit near %lld ms, %s: with Nagle's algorithm on, the last of --writes %u waits for the ACK of the first, which the reflector holds back; fix: --nodelay (TCP_NODELAY in the application), or one write per message",
			 (lo + 1) * 5, (hi + 1) * 5, (long long)(k->timer_ns / NS_PER_MS), k->who,
			 c->writes);
		return true;
	}
	return false;
}
