/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reflect --xdp in the summary and the JSON ("xdp"): whether the
 * program answered, why not, and its counts, in all and per CPU.
 */
#ifndef RANT_XDPOUT_H
#define RANT_XDPOUT_H

#include "out.h"

struct xdp_report;

/* Nothing when x is NULL (--xdp not given). */
void xdpout_print(struct out *o, const struct xdp_report *x);

#endif
