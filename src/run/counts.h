/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counters of a run: written by the packet loop alone, read by the
 * summary at the end and by a live snapshot (snap.h) during the run.
 */
#ifndef RANT_COUNTS_H
#define RANT_COUNTS_H

#include <stdint.h>

struct counts {
	uint64_t sent;		/* measured datagrams sent (pings, or pongs) */
	uint64_t received;	/* measured datagrams received and matched */
	uint64_t lost;		/* emitter: no pong within --timeout */
	uint64_t late;		/* emitter: pong after its ping was counted lost */
	uint64_t duplicate;	/* a second copy of a datagram already seen */
	uint64_t invalid;	/* not a valid rant datagram (no reply) */
	uint64_t socket_drops;	/* dropped by the kernel before rant read them
				 * (SO_RXQ_OVFL), the whole run; set at the end */
	uint64_t foreign;	/* emitter: pong of another session */
	uint64_t warmup;	/* unmeasured pings: sent (emitter), received (reflector) */
	uint64_t fetch;		/* unmeasured pings after measuring (MSG_F_FETCH): the
				 * breached pong's T3, the reflector's report */
	uint64_t warmup_late;	/* emitter: late pongs of unmeasured pings */
	uint64_t warmup_duplicate; /* emitter: duplicate pongs of unmeasured pings */
	uint64_t missing_tx_ts;	/* measured sends without a TX stamp */
	/* ... why (txpend.h): none within the cap, the error queue dropped
	 * it (a later send's came), the table of pending sends was full */
	uint64_t missing_tx_timeout, missing_tx_overflow, missing_tx_full;
	uint64_t qdisc_drops;	/* reflector, kernel stamps: pongs that entered the qdisc (their
				 * SCHED stamp came) and never left (txpend.h) */
	uint64_t missing_rx_ts;	/* measured receives without an RX stamp */
	uint64_t backwards_tx_ts; /* TX wire stamps earlier than the previous one
				 * (T1 emitting, T3 reflecting) */
	uint64_t backwards_rx_ts; /* RX wire stamps likewise (T4, T2) */
	uint64_t send_errors;	/* send() failed */
	uint64_t sessions;	/* reflector: emitter runs served */
	uint64_t refused;	/* reflector: pings of a new session, table full;
				 * emitter: pongs saying so (MSG_F_REFUSED) */
	uint64_t replayed;	/* --key, reflector: pings refused as replays
				 * (session.h), unanswered */
	uint64_t unauthenticated; /* --key: reflector, pings without a valid MAC
				 * (unanswered); emitter, pongs without one
				 * (also counted invalid, never taken) */
	uint64_t not_allowed;	/* reflector: datagrams (TCP: connections) from
				 * outside --allow, dropped unread */
	uint64_t looped;	/* reflector, --stamp: datagrams from a reflector's
				 * port (862 or --port), dropped unanswered: an
				 * answer would start a reflection loop */
	uint64_t rate_limited;	/* reflector: pings above --max-rate from one
				 * sender, dropped unanswered */
	uint64_t repeated;	/* reflector, --stamp: requests of a number its
				 * session's replies carried SEQREP_MAX times, or
				 * that it chose itself (seqrep.h): a loop's,
				 * dropped unanswered */
	uint64_t breaches;	/* transactions above -t */
	uint64_t log_skipped;	/* below -L, not logged */
	/* emitter: loss in detail, and the schedule (--interval) */
	uint64_t loss_burst_max; /* longest run of consecutive lost pings */
	uint64_t reordered;	/* pongs that came after the pong of a later seq */
	uint64_t missed_slots;	/* pings that did not leave at their slot (emit.c) */
	uint64_t inflight_max;	/* most pings in flight at once */
};

#endif
