/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outputs of --read and --watch (watch.h): the start-up line, the
 * metrics while the capture is read (--metrics, --metrics-listen: per
 * server port, watchprom.h), and at the end the report in one pass of
 * out.h's printers, text (the worst flows and what held them, each
 * server port, the capture's metrics and diagnosis, what could not be
 * told) and JSON (-j: every flow kept, with its metrics, diagnosis and
 * timeline).
 *
 *	watchout_start()  -j's file created (an unwritable one fails here,
 *			  before any packet), the metrics thread started,
 *			  the start-up line printed
 *	watchout_end()    the report printed and written, files committed
 */
#ifndef RANT_WATCHOUT_H
#define RANT_WATCHOUT_H

#include "cfg.h"
#include "out.h"
#include "watch.h"

struct watchout;

/* 0, or -errno after a line on stderr. */
int watchout_start(struct watchout **op, const struct rant_cfg *c, struct watch *w);
/* The report, and the read error that ended it (on stderr); 0, or
 * -errno when an output failed (after a message). Frees o. */
int watchout_end(struct watchout *o);

/* The report to o (text and JSON), for tests and the end. */
void watchout_print(struct out *o, const struct rant_cfg *c, const struct watch_report *r);

#endif
