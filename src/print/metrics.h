/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Prometheus metrics of a live run (--metrics FILE, --metrics-listen):
 * a thread off the measuring CPU (offloop.h) takes a live snapshot
 * (snap_build(SNAP_LIVE): the loop is neither stopped nor waited for)
 * at start and every -I interval (METRICS_DEFAULT_INTERVAL_NS without
 * -I), renders it (prom.h), hands it to the HTTP server (promhttp.h) and
 * writes FILE whole (outfile.h: a temporary beside it, renamed over it).
 * The end's file is written from the final snapshot by its output row
 * (outprom.c) after metrics_stop().
 */
#ifndef RANT_METRICS_H
#define RANT_METRICS_H

#include <stdio.h>

#include "cfg.h"
#include "prom.h"

#define METRICS_DEFAULT_INTERVAL_NS (10 * 1000000000LL)

struct run;
struct metrics;

/* With --metrics or --metrics-listen: the thread (and the server) running
 * in *m; otherwise *m = NULL. 0, or -errno after a line on stderr. */
int metrics_start(struct run *r, struct metrics **m);
/* The exposition of now into f (any report's): 0, or -errno. */
typedef int (*metrics_render_fn)(void *ctx, FILE *f, const struct prom_ladder *l);
/* The same thread for another report than a run's (--watch's): its
 * exposition is fn(ctx, ...)'s. */
int metrics_start_with(const struct rant_cfg *c, metrics_render_fn fn, void *ctx,
		       struct metrics **m);
/* Stop the thread, publish the end's exposition (the file; the server
 * until it stops), stop the server: for a report that no output row
 * writes at the end (--watch's). NULL is fine. */
void metrics_finish(struct metrics *m);
/* Stop the thread and the server (before the end's file). NULL is fine. */
void metrics_stop(struct metrics *m);

#endif
