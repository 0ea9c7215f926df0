/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of one run, shared by the packet loops (emit.c, reflect.c),
 * the set-up and the reports. Everything here is allocated and touched
 * by run_setup(), before the first packet; run_teardown() undoes it.
 */
#ifndef RANT_RUN_H
#define RANT_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "hist.h"
#include "metric.h"
#include "msgfmt.h"
#include "openloop.h"
#include "opts.h"
#include "outfile.h"
#include "record.h"
#include "sock.h"
#include "transport.h"
#include "txlog.h"

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
	uint64_t warmup_late;	/* emitter: late pongs of unmeasured pings */
	uint64_t warmup_duplicate; /* emitter: duplicate pongs of unmeasured pings */
	uint64_t missing_tx_ts;	/* measured sends without a TX stamp */
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
	uint64_t breaches;	/* transactions above -t */
	uint64_t log_skipped;	/* below -L, not logged */
	/* emitter: loss in detail, and the schedule (--interval) */
	uint64_t loss_burst_max; /* longest run of consecutive lost pings */
	uint64_t reordered;	/* pongs that came after the pong of a later seq */
	uint64_t missed_slots;	/* pings that did not leave at their slot (emit.c) */
	uint64_t inflight_max;	/* most pings in flight at once */
};

/* One size of a sweep (-m LIST or RANGE). */
struct sweep_point {
	uint32_t size;		/* bytes */
	struct hist *rtt;	/* this size's round trips */
	uint64_t sent, lost;	/* measured pings of this size */
	bool done;		/* measured (not cut short before it) */
};

/* A breach kept for the report (the first few in full). */
#define RUN_MAX_BREACHES 64
struct breach {
	struct txrec rec;
	int64_t latency_ns;
};

struct run {
	const struct rant_cfg *cfg;
	const struct transport *tp;	/* how messages travel (transport.h) */
	struct sk sk;			/* its socket */
	struct msgfmt_ctx fmt;		/* how messages are laid out (msgfmt.h) */
	uint32_t session;		/* emitter: this run's id */
	struct hist *hist[M_COUNT];	/* NULL: metric not in this run */
	struct txlog *log;
	struct sessions *sessions;	/* reflector: one per emitter run */
	struct auth *auth;		/* --key, or NULL */
	bool peer_no_key;		/* emitter: a pong came without a MAC */
	struct outfile logf, jsonf;
	bool have_log, have_json;
	struct counts cnt;
	bool peer_body;			/* emitter: pongs carried a body */
	bool peer_hw;			/* emitter: reflector's stamps are HW */
	const char *stop_reason;	/* why the loop ended, for the report */
	char failure[256];		/* why nothing was measured (exit 2) */
	int trace_err;			/* -errno of the marker/freeze at a breach */
	int64_t start_ns, end_ns;	/* CLOCK_REALTIME of measuring start/end */
	int dma_fd;			/* /dev/cpu_dma_latency held at 0 */
	struct breach breach[RUN_MAX_BREACHES];
	unsigned int nbreach;		/* kept in breach[] */
	struct trace *trace;		/* -T */
	struct capture *capture;	/* --pcap */
	struct series *series;		/* -I: the interval reports, or NULL */
	struct clock *clock;		/* PHC checks, theta (clock.h) */
	struct sweep_point sweep[RANT_MAX_SIZES];
	unsigned int nsweep;		/* sizes of a sweep; 0 without one */
	unsigned int sweep_idx;		/* the size being measured */
	struct hist *rtt_intended;	/* emitter with --interval: RTT from the slot's time */
	struct ol_table flight;		/* --open-loop: the pings in flight */
};

extern volatile sig_atomic_t run_stop;

/*
 * Everything before the first packet: socket, memory (touched and
 * locked), output files, idle-state hold, signals, trace files.
 * Returns 0, or prints one line (problem and fix) and returns -errno.
 */
int run_setup(struct run *r, const struct rant_cfg *cfg);
void run_teardown(struct run *r);

/* The primary metric: RTT emitting, response reflecting. */
static inline enum metric_id run_primary(const struct run *r)
{
	return metric_primary(r->cfg->mode);
}

#endif
