/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clocks' report in the summary (clock.h fills struct clock_report).
 */
#ifndef RANT_CLOCKOUT_H
#define RANT_CLOCKOUT_H

#include <stdbool.h>

#include "clock.h"
#include "hwts.h"
#include "out.h"

/*
 * The summary's "clock:" block and "clock" object from cr: the PHC line,
 * the peer line, the warnings; local_hw says whose stamps this side's
 * are; h, the interface's timestamping (JSON only).
 */
void clock_print(struct out *o, const struct clock_report *cr, bool local_hw,
		 const struct hwts *h);

#endif
