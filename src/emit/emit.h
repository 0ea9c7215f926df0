/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emitter (client): warm-up until stamps flow, then measured pings
 * until -d or -c; after a breach without -C, one unmeasured ping more
 * brings the breached transaction's T3 (the follow-up).
 *
 * Closed loop (the default): one ping at a time, back to back or paced
 * (--interval), each waited for at most --timeout. Paced, the slots are
 * start + k x interval: a slot whose time passed while the emitter was
 * still waiting for an earlier pong is missed (counted in missed_slots)
 * and its ping leaves as soon as the emitter is free, back to back until
 * the schedule is caught up (wrk2's model), so rtt_intended (latency from
 * the slot's time) shows what the wait hid: coordinated omission.
 *
 * Open loop (--open-loop): each ping leaves at its slot whether or not
 * the earlier pongs came back; several are in flight (openloop.h),
 * matched by seq, retired in seq order, lost when --timeout passes.
 */
#ifndef RANT_EMIT_H
#define RANT_EMIT_H

#include "run.h"

/*
 * Run the emitter on a set-up run. 0 when it measured (or was stopped by
 * a signal), -EIO when the warm-up never got a stamped pong (the reason
 * in r->failure).
 */
int emit_run(struct run *r);

#endif
