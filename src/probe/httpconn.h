/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --http and --request: the state of the run (http.c: set-up, warm-up,
 * the schedule, the loop) and of each connection (httpconn.c: made,
 * sent on, read from, timed out, made again, given the next request).
 * Not for other modules.
 *
 * A connection carries one request at a time (HTTP/1.1 without
 * pipelining, as wrk). Its request's T1 is the TX stamp of its write
 * (OPT_ID: the offset of its last byte; one segment for a request below
 * the MSS), its T_ACK the server's ACK of that byte, T2 the RX stamp of
 * the first read that returned response bytes, T4 that of the read that
 * completed the response (the stamp of the last segment a read took).
 */
#ifndef RANT_HTTPCONN_H
#define RANT_HTTPCONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "httpresp.h"
#include "pathsyn.h"
#include "prober.h"
#include "segdiag.h"
#include "segcap.h"

#define HTTP_BUF (64 * 1024)
/* Reads of a connection a turn at most (of HTTP_BUF each: 1 MiB) */
#define HTTP_READS_MAX 16
/* A response whole before its request's TX stamp waits this long for it. */
#define HTTP_TX_WAIT_NS (2 * NS_PER_MS)
/* Timeouts are looked for this often. */
#define HTTP_SCAN_NS (10 * NS_PER_MS)
/* A connection that failed is tried again after this long. */
#define HTTP_RETRY_NS (100 * NS_PER_MS)
/* No connection for this long: the run gives up. */
#define HTTP_GONE_NS (3 * NS_PER_SEC)
/* --interval: slots waiting for a free connection, at most. */
#define HTTP_BACKLOG 65536

enum hstate {
	H_DOWN,			/* no socket: made again at retry_mono */
	H_CONNECTING,		/* connect() under way */
	H_IDLE,			/* made, no request out */
	H_BUSY,			/* a request out, its response not whole */
	H_STAMP_WAIT,		/* its response whole, its TX stamp not yet come */
};

struct hconn {
	int fd;
	enum hstate st;
	uint32_t idx;
	uint32_t tx_bytes;		/* sent since stamping began: OPT_ID's count */
	uint32_t key;			/* the request's last byte: its ACK's key */
	uint32_t key_first;		/* its first send's last byte: T1's key */
	uint32_t mss;			/* the connection's: a request's first send */
	uint32_t wrote;			/* bytes of the request written */
	uint64_t seq;
	bool measured;
	bool has_tx, has_ack, has_first;
	bool queued;			/* --interval: in the stack of free ones */
	int64_t t1_sw, since_mono;	/* the request sent; or the state's start */
	int64_t late_ns;		/* --interval: how late after its slot it left */
	int64_t t1_wire, t_ack, t2_wire, t4_wire;
	struct httpresp resp;
};

struct http {
	struct prober p;
	struct run *r;
	struct sk *sk;
	int ep;				/* epoll */
	struct hconn *c;		/* [n] */
	uint32_t n;
	uint32_t *idle, nidle;		/* --interval: connections free for a slot */
	int64_t *backlog;		/* --interval: slots' due times awaiting one */
	uint64_t bhead, btail;
	uint8_t *req;			/* the request's bytes */
	uint32_t req_len;
	bool measuring;			/* the requests sent are measured */
	bool stopping;			/* no more requests: the last are awaited */
	bool paced;			/* --interval */
	bool solo;			/* the server alone: one request at a time */
	uint64_t solo_sent;		/* ... requests sent so */
	int64_t solo_until;		/* ... until (monotonic ns) */
	enum measure_next step;
	uint64_t warm_sent, warm_whole, answered;	/* warm-up: requests sent,
					 * whole responses, those with both stamps */
	uint64_t up;			/* connections made (idle or busy) */
	uint64_t out;			/* requests out (busy, or awaiting a stamp) */
	int64_t gone_since;		/* monotonic ns since none is up, or 0 */
	int64_t next_scan;
	int64_t stop_mono;		/* the run stopped sending (-c, -d, ...), 0: not */
	const char *why_bad;		/* the last response that could not be read */
	struct segcap *cap;		/* the packets, for the diagnosis */
	struct segdiag *diag;		/* ... analysed on the capture's thread */
	struct pathsyn *path;		/* the path's SYNs beside the requests */
	_Atomic uint64_t *seq_all;	/* --threads: the run's last seq, one for
					 * every loop; NULL: one loop (p.seq) */
	uint8_t buf[HTTP_BUF];
};

/* httpconn.c: a loop's state for r and n connections, without a
 * request yet: 0 or -errno; hconn_free() undoes it (but h->req). */
int hconn_init(struct http *h, struct run *r, uint32_t n);
void hconn_free(struct http *h);

/* httpconn.c: a connection's life. */
void hconn_connect(struct http *h, struct hconn *c);
void hconn_send(struct http *h, struct hconn *c, int64_t late_ns);
void hconn_event(struct http *h, struct hconn *c, uint32_t events);
void hconn_scan(struct http *h, int64_t now);

/* May another request leave? Not once stopping; in the warm-up, not
 * after -w (and one with both stamps); the server alone, one at a time;
 * measuring, not after -c or -d. */
bool hconn_may_send(struct http *h);
/* Connection c is free for the next request: sent on it now, or
 * (--interval) at the next slot, or at once for a slot that waited. */
void hconn_idle(struct http *h, struct hconn *c);

/* httploop.c: one loop. Its connections made and warmed up: 0, -EINTR,
 * or -EIO when that took over --warmup-timeout. */
int hloop_warmup(struct http *h);
/* The server alone, one request at a time, before the load: on the
 * first loop, while the others wait (hloop_solo). */
void hloop_solo(struct http *h);
/* Measuring begins: the run's start said, the path's SYNs sent from
 * here (hloop_begin); or beside lead's, slots offset_ns after its
 * (hloop_follow, --threads). */
void hloop_begin(struct http *h);
void hloop_follow(struct http *h, const struct http *lead, int64_t offset_ns);
/* Measured requests until -c, -d, a signal, a full log or a breach;
 * then those out are awaited (at most --timeout). */
void hloop_measure(struct http *h);

#endif
