/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options that name a metric: --threshold-metric must name one this
 * run measures, one transaction at a time (metric.h: metric_in_run); its
 * id is kept beside its name in the configuration.
 */
#ifndef RANT_OPTMETRIC_H
#define RANT_OPTMETRIC_H

#include <stdio.h>

#include "cfg.h"

/* c->threshold_metric resolved into c->threshold_metric_id: 0, or -1 with
 * one line in err naming what the run measures (or, for a SW metric
 * without -s, the fix). */
int optmetric_check(struct rant_cfg *c, FILE *err);

#endif
