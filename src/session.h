/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector's sessions: one per emitter run, keyed by the sender's
 * address and port AND the session id the emitter drew, so a datagram
 * from anywhere else can never touch a session's state (its follow-up,
 * its duplicate check, its counts), whatever id it carries. Up to a
 * fixed number at once; when the table is full, the session idle the
 * longest (and at least SESSION_IDLE_NS) makes room, else the newcomer
 * is refused. The table is allocated and touched at set-up; a look-up
 * allocates nothing (hot-path safe).
 */
#ifndef RANT_SESSION_H
#define RANT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "out.h"

#define SESSION_IDLE_NS (10LL * 1000000000)	/* idle this long: may be evicted */
#define SESSION_MAX_DEFAULT 64
#define SESSION_FU 32	/* follow-ups queued per session */

struct session {
	struct sockaddr_storage addr;	/* the emitter, as the datagram came */
	socklen_t addr_len;
	uint32_t id;			/* the emitter's session id */
	int64_t first_ns, last_ns;	/* CLOCK_MONOTONIC, first and last ping */
	/* state */
	bool want_sw;			/* its pings ask for SW stamps */
	uint64_t last_seq;		/* highest measured seq, 0: none yet */
	/* follow-ups: the T3 of earlier pongs as their TX stamps came,
	 * oldest first; each pong carries one (reflect.c) */
	uint64_t fu_seq[SESSION_FU];
	int64_t fu_t3[SESSION_FU];
	uint32_t fu_head, fu_n;
	uint64_t fu_dropped;		/* more came than pongs carried them */
	/* what it did */
	uint64_t received;		/* measured pings */
	uint64_t sent;			/* their pongs sent */
	uint64_t warmup;		/* unmeasured pings (and those -w left out) */
	uint64_t left_out;		/* measured pings -w left out */
	uint64_t duplicate;		/* measured seqs seen again */
	uint64_t missing_tx_ts, missing_rx_ts;
	uint64_t resp_n;		/* responses measured, and their */
	int64_t resp_min, resp_max;	/* ... min and max, ns */
	double resp_sum;		/* ... sum, ns */
};

struct sessions;

/* A table for up to max sessions; NULL with errno set. */
struct sessions *sessions_create(size_t max, bool hugepages);
void sessions_destroy(struct sessions *t);

/*
 * The session of (addr, id), started when new (*fresh set): evicting the
 * longest-idle one when the table is full and it has been idle at least
 * SESSION_IDLE_NS at now_ns. NULL when the table is full of live ones.
 */
struct session *sessions_get(struct sessions *t, const struct sockaddr *addr,
			     socklen_t addr_len, uint32_t id, int64_t now_ns,
			     bool *fresh);

/* Add one measured response (ns) to s's statistics. */
void session_response(struct session *s, int64_t resp_ns);

/* The sessions in the table now, in the order they started: i < count. */
size_t sessions_count(const struct sessions *t);
const struct session *sessions_at(const struct sessions *t, size_t i);

/* Sessions started in all, evicted to make room, refused (table full). */
uint64_t sessions_started(const struct sessions *t);
uint64_t sessions_evicted(const struct sessions *t);
uint64_t sessions_refused(const struct sessions *t);

/* "10.0.0.1 port 4000" or "fd00::1 port 4000" (IPv4-mapped shown as IPv4). */
void session_addr_str(const struct session *s, char *buf, size_t len);

/* The table as the run ended (snap.h): a copy of its sessions. */
struct sessions_snap {
	size_t n;
	uint64_t evicted;		/* sessions_evicted() */
	struct session *v;
};

/* After the loop: 0, or -ENOMEM. */
int sessions_snapshot(const struct sessions *t, struct sessions_snap *ss);
void sessions_snap_free(struct sessions_snap *ss);

/* The summary's "sessions" lines and array, with "sessions_evicted". */
void sessions_print(struct out *o, const struct sessions_snap *ss);

#endif
