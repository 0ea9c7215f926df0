// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The http targets (see fleethttp.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "conn.h"
#include "fleethttp.h"
#include "fleetrx.h"
#include "fleettab.h"
#include "httpresp.h"
#include "missing.h"
#include "targets.h"

/* A request's bytes at most: GET, the path, the Host header and two more. */
#define FH_REQ_MAX 384
/* A read's bytes, and reads of a connection a turn at most. */
#define FH_BUF (64 * 1024)
#define FH_READS 16
/* Events read in one call, and calls a turn at most (a flood of
 * responses does not hold the sends up for long). */
#define FH_EVENTS 64
#define FH_POLLS 16

enum fh_state {
	FH_DOWN,		/* no connection */
	FH_CONNECTING,		/* connect() under way, a request waits for it */
	FH_IDLE,		/* made, no request out */
	FH_BUSY,		/* a request out, its response not whole */
};

struct fl_http {
	int fd;
	uint8_t st;		/* enum fh_state */
	uint64_t seq;		/* the request out, or waiting (CONNECTING); 0: none */
	uint32_t tx_bytes;	/* sent since its stamps were turned on: OPT_ID's count */
	uint32_t key;		/* the request's last byte: its TX stamp's key */
	struct ts_stamps rx;	/* the last read's RX stamps (a body until the close) */
	struct httpresp resp;
	uint16_t req_len;
	char req[FH_REQ_MAX];	/* its request, the same each time */
};

/* The loop's connections: the table, their epoll set, a read buffer;
 * made at the first http request (a reload may add the first target). */
static int setup(struct fleetloop *L)
{
	if (L->http)
		return 0;
	L->http_ep = conn_poll_create();
	if (L->http_ep < 0)
		return L->http_ep;
	L->http = calloc(L->f->cap, sizeof(*L->http));
	L->http_buf = malloc(FH_BUF);
	if (!L->http || !L->http_buf) {
		fl_http_free(L);
		return -ENOMEM;
	}
	return 0;
}

static void drop(struct fl_http *c)
{
	if (c->fd >= 0)
		conn_close(c->fd);
	c->fd = -1;
	c->st = FH_DOWN;
	c->seq = 0;
}

/* Slot's request, written whole (a request is far below a send buffer:
 * less is a connection gone): 0 or -errno. */
static int write_request(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	struct fl_ping *p = fl_ping_of(L, slot, c->seq);
	ssize_t sent;

	p->rec.t1_sw = realtime_ns();
	sent = conn_send(c->fd, c->req, c->req_len);
	if (sent != c->req_len)
		return sent < 0 ? (int)sent : -EPIPE;
	c->tx_bytes += c->req_len;
	c->key = c->tx_bytes - 1;
	c->st = FH_BUSY;
	httpresp_start(&c->resp);
	return 0;
}

/* A connection for slot's request c->seq, under way. */
static int open_conn(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	const struct fleet_target *ft = &L->f->t[slot];
	int ret = conn_open_to(L->r->cfg, &ft->spec.addr, ft->spec.addr_len, ft->tos, &c->fd);

	if (!ret)
		ret = conn_poll_watch(L->http_ep, c->fd, (uint32_t)slot, true, false);
	if (ret) {
		drop(c);
		return ret;
	}
	c->st = FH_CONNECTING;
	return 0;
}

/* Target t's connection state, its request built ("GET PATH HTTP/1.1",
 * Host ADDR:PORT); NULL without memory (the URL's path is checked to fit
 * when the file is read). */
static struct fl_http *conn_state(const struct target_spec *t)
{
	struct fl_http *c = calloc(1, sizeof(*c));
	char host[TARGET_NAME_LEN];
	int n;

	if (!c)
		return NULL;
	targets_name(&t->addr, host, sizeof(host));
	n = httpresp_get_request(c->req, sizeof(c->req), t->path, host);
	if (n < 0) {
		free(c);
		return NULL;
	}
	c->req_len = (uint16_t)n;
	c->fd = -1;
	httpresp_init(&c->resp, 0);
	return c;
}

int fl_http_send(struct fleetloop *L, size_t slot, uint64_t seq)
{
	struct fl_http *c;
	int ret = setup(L);

	if (ret)
		return ret;
	c = L->http[slot];
	if (!c) {
		c = conn_state(&L->f->t[slot].spec);
		if (!c)
			return -ENOMEM;
		L->http[slot] = c;
	}
	/* the one before was retired (lost after --timeout): its response
	 * would answer this one, so its connection goes */
	if (c->seq && c->seq <= L->t[slot].retired)
		drop(c);
	if (c->seq)
		return -EBUSY;
	c->seq = seq;
	if (c->st == FH_DOWN) {
		ret = open_conn(L, slot, c);
		if (ret != -ECONNREFUSED)
			return ret;
		fl_refused(L, slot, seq);	/* at once, a local port */
		return 0;
	}
	ret = write_request(L, slot, c);
	if (ret)
		drop(c);
	return ret;
}

/* The connection under way is made, or failed (an RST: refused). */
static void connected(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	struct run *r = L->r;
	int ret = conn_result(c->fd);

	if (ret == -ECONNREFUSED) {
		fl_refused(L, slot, c->seq);
		drop(c);
		return;
	}
	if (ret || conn_stamp(&r->sk, r->cfg, c->fd) ||
	    conn_poll_watch(L->http_ep, c->fd, (uint32_t)slot, false, true)) {
		drop(c);	/* its request waits for --timeout: lost */
		return;
	}
	c->tx_bytes = 0;
	c->st = FH_IDLE;
	if (c->seq <= L->t[slot].retired) {
		c->seq = 0;	/* made after its request's --timeout: kept for the next */
		return;
	}
	if (write_request(L, slot, c))
		drop(c);
}

/* The TX stamps queued: the request's by its key; an ACK's ignored. */
static void stamps(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	struct ts_tx tx[CONN_TX_BATCH];
	int n;

	while ((n = conn_tx_readv(c->fd, tx, CONN_TX_BATCH)) >= 0)
		for (int i = 0; i < n; i++)
			if (tx[i].type == SCM_TSTAMP_SND && tx[i].key == c->key && c->seq)
				fl_stamped(L, slot, c->seq, &tx[i].ts);
}

/* The response whole: its request answered, T4 the last read's stamp;
 * the connection kept for the next, or closed as the server asked. */
static void whole(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	struct sk_msg m = { .len = 0, .rx = c->rx, .sw_ns = realtime_ns() };
	uint64_t seq = c->seq;

	c->seq = 0;
	c->st = FH_IDLE;
	if (!c->resp.keep_alive)
		drop(c);
	fl_answer(L, slot, seq, &m);
}

/* What the server sent: bytes of the response out, or its end. */
static void readable(struct fleetloop *L, size_t slot, struct fl_http *c)
{
	struct ts_stamps rx;

	for (int i = 0; i < FH_READS && c->fd >= 0; i++) {
		ssize_t n = conn_recv(c->fd, L->http_buf, FH_BUF, &rx);
		size_t took;

		if (n == -EAGAIN)
			return;
		/* an error, or the server closed it (idle, or before a byte
		 * of the response): a request out waits for --timeout */
		if (n < 0 || (n == 0 && (c->st != FH_BUSY || !c->resp.bytes))) {
			drop(c);
			return;
		}
		if (c->st != FH_BUSY) {	/* bytes no request asked for */
			L->r->cnt.invalid++;
			drop(c);
			return;
		}
		if (n > 0)
			c->rx = rx;
		took = httpresp_feed(&c->resp, L->http_buf, (size_t)n);
		if (c->resp.bad || (c->resp.done && took < (size_t)n)) {
			L->r->cnt.invalid++;	/* not a response, or more than one */
			drop(c);
			return;
		}
		if (c->resp.done) {
			whole(L, slot, c);
			return;
		}
		if (n == 0) {
			drop(c);	/* closed before its end */
			return;
		}
	}
}

void fl_http_poll(struct fleetloop *L)
{
	struct epoll_event ev[FH_EVENTS];

	if (!L->http)
		return;
	for (int turns = 0; turns < FH_POLLS; turns++) {
		int n = conn_poll_wait(L->http_ep, ev, FH_EVENTS, 0);

		for (int i = 0; i < n; i++) {
			size_t slot = ev[i].data.u32;
			struct fl_http *c = slot < L->f->cap ? L->http[slot] : NULL;

			if (!c || c->fd < 0)
				continue;
			if (c->st == FH_CONNECTING) {
				connected(L, slot, c);
				continue;
			}
			if (ev[i].events & EPOLLERR)
				stamps(L, slot, c);
			if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))
				readable(L, slot, c);
		}
		if (n < FH_EVENTS)
			return;
	}
}

void fl_http_close(struct fleetloop *L, size_t slot)
{
	if (!L->http || !L->http[slot])
		return;
	drop(L->http[slot]);
	free(L->http[slot]);
	L->http[slot] = NULL;
}

void fl_http_free(struct fleetloop *L)
{
	if (L->http)
		for (size_t i = 0; i < L->f->cap; i++)
			fl_http_close(L, i);
	free(L->http);
	free(L->http_buf);
	if (L->http_ep >= 0)
		close(L->http_ep);
	L->http = NULL;
	L->http_buf = NULL;
	L->http_ep = -1;
}
