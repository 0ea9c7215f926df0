/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector's pongs after their send (reflstamp.c), for its loop
 * (reflect.c): each pong's TX stamp harvested whenever it comes and
 * queued as a follow-up, a measured ping's record counted, sampled,
 * logged and checked; measuring begun; the last pongs retired at the end.
 */
#ifndef RANT_REFLSTAMP_H
#define RANT_REFLSTAMP_H

#include <stdbool.h>
#include <stdint.h>

#include "measure.h"
#include "reflector.h"
#include "session.h"
#include "sock.h"

/* A measured ping was answered (sent: its pong left; tx_stamped: with
 * its TX stamp): count, sample, log, check -t. s NULL: its session was
 * evicted while its pong awaited its stamp. */
enum measure_next reflect_measured(struct run *r, struct session *s, struct txrec *rec,
				   bool sent, bool tx_stamped, int64_t came_mono);
/* The first measured ping: measuring starts. */
void reflect_start(struct run *r, struct reflector *f, const struct session *s);
/* The stamps queued now to their pongs, and the pongs whose turn came
 * retired (at now, CLOCK_MONOTONIC): non-zero when the run stops. */
int reflect_harvest(struct run *r, struct reflector *f, int64_t now);
/* The pong of a left with OPT_ID key (on via: a TCP connection's socket,
 * NULL: the reflector's): into the table until its stamp comes (s NULL:
 * its session was evicted; its stamp is read all the same). Non-zero:
 * stop. */
int reflect_pend(struct run *r, struct reflector *f, struct session *s,
		 const struct answer *a, uint32_t key, struct sk *via);
/* The run ends: the last pongs' stamps waited for, every pong retired. */
void reflect_finish(struct run *r, struct reflector *f);

/* --tcp: a ping came on via: its earlier pong's last byte has left, its
 * stamp read now, so this ping's pong carries its T3.
 * Non-zero: stop. */
int reflect_tail(struct reflector *f, struct sk *via);

#endif
