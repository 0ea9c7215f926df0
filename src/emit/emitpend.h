/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The closed loop's measured records that wait after their pong: for
 * their ping's TX stamp (txpend.h), for their follow-up T3 (holdback.h).
 */
#ifndef RANT_EMITPEND_H
#define RANT_EMITPEND_H

#include "emitter.h"
#include "measure.h"

/*
 * The tables, made before measuring (0, or -ENOMEM said on stderr) and
 * freed after; a record whose pong came before its ping's TX stamp
 * (e->t1_wait), deferred until the stamp comes; the stamps that came,
 * to their records (those whose turn came measured); at the end of
 * measuring, the stamps still awaited, then every record retired.
 */
int emit_pend_create(struct emitter *e);
void emit_pend_destroy(struct emitter *e);
enum measure_next emit_defer(struct emitter *e, const struct txrec *rec);
enum measure_next emit_pend_harvest(struct emitter *e);
enum measure_next emit_pend_finish(struct emitter *e, enum measure_next step);

#endif
