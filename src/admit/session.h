/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reflector's sessions: one per emitter run, keyed by the sender's
 * address and port AND the session id the emitter drew, so a datagram
 * from anywhere else can never touch a session's state (its follow-up,
 * its duplicate check, its counts), whatever id it carries. Under --key
 * (sessions_guard with a window) the id is authenticated, so it alone is
 * the key: the same id from another port is never a second session but a
 * replay, unless its seq is above every seq answered (the emitter's port
 * changed: the session moves); each ping is answered once (auth_fresh,
 * auth_replay).
 *
 * Up to a fixed number at once. When the table is full, a newcomer
 * takes the slot of a session idle SESSION_IDLE_NS, else of the one that
 * sent the fewest pings in the last one to two SESSION_USE_NS (the
 * idlest of those): a sender that pings rarely cannot hold a slot
 * against one that pings often. One address holds at most per_addr
 * sessions; beyond, its newcomer takes its own idle session's slot or
 * is refused. The table is allocated and touched at set-up; a look-up
 * allocates nothing (hot-path safe).
 */
#ifndef RANT_SESSION_H
#define RANT_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "auth.h"
#include "out.h"
#include "seqrep.h"

#define SESSION_IDLE_NS (10LL * 1000000000)	/* idle this long: may be evicted */
#define SESSION_MAX_DEFAULT 64
#define SESSION_FU 32	/* follow-ups queued per session */
#define SESSION_PER_ADDR_DEFAULT 16	/* --max-sessions-per-address */
#define SESSION_USE_NS (1LL * 1000000000)	/* a window pings are counted in */
#define SESSION_NOTICE_NS (1LL * 1000000000)	/* at most a line a second */
#define SESSION_SENDERS_MAX 32	/* turned-away addresses listed, the rest counted */

/* An earlier pong's T3, for a later pong of its session to carry: the
 * pong named both ways, since the formats name it differently (rant's
 * own by its ping's seq, STAMP by the reflector's own number of the
 * reply, RFC 8972 §4.7, which a sender's gaps and repeats do not move). */
struct session_fu {
	uint64_t seq;			/* its ping's seq */
	uint64_t pong_no;		/* the session's pongs before it */
	int64_t t3;			/* its wire T3, ns */
};

struct session {
	struct sockaddr_storage addr;	/* the emitter, as the datagram came */
	socklen_t addr_len;
	uint32_t id;			/* the emitter's session id */
	uint64_t ordinal;		/* the how-manieth session the table started
					 * (1, 2, ...): a session evicted and come
					 * back is a new one */
	int64_t first_ns, last_ns;	/* CLOCK_MONOTONIC, first and last ping */
	bool closed;			/* --tcp: its connection closed, so no ping
					 * can come (a new one has another port):
					 * evicted first, as an idle one */
	/* state */
	bool want_sw;			/* its pings ask for SW stamps */
	struct auth_replay replay;	/* --key: seqs answered */
	int64_t use_start_ns;		/* the current SESSION_USE_NS window */
	uint32_t use_now, use_prev;	/* pings in it and in the one before */
	uint64_t last_seq;		/* highest measured seq, 0: none yet */
	struct seqrep recent;		/* --stamp: the numbers its replies carried
					 * (no loop answered for ever) */
	int64_t rate_tat_ns;		/* --max-rate: when its next ping is due
					 * (GCRA's theoretical arrival time) */
	/* follow-ups: the T3 of earlier pongs as their TX stamps came,
	 * oldest first; each pong carries one (reflect.c) */
	struct session_fu fu[SESSION_FU];
	uint32_t fu_head, fu_n;
	uint64_t fu_dropped;		/* more came than pongs carried them */
	/* what it did */
	uint64_t pings;			/* pings admitted to it, answered or not */
	uint64_t received;		/* measured pings */
	uint64_t sent;			/* their pongs sent */
	uint64_t pongs;			/* pongs answered, measured or not */
	uint64_t warmup;		/* unmeasured pings (and those -w left out) */
	uint64_t left_out;		/* measured pings -w left out */
	uint64_t duplicate;		/* measured seqs seen again */
	uint64_t rate_limited;		/* pings above --max-rate, unanswered */
	uint64_t missing_tx_ts, missing_rx_ts;
	/* of its measured pings' pongs: what the emitter cannot see, told to
	 * it in the pongs' report (msgfmt.h: struct msg_report) */
	uint64_t send_errors;		/* the kernel refused them */
	uint64_t qdisc_drops;		/* they entered the qdisc and never left */
	uint64_t drops_undecided;	/* ... more, known so but not yet retired (the
					 * report to a fetch: reflect.c) */
	int64_t queue_max_ns;		/* the longest one waited in the qdisc */
	uint64_t dscp_seen;		/* bit d: a ping came with DSCP d */
	uint8_t dscp_last;		/* ... the last one's */
	uint64_t resp_n;		/* responses measured, and their */
	int64_t resp_min, resp_max;	/* ... min and max, ns */
	double resp_sum;		/* ... sum, ns */
};

/* An address that was refused or evicted, or sent replays (port 0). */
struct session_sender {
	struct sockaddr_storage addr;
	uint64_t refused, evicted, replayed;
};

/* What sessions_admit() made of a ping. */
enum session_verdict {
	SESSION_FOUND,		/* a ping of a session in the table */
	SESSION_NEW,		/* a new session started for it */
	SESSION_REFUSED,	/* its address holds per_addr sessions, all live */
	SESSION_REPLAYED,	/* --key: stale T1_SW, or a seq its session (live,
				 * evicted, or its id from elsewhere) was answered */
};

/* The fields of a ping a session is found by. */
struct session_ping {
	const struct sockaddr *addr;	/* the sender, as the datagram came */
	socklen_t addr_len;
	uint32_t id;
	uint64_t seq;
	int64_t t1_sw;			/* the emitter's system clock, ns */
};

struct sessions;

/* A ping of s came with TOS octet tos (-1: unknown): its DSCP noted. */
static inline void session_dscp(struct session *s, int tos)
{
	if (tos < 0)
		return;
	s->dscp_seen |= 1ULL << (tos >> 2);
	s->dscp_last = (uint8_t)(tos >> 2);
}

/* A table for up to max sessions; NULL with errno set. */
struct sessions *sessions_create(size_t max, bool hugepages);
void sessions_destroy(struct sessions *t);

/*
 * At set-up: at most per_addr sessions from one address (0: no limit);
 * key_window_ns > 0: --key, sessions keyed by id, pings checked for
 * replays against that window; notices: where a line goes, at most one
 * a SESSION_NOTICE_NS, when sessions are refused or evicted or pings
 * replayed (NULL: none).
 */
void sessions_guard(struct sessions *t, size_t per_addr, int64_t key_window_ns,
		    FILE *notices);

/*
 * The session of ping p at now_ns (CLOCK_MONOTONIC; real_ns: the system
 * clock, for T1_SW under --key only), started when new; NULL when
 * refused or replayed.
 * *v says which.
 */
struct session *sessions_admit(struct sessions *t, const struct session_ping *p,
			       int64_t now_ns, int64_t real_ns, enum session_verdict *v);

/* sessions_admit() without --key's fields: *fresh when started. */
struct session *sessions_get(struct sessions *t, const struct sockaddr *addr,
			     socklen_t addr_len, uint32_t id, int64_t now_ns,
			     bool *fresh);

/* --tcp: the connection from addr (address and port) closed: its
 * sessions may be evicted at once, as idle ones (a reconnecting emitter
 * is not refused for its own last connection's session). */
void sessions_closed(struct sessions *t, const struct sockaddr *addr);

/* The session that started as the ordinal-th, or NULL when it is no
 * longer in the table (evicted). */
struct session *sessions_by_ordinal(struct sessions *t, uint64_t ordinal);

/* A session pointer kept across admissions (a pong awaiting its stamp):
 * sessions move when one before them is evicted (the table closes the
 * gap), so s is checked by its ordinal and, when it moved, found again;
 * NULL when that session was evicted itself. */
static inline struct session *sessions_still(struct sessions *t, struct session *s,
					     uint64_t ordinal)
{
	return s && s->ordinal == ordinal ? s : sessions_by_ordinal(t, ordinal);
}

/* The oldest follow-up queued for s (an earlier pong's, for the next
 * pong to carry) into *fu: false when none is. Inline: every pong's. */
static inline bool session_fu_take(struct session *s, struct session_fu *fu)
{
	if (!s->fu_n)
		return false;
	*fu = s->fu[s->fu_head % SESSION_FU];
	s->fu_head++;
	s->fu_n--;
	return true;
}

/*
 * --max-rate: may s be answered a ping at now_ns, rate pings a second at
 * most? The generic cell rate algorithm: each answer moves the session's
 * due time on by 1/rate, and a ping is answered while the due time is at
 * most a burst (rate / 10, SESSION_BURST_MIN at least) ahead of now. A
 * refused ping moves nothing, so a flood is cut to the rate, not to zero.
 */
#define SESSION_BURST_MIN 8
static inline bool session_rate_ok(struct session *s, int64_t now_ns, uint32_t rate)
{
	int64_t step = 1000000000LL / rate;
	int64_t burst = step * (rate / 10 > SESSION_BURST_MIN ? rate / 10 : SESSION_BURST_MIN);

	if (s->rate_tat_ns - now_ns > burst)
		return false;
	s->rate_tat_ns = (s->rate_tat_ns > now_ns ? s->rate_tat_ns : now_ns) + step;
	return true;
}

/*
 * Who gives up a slot to a newcomer, for the sessions and the --tcp
 * reflector's connections alike: a holder idle SESSION_IDLE_NS first,
 * then the one with the fewest messages in the last one to two
 * SESSION_USE_NS, then the one active least lately.
 */
struct session_use {
	bool idle;		/* nothing for SESSION_IDLE_NS */
	uint32_t recent;	/* messages in the last one to two SESSION_USE_NS */
	int64_t last_ns;	/* last active, CLOCK_MONOTONIC */
};

static inline bool session_use_worse(const struct session_use *a, const struct session_use *b)
{
	if (a->idle != b->idle)
		return a->idle;
	if (!a->idle && a->recent != b->recent)
		return a->recent < b->recent;
	return a->last_ns < b->last_ns;
}

/* The same host: family and address (not port, flow info or scope). */
bool session_same_host(const struct sockaddr_storage *s, const struct sockaddr *a);

/* A pong's T3 came: queued for a later pong of s (the oldest queued goes
 * when the queue is full, counted in fu_dropped). */
void session_fu_put(struct session *s, const struct session_fu *fu);

/* Add one measured response (ns) to s's statistics. */
void session_response(struct session *s, int64_t resp_ns);

/* The sessions in the table now, in the order they started: i < count. */
size_t sessions_count(const struct sessions *t);
const struct session *sessions_at(const struct sessions *t, size_t i);

/* Sessions started in all, evicted to make room, refused, pings replayed. */
uint64_t sessions_started(const struct sessions *t);
uint64_t sessions_evicted(const struct sessions *t);
uint64_t sessions_refused(const struct sessions *t);
uint64_t sessions_replayed(const struct sessions *t);

/* The addresses turned away (refused, evicted, replayed), in the order
 * first seen: i < count; more: addresses beyond SESSION_SENDERS_MAX. */
size_t sessions_senders(const struct sessions *t);
const struct session_sender *sessions_sender_at(const struct sessions *t, size_t i);
uint64_t sessions_senders_more(const struct sessions *t);

/* "10.0.0.1 port 4000" or "fd00::1 port 4000" (IPv4-mapped shown as IPv4). */
void session_addr_str(const struct session *s, char *buf, size_t len);
/* The same for any address; without " port N" when port is false. */
void session_sockaddr_str(const struct sockaddr_storage *a, bool port, char *buf, size_t len);

/* The table as the run ended (snap.h): a copy of its sessions. */
struct sessions_snap {
	size_t n;
	uint64_t evicted;		/* sessions_evicted() */
	uint64_t refused;		/* sessions_refused() */
	uint64_t replayed;		/* sessions_replayed() */
	struct session *v;
	size_t nsenders;		/* the turned-away senders (sessions_senders()) */
	struct session_sender *senders;
	uint64_t senders_more;		/* sessions_senders_more() */
};

/* After the loop: 0, or -ENOMEM. */
int sessions_snapshot(const struct sessions *t, struct sessions_snap *ss);

/*
 * While the loop runs, from another thread (the metrics'): the sessions
 * as one consistent table (a sequence count the loop bumps around each
 * change of the table's layout, a new session or an eviction, never per
 * ping), their counters as the loop left them, each a 64-bit word read
 * whole; the turned-away senders are not copied. 0, -ENOMEM, or -EAGAIN
 * when the loop changed the layout during every try.
 */
int sessions_snapshot_live(const struct sessions *t, struct sessions_snap *ss);
void sessions_snap_free(struct sessions_snap *ss);

/* The summary's "sessions" lines and array, with "sessions_evicted",
 * "sessions_refused", "sessions_replayed" and the senders turned away. */
void sessions_print(struct out *o, const struct sessions_snap *ss);

#endif
