/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector's state during a run, which its loop (reflect.c) and the
 * pongs' aftermath (reflstamp.c) share; the aftermath's steps (their TX
 * stamps harvested, queued as follow-ups, their records counted,
 * sampled, logged) are reflstamp.h's. Not for other modules: reflect.h
 * is the reflector's interface.
 */
#ifndef RANT_REFLECTOR_H
#define RANT_REFLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"
#include "sock.h"
#include "txpend.h"

struct run;
struct session;
struct xdprefl;

/*
 * A pong's TX stamp is waited for this long at most (the loop goes on
 * meanwhile): far above any queue a latency run meets (the bufferbloat
 * queue of the README holds a pong 240 ms), and within what a record
 * can hold (T3 - T2 is an int32 of ns: 2.147 s).
 */
#define TX_STAMP_CAP_NS (2 * NS_PER_SEC)
#define TX_PENDING 8192		/* pongs awaiting their stamp at most */
#define RF_MEASURED 1u		/* txpend_entry flags: a measured ping's pong */
#define CAME_REFRESH 64		/* pings between two readings of the clocks' offset */

/*
 * --tcp --writes 2 or more: a pong whose T3 is its last byte's stamp,
 * which Nagle may hold until the emitter's delayed ACK of its first part
 * (40 ms and more): not waited for; read when the connection's next ping
 * comes (its pong had left by then) or at the end.
 */
#define TAILS 64
struct conn_tail {
	struct sk *via;		/* the connection; NULL: the slot is free */
	int fd;			/* ... its socket then (a slot reused by a new
				 * connection is not the same) */
	struct txpend_entry e;	/* the pong, its key and record */
};

/* State across sessions; each session's own is in struct session. */
struct reflector {
	struct run *r;
	struct txpend *pend;	/* pongs awaiting their TX stamp */
	int pend_fd;		/* ... sent on this socket (TCP: a new connection
				 * restarts the keys, its stamps go with it) */
	struct conn_tail tail[TAILS];	/* --tcp, --writes >= 2: pongs awaiting
				 * their last byte's stamp, one a connection */
	bool stopped;		/* a breach or a failed log: measure no more */
	bool started;		/* RANT_TEST_START written */
	bool stamped;		/* an RX stamp has arrived: spinning is safe */
	bool want_sw;		/* a session asked for SW stamps: take T2_SW */
	int64_t real_off;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	unsigned int came_n;	/* pings since real_off was read, CAME_REFRESH: stale */
	struct xdprefl *xdp;	/* --xdp: the program in front, NULL: none */
};

/* A ping answered: its pong composed, waiting for its send. */
struct answer {
	struct session *s;	/* NULL: gone from the table (reflect_refind) */
	const struct sk_msg *m;	/* the ping's datagram */
	uint32_t id;		/* its session's id */
	struct txrec rec;	/* filled after the send (reflect_record) from: */
	uint64_t seq;
	int64_t t2_wire, t2_sw, t3_sw;
	int64_t came;		/* CLOCK_MONOTONIC when it was read */
	uint64_t pong_no;	/* the pong's number in its session */
	uint32_t len;		/* the pong's bytes */
	bool measured, warm, fetch;
};

#endif
