/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter's open loop (--open-loop): each ping leaves at its slot
 * whether or not the earlier pongs came back (see emit.h).
 */
#ifndef RANT_EMITOPEN_H
#define RANT_EMITOPEN_H

#include "emitter.h"
#include "measure.h"

/* Measured pings of e->size, open loop, until -c, -d, a signal, a full
 * log or a breach; the pings in flight then waited for and counted. */
enum measure_next emitopen_measure(struct emitter *e);

#endif
