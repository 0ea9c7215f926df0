/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a trace's hops say (rant trace): which unanswered probes were a
 * router's ICMP rate limit rather than loss, and the verdict.
 *
 * Rate limits. A router that forwards probes but does not answer them
 * all is not losing them: it limits its ICMP (Linux: icmp_ratelimit, a
 * burst of 6 then one a second for each destination). The missing
 * answers of a (path, hop) are rate_limited when a hop further on the
 * same path answered a larger share of its probes (they passed the
 * router) and some path answered at that hop (where none did, the hop
 * is silent: `*`), or when the same responder is so labelled on another
 * path (the limit is the router's, whatever the path). Never counted as
 * loss.
 *
 * The verdict, per path, on the medians of the hops that answered (each
 * hop's step: its median minus the previous answering hop's):
 *
 *   delay_step   a step of HOPDIAG_MIN_STEP_NS or more, at least the
 *                previous median (twice the time) and HOPDIAG_NOISE_FACTOR
 *                times the previous hop's spread (median - min), that
 *                stays: every later hop at least half the step above the
 *                previous median; named with the paths that have it at the
 *                same hop, their responders there, and the paths without
 *   slow_answer  the same step at a hop the next answering hop does not
 *                keep (below half the step): the router is slow in its
 *                own answers (ICMP is its slow path), not the path
 *   loss_from    a hop from which every hop on loses answers not
 *                labelled rate_limited (the destination not reached
 *                or short too)
 *
 * No allocation; n <= 64 paths (a bit each).
 */
#ifndef RANT_HOPDIAG_H
#define RANT_HOPDIAG_H

#include <stdbool.h>
#include <stdint.h>

#define HOPDIAG_MIN_STEP_NS 200000
#define HOPDIAG_NOISE_FACTOR 4
#define HOPDIAG_NONE UINT32_MAX		/* no responder */
#define HOPDIAG_MAX 16			/* findings at most */

/* One hop of one path. */
struct hopdiag_cell {
	uint64_t sent, received;
	int64_t p50_ns, min_ns;		/* with received */
	uint32_t responder;		/* the caller's number of its address, or
					 * HOPDIAG_NONE */
	bool rate_limited;		/* set by hopdiag_rate_limits() */
};

struct hopdiag_path {
	unsigned int hops;		/* cell[0] is TTL 1 */
	struct hopdiag_cell *cell;
};

enum hopdiag_kind {
	HOPDIAG_DELAY_STEP,
	HOPDIAG_SLOW_ANSWER,
	HOPDIAG_LOSS_FROM,
};

struct hopdiag {
	enum hopdiag_kind kind;
	unsigned int ttl;
	uint64_t paths;			/* bit i: path i */
	uint64_t others;		/* the paths that answered at ttl without it */
	uint32_t responder;		/* at ttl on the paths named, when one
					 * responder there is theirs alone; else
					 * HOPDIAG_NONE */
	int64_t step_ns;		/* delay_step, slow_answer: the median step
					 * (the smallest of the paths named) */
	double lost;			/* loss_from: the share lost at ttl */
};

/* Label the rate-limited (path, hop)s of n paths. */
void hopdiag_rate_limits(struct hopdiag_path *p, unsigned int n);

/* The findings into out[HOPDIAG_MAX]: how many. */
unsigned int hopdiag_find(const struct hopdiag_path *p, unsigned int n, struct hopdiag *out);

/* "delay_step", "slow_answer", "loss_from". */
const char *hopdiag_kind_name(enum hopdiag_kind k);

#endif
