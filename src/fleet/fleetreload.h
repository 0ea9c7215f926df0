/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGHUP (fleetreload.c), for the fleet's loop (fleet.c): --targets read
 * again on a thread beside the loop, the changes handed over.
 */
#ifndef RANT_FLEETRELOAD_H
#define RANT_FLEETRELOAD_H

#include <stdint.h>

#include "fleetloop.h"

/* SIGHUP's thread (started when the fleet has a file), the changes it
 * handed over applied, the thread stopped. */
int fl_reload_start(struct fleetloop *L);
void fl_reload_apply(struct fleetloop *L, int64_t now);
void fl_reload_stop(struct fleetloop *L);

#endif
