/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What held the time in a TCP exchange, from its segments.
 *
 * One analysis for every source of segments: rant's own capture on -i
 * while it probes a service (--syn, --http), a capture file or a live
 * interface it watches (--read, --watch), and rant's own --tcp pair. The
 * caller hands over one small struct per segment of one connection, in
 * the order they were seen, with the stamp it has (a capture's, or the
 * kernel's or NIC's of the socket); the analysis cuts the connection
 * into exchanges (a request: the client's data; its response: the
 * server's data that follows), times each, and names what held it:
 *
 *   nagle_delayed_ack  the response's tail waited for the client's ACK of
 *                      its first part, which the client delayed: the
 *                      server's Nagle against the client's delayed ACK
 *   client_nagle       the request's tail waited likewise for the
 *                      server's ACK (a request in several writes)
 *   server_time        the response's first byte came late after the
 *                      request was complete: the server's own work
 *   retransmission     a segment sent again (after a timeout, or fast,
 *                      after duplicate ACKs)
 *   window             the sender stopped at the receiver's window
 *                      (zero or too small) until it opened
 *   path_queue         the path's round trip at that moment above its
 *                      idle one: a queue on the path, not the server
 *   server_queue       the server's time grown with the load (the
 *                      tally's, against the server alone:
 *                      tcpana_tally_solo): requests waiting in a busy
 *                      server, not a stall
 *
 * A clean exchange names nothing (TCPANA_NONE). Where the segments cannot
 * tell (one direction missing, headers cut by the capture's snaplen) the
 * flow says so (tcpana_unknowns) instead of guessing.
 *
 * No allocation after tcpana_create(); the state is under 1 KiB a
 * connection (tcpana_size()), so a table of many fits.
 */
#ifndef RANT_TCPANA_H
#define RANT_TCPANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcppath.h"
#include "tcpseg.h"

/* What held an exchange's time; TCPANA_NONE: nothing did. */
enum tcpana_kind {
	TCPANA_NONE,
	TCPANA_NAGLE_DELAYED_ACK,
	TCPANA_CLIENT_NAGLE,
	TCPANA_SERVER_TIME,
	TCPANA_RETRANSMISSION,
	TCPANA_WINDOW,
	TCPANA_PATH_QUEUE,
	TCPANA_SERVER_QUEUE,		/* the tally's only: no exchange's own */
	TCPANA_KINDS
};
/* The kinds one exchange can be held by. */
#define TCPANA_EXCHANGE_KINDS TCPANA_SERVER_QUEUE

/* "nagle_delayed_ack", ... ("none" for TCPANA_NONE): the JSON's kind. */
const char *tcpana_kind_name(enum tcpana_kind k);
/* One line: the fix for k (NULL for TCPANA_NONE). */
const char *tcpana_kind_fix(enum tcpana_kind k);

/* One exchange, timed, with what held it. */
struct tcpana_exchange {
	uint64_t n;			/* the connection's how-manieth, from 1 */
	int64_t req_first_ns;		/* the request's first segment */
	int64_t req_last_ns;		/* its last segment (its last byte) */
	int64_t resp_first_ns;		/* the response's first segment */
	int64_t resp_last_ns;		/* its last segment */
	uint64_t req_bytes, resp_bytes;
	int64_t latency_ns;		/* req_first -> resp_last: what wrk reports */
	int64_t first_byte_ns;		/* req_first -> resp_first */
	enum tcpana_kind held;		/* what held it most, TCPANA_NONE when clean */
	int64_t held_ns;		/* ... for how long */
	uint32_t kinds;			/* every kind seen in it: 1u << kind */
	uint32_t retransmits;		/* segments of it sent again */
	int64_t path_ns;		/* the path's RTT at its response (struct
					 * tcpana_path's median), -1: unknown */
	int64_t path_idle_ns;		/* ... and idle (its least), with path_ns */
	int64_t server_ns;		/* the server's own time: the first byte's
					 * wait less the path's RTT at that moment */
};

/* What a connection's segments could not tell (tcpana_unknowns()). */
#define TCPANA_U_NO_C2S		0x1u	/* no segment of the client's seen */
#define TCPANA_U_NO_S2C		0x2u	/* no segment of the server's seen */
#define TCPANA_U_CUT		0x4u	/* headers cut by the capture */
#define TCPANA_U_NO_CLIENT_ACKS	0x8u	/* the feed has no client ACKs (a socket's
					 * view): Nagle verdicts are inferred
					 * from the tail's delay alone */

struct tcpana_cfg {
	/* Each exchange as it completes (the response ended: the client's
	 * next request, a FIN or RST, or tcpana_end()). */
	void (*exchange)(void *ctx, const struct tcpana_exchange *x);
	/* Each RTT sample, ns: seq/ACK with Karn's rule (no sample from a
	 * retransmitted segment), and TCP timestamps (tsval echoed) where
	 * present. dir: the direction of the data (or tsval) that was
	 * acknowledged (or echoed). NULL: none wanted. */
	void (*rtt)(void *ctx, enum tcpseg_dir dir, int64_t rtt_ns);
	void *ctx;
	bool no_client_acks;	/* the feed cannot see the client's ACKs */
	/* 1u << dir of each direction whose receiver is the capture's own
	 * host: a copy of bytes it already saw there came in time, so the
	 * copy sent again (a spurious timeout, a tail-loss probe) is counted
	 * and holds nothing. 0: the capture point is on the path. */
	uint8_t received_here;
	/* The server's path (its handshakes go into it; an exchange's
	 * server time is what the path's RTT at that moment leaves), NULL:
	 * the connection's least RTT instead. On the feed's thread. */
	struct tcpana_path *path;
};

struct tcpana;

/* The state of one connection; NULL with errno set. */
struct tcpana *tcpana_create(const struct tcpana_cfg *cfg);
void tcpana_destroy(struct tcpana *a);
/* Bytes of one connection's state: sizing a table of many. */
size_t tcpana_size(void);
/* Start again for a new connection in place (a table's slot reused). */
void tcpana_reset(struct tcpana *a, const struct tcpana_cfg *cfg);

/* One segment, in the order seen (t_ns not decreasing). */
void tcpana_seg(struct tcpana *a, const struct tcpseg *s);
/* The connection ended (or the capture did) at t_ns: its last exchange
 * reported if it had a response. */
void tcpana_end(struct tcpana *a, int64_t t_ns);

/* The handshake's RTT, ns (SYN to SYN-ACK at the capture point, plus
 * SYN-ACK to ACK where both were seen), or -1 when not seen. */
int64_t tcpana_handshake_ns(const struct tcpana *a);
/* TCPANA_U_* of what the connection's segments could not tell. */
uint32_t tcpana_unknowns(const struct tcpana *a);
/* Segments seen each way, and segments sent again. */
uint64_t tcpana_segments(const struct tcpana *a, enum tcpseg_dir dir);
uint64_t tcpana_retransmits(const struct tcpana *a);
/* SYNs sent again (the first unanswered within the client's timeout). */
uint64_t tcpana_syn_retries(const struct tcpana *a);

/* Holds shorter than this are not named: an exchange's kinds and held
 * are those that held it this long at least. */
#define TCPANA_STALL_NS 1000000LL

/*
 * Many exchanges (of one run, one flow, one server port) summed up into
 * a diagnosis: each kind with the exchanges it held, their share, the
 * typical (median) delay it added. An event (a Nagle stall, a
 * retransmission, a full window) is named when it held one exchange; the
 * server's own time and the path's queue when they held
 * TCPANA_NAME_SHARE of them (a slow moment of a server or a path is not
 * its diagnosis). A clean run names nothing.
 *
 * The server's time is a stall (server_time) where it has a size of its
 * own, and load (server_queue) where it grew with the load: measured
 * against the same server alone, one request at a time in the same run
 * (tcpana_tally_solo). The hold is server_queue where the server alone
 * took under TCPANA_STALL_NS (its median own time), the loaded hold's
 * median is TCPANA_QUEUE_RATIO times that at least, and the server
 * alone was not held as often as under the load: a stall that comes at
 * any load (a 20 ms backend for one request in ten) holds about the same
 * share alone, so where server_time held TCPANA_SOLO_SHARE of the loaded
 * share alone (and TCPANA_NAME_SHARE of its exchanges), it stays
 * server_time. A server that takes 20 ms alone keeps server_time at any
 * load; without TCPANA_SOLO_MIN exchanges alone (a capture read, one
 * connection, a server too slow for the time alone) the hold is
 * server_time.
 *
 * Figures (doc/services.md, "A busy server"; the 2-CPU VM, nginx with
 * one worker): alone 0 to 27 us of its own quiet, its loaded holds'
 * median 1.9 to 7.5 ms at 100 connections, 3 to 6 ms at 10 (ratios of
 * 100 and more); lighttpd alone 5 to 18 us, 1.3 ms at 100; with both
 * CPUs spun by other work nginx alone 8 to 161 us, held in 6 to 20 of
 * its 100 requests alone, 10 to 19 ms at 100 connections.
 * tests/net/http_odd.py slow takes 20 to 28 ms alone. A ratio of 4 lies
 * far from the loads' 100 and more and from a stall's 1 (20 ms alone and
 * loaded).
 */
#define TCPANA_NAME_SHARE 0.05
#define TCPANA_QUEUE_RATIO 4
#define TCPANA_SOLO_MIN 5
#define TCPANA_SOLO_SHARE 0.5

struct tcpana_tally;

struct tcpana_diag {
	enum tcpana_kind kind;
	uint64_t exchanges;		/* held by it */
	double share;			/* of all exchanges, 0 to 1 */
	int64_t typical_ns;		/* median of the time it held them */
	int64_t p25_ns, p75_ns;		/* ... its quartiles: the middle half */
	int64_t max_ns;
	const char *fix;		/* tcpana_kind_fix(kind) */
};

struct tcpana_tally *tcpana_tally_create(void);
void tcpana_tally_destroy(struct tcpana_tally *t);
void tcpana_tally_add(struct tcpana_tally *t, const struct tcpana_exchange *x);
/* Another tally's exchanges into t (flows into their server port). */
void tcpana_tally_merge(struct tcpana_tally *t, const struct tcpana_tally *from);
uint64_t tcpana_tally_exchanges(const struct tcpana_tally *t);
/* The server alone (its exchanges one at a time, the same run's): the
 * reference server_queue is told by (above). t keeps its summary, not
 * solo. */
void tcpana_tally_solo(struct tcpana_tally *t, const struct tcpana_tally *solo);
/* The kinds named, the largest share first: how many (at most max). */
size_t tcpana_tally_diag(const struct tcpana_tally *t, struct tcpana_diag *out, size_t max);

/* What the verdict subtracted: the path's least RTT (idle), the median
 * of its RTT at the exchanges' responses, and the median of the
 * server's own time; -1 each where no exchange had it. The server's
 * own time alone (tcpana_tally_solo: its median, -1 none) over
 * solo_exchanges. */
struct tcpana_pathsum {
	int64_t idle_ns, loaded_ns, server_ns;
	int64_t solo_ns;
	uint64_t solo_exchanges, solo_held;	/* ... those server_time held */
};
void tcpana_tally_path(const struct tcpana_tally *t, struct tcpana_pathsum *out);

#endif
