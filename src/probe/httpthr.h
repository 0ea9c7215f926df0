/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --threads N: the connections of --http and --request split over N
 * loops (httploop.c), the lead's on the run's own thread and N - 1 on
 * threads of their own, one CPU each of rant's affinity when it has N
 * or more. Each other loop has its copy of the run (struct run): its
 * own counts and histograms, added into the run's at the end (exact:
 * a histogram's buckets and sums add); -I's series and -l's log are the
 * run's, fed under one lock. Not for other modules. Every call takes
 * NULL (one loop) and does then what one loop needs.
 */
#ifndef RANT_HTTPTHR_H
#define RANT_HTTPTHR_H

#include "httpconn.h"

struct httpthr;

/* The lead's loop on r, with its share of the connections, and with
 * --threads above 1 the others, in *t (NULL: one loop). 0 or -errno. */
int httpthr_create(struct run *r, struct http *lead, struct httpthr **t);
/* The lead's request bytes, for the others to send too. */
void httpthr_request(struct httpthr *t, const struct http *lead);
/* The others started (pinned): 0, or -EIO with r->failure said. */
int httpthr_start(struct httpthr *t);
/* The lead's warm-up ended with ret: when every loop's has, the first
 * failure of any (0: all warmed up). */
int httpthr_warmed(struct httpthr *t, int ret);
/* The lead began measuring: the others begin beside it. */
void httpthr_begun(struct httpthr *t);
/* Every other loop ended. */
void httpthr_join(struct httpthr *t);
/* Their counts and histograms added into the lead's run, their
 * warm-up's into lead. */
void httpthr_merge(struct httpthr *t, struct http *lead);
void httpthr_destroy(struct httpthr *t);

#endif
