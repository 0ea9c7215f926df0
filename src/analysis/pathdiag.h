/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The paths of one target that stand out from its others (--paths: one
 * flow a path, which ECMP hashes onto one of its links), named with
 * their fix:
 *
 *   path_latency  a path's median round trip at least PATHDIAG_FACTOR
 *                 times the target's reference (the lower quartile of
 *                 its paths' medians, so the rule holds while a quarter
 *                 of the paths or more are fast: the slow ones may be
 *                 most of them) and PATHDIAG_MIN_EXCESS_NS above it;
 *                 paths of PATHDIAG_MIN_SAMPLES round trips or more,
 *                 four of them at least
 *   path_loss     a path that lost PATHDIAG_MIN_LOST pings or more, at a
 *                 rate at least 3 times the other paths' together and
 *                 1% above it
 *
 * The same treatment on every path names nothing (a target that lost
 * everything, or is slow on every path, is a target's matter, not a
 * path's). Medians, not means: a few spikes do not make a path slow.
 */
#ifndef RANT_PATHDIAG_H
#define RANT_PATHDIAG_H

#include <stdint.h>

#define PATHDIAG_FACTOR 2.0
#define PATHDIAG_MIN_EXCESS_NS 2000
#define PATHDIAG_MIN_SAMPLES 10
#define PATHDIAG_MIN_LOST 3

/* One path of the target, as its counts and statistics say. */
struct pathdiag_in {
	uint64_t sent, lost;
	uint64_t samples;	/* round trips measured */
	int64_t p50_ns;
};

enum pathdiag_kind {
	PATHDIAG_LATENCY,
	PATHDIAG_LOSS,
};

struct pathdiag {
	enum pathdiag_kind kind;
	uint64_t paths;		/* bit i: path i is named */
	int64_t ref_ns;		/* latency: the reference median */
	int64_t worst_ns;	/* latency: the largest median named */
	double ref_loss;	/* loss: the other paths' rate */
	double worst_loss;	/* loss: the largest rate named */
};

/* The findings of n (<= 64) paths into out: how many (0 to 2). */
unsigned int pathdiag_find(const struct pathdiag_in *p, unsigned int n, struct pathdiag out[2]);

/* "path_latency", "path_loss"; and what to do about it. */
const char *pathdiag_kind_name(enum pathdiag_kind k);
const char *pathdiag_fix(enum pathdiag_kind k);

#endif
