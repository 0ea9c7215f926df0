/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --metrics FILE at the end: the final snapshot in the Prometheus text
 * format (prom.h), rendered on its own (outputs.h, write). The files of
 * the run's intervals are metrics.c's.
 */
#ifndef RANT_OUTPROM_H
#define RANT_OUTPROM_H

#include "output.h"

int outprom_write(struct output *o, const struct output_src *src);

#endif
