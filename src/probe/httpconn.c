// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One connection's life (httpconn.h): made (and made again when the
 * server closes it, resets it, stops answering or sends what cannot be
 * a response), a request sent on it, its stamps read off the error
 * queue, its response read and framed, the transaction measured or lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "conn.h"
#include "httpconn.h"

/* The state changes, with the run's counts of connections up and
 * requests out. */
static void set_state(struct http *h, struct hconn *c, enum hstate st)
{
	bool was_up = c->st >= H_IDLE, up = st >= H_IDLE;
	bool was_out = c->st >= H_BUSY, out = st >= H_BUSY;

	h->up += (uint64_t)up - (uint64_t)was_up;
	h->out += (uint64_t)out - (uint64_t)was_out;
	c->st = st;
	if (up)
		h->gone_since = 0;
}

/* The connection is gone: made again at once (or after HTTP_RETRY_NS
 * when it failed), unless the run is stopping. */
static void hconn_drop(struct http *h, struct hconn *c, bool failed)
{
	int64_t now = monotonic_ns();

	conn_close(c->fd);
	c->fd = -1;
	set_state(h, c, H_DOWN);
	c->since_mono = failed ? now + HTTP_RETRY_NS : now;
	if (!h->up && !h->gone_since)
		h->gone_since = now;
	if (!failed && !h->stopping)
		hconn_connect(h, c);
}

int hconn_init(struct http *h, struct run *r, uint32_t n)
{
	const struct rant_cfg *c = r->cfg;

	h->r = h->p.r = r;
	h->sk = &r->sk;
	h->n = n;
	h->paced = c->interval_ns > 0;
	h->ep = conn_poll_create();
	if (h->ep < 0)
		return h->ep;
	h->c = calloc(h->n, sizeof(*h->c));
	h->idle = calloc(h->n, sizeof(*h->idle));
	h->backlog = calloc(HTTP_BACKLOG, sizeof(*h->backlog));
	if (!h->c || !h->idle || !h->backlog)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->n; i++) {
		h->c[i].fd = -1;
		h->c[i].idx = i;
		httpresp_init(&h->c[i].resp, c->request_path ? c->response_bytes : 0);
	}
	return 0;
}

void hconn_free(struct http *h)
{
	for (uint32_t i = 0; h->c && i < h->n; i++)
		conn_close(h->c[i].fd);
	if (h->ep > 0)
		conn_close(h->ep);
	free(h->c);
	free(h->idle);
	free(h->backlog);
	h->c = NULL;
	h->idle = NULL;
	h->backlog = NULL;
	h->ep = -1;
}

void hconn_connect(struct http *h, struct hconn *c)
{
	struct run *r = h->r;
	int ret;

	ret = conn_open(h->sk, r->cfg, &c->fd);
	if (!ret) {
		ret = conn_poll_watch(h->ep, c->fd, c->idx, true, false);
		if (ret)
			conn_close(c->fd);
	}
	if (ret) {
		c->fd = -1;
		r->probe.connect_failures++;
		c->since_mono = monotonic_ns() + HTTP_RETRY_NS;
		return;
	}
	set_state(h, c, H_CONNECTING);
	c->since_mono = monotonic_ns();
}

/* May another request leave? Not once stopping; in the warm-up, not
 * after -w (and one with both stamps); the server alone, one at a time;
 * measuring, not after -c or -d. */
bool hconn_may_send(struct http *h)
{
	const struct rant_cfg *c = h->r->cfg;
	int64_t now;

	if (h->stopping)
		return false;
	if (h->solo)	/* PROBE_SOLO_MORE_NS more for the few the verdict needs */
		return !h->out && h->solo_sent < PROBE_SOLO_REQUESTS &&
			monotonic_ns() < h->solo_until + (h->solo_sent < TCPANA_SOLO_MIN ?
							  PROBE_SOLO_MORE_NS : 0);
	if (!h->measuring)
		return h->warm_sent < c->warmup || !h->answered;
	now = monotonic_ns();
	if (prober_enough(&h->p, now)) {
		h->stopping = true;
		h->stop_mono = now;	/* the silence is counted to here */
	}
	return !h->stopping;
}

void hconn_idle(struct http *h, struct hconn *c)
{
	int64_t now, iv = h->r->cfg->interval_ns;

	if (!hconn_may_send(h))
		return;
	if (!h->paced || !h->measuring) {
		hconn_send(h, c, 0);
		return;
	}
	if (h->btail == h->bhead) {
		if (!c->queued)
			h->idle[h->nidle++] = c->idx;	/* for the next slot */
		c->queued = true;
		return;
	}
	now = monotonic_ns();
	if (now - h->backlog[h->btail % HTTP_BACKLOG] >= iv)
		h->r->cnt.missed_slots++;	/* it waited for a connection */
	hconn_send(h, c, now - h->backlog[h->btail++ % HTTP_BACKLOG]);
}

/* The connection's MSS: a request's first send (0: unknown, not split). */
static uint32_t hconn_mss(int fd)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) || mss <= 0)
		return 0;
	return (uint32_t)mss;
}

/* connect() ended: the connection is made, or failed. */
static void hconn_connected(struct http *h, struct hconn *c)
{
	struct run *r = h->r;

	if (conn_result(c->fd) || conn_stamp(h->sk, r->cfg, c->fd) ||
	    conn_poll_watch(h->ep, c->fd, c->idx, false, true)) {
		r->probe.connect_failures++;
		hconn_drop(h, c, true);
		return;
	}
	r->probe.connections++;
	c->mss = hconn_mss(c->fd);
	c->tx_bytes = 0;
	set_state(h, c, H_IDLE);
	hconn_idle(h, c);
}

/*
 * What the send buffer takes of the request from c->wrote on: its first
 * send one segment long at most, so that its TX stamp (OPT_ID's key: a
 * send's last byte) is the first segment's leaving, not that of a tail a
 * small window holds back (a request of many segments is timed from its
 * first byte). -errno when the connection failed.
 */
static ssize_t hconn_write(struct hconn *c, const uint8_t *req, uint32_t len)
{
	uint32_t first = c->mss && len - c->wrote > c->mss ? c->mss : len - c->wrote;
	ssize_t n = 0, m;

	if (!c->wrote) {
		n = conn_send(c->fd, req, first);
		if (n <= 0)
			return n;
		c->wrote = (uint32_t)n;
		c->key_first = c->tx_bytes + c->wrote - 1;
		if (c->wrote < first)
			return n;
	}
	if (c->wrote == len)
		return n;
	m = conn_send(c->fd, req + c->wrote, len - c->wrote);
	if (m > 0)
		c->wrote += (uint32_t)m;
	return m < 0 && !n ? m : n + (m > 0 ? m : 0);
}

void hconn_send(struct http *h, struct hconn *c, int64_t late_ns)
{
	struct run *r = h->r;
	ssize_t n;

	c->seq = h->seq_all ? atomic_fetch_add_explicit(h->seq_all, 1, memory_order_relaxed) + 1 :
			      ++h->p.seq;
	c->measured = h->measuring;
	c->late_ns = late_ns;
	c->has_tx = c->has_ack = c->has_first = false;
	c->t1_wire = c->t_ack = c->t2_wire = c->t4_wire = TS_NONE;
	httpresp_start(&c->resp);
	c->t1_sw = realtime_ns();
	c->since_mono = monotonic_ns();
	c->wrote = 0;
	c->key = c->key_first = c->tx_bytes + h->req_len - 1;
	n = hconn_write(c, h->req, h->req_len);
	if (n < 0) {
		r->cnt.send_errors++;	/* the server closed it: made again */
		r->probe.reopened++;
		hconn_drop(h, c, false);
		return;
	}
	c->tx_bytes += h->req_len;
	if (c->wrote < h->req_len)
		conn_poll_watch(h->ep, c->fd, c->idx, true, true);
	set_state(h, c, H_BUSY);
	if (c->measured)
		prober_sent(&h->p, c->seq, c->t1_sw);
	else if (h->solo)
		h->solo_sent++;
	else
		h->warm_sent++;
}

/* The rest of a request the send buffer could not take at once. */
static void hconn_write_rest(struct http *h, struct hconn *c)
{
	hconn_write(c, h->req, h->req_len);
	if (c->wrote == h->req_len)
		conn_poll_watch(h->ep, c->fd, c->idx, false, true);
}

/* The transaction's record: T1 the request's TX stamp, T2 the first
 * response bytes' RX stamp, T4 the last's, T_ACK the server's ACK. */
static void hconn_record(const struct hconn *c, struct txrec *rec)
{
	txrec_clear(rec);
	rec->seq = c->seq;
	rec->t1_sw = c->t1_sw;
	rec->t1_wire = c->has_tx ? c->t1_wire : TS_NONE;
	rec->t2_wire = c->has_first ? c->t2_wire : TS_NONE;
	txrec_set_t4_wire(rec, c->t4_wire);
	if (c->has_ack)
		txrec_set_ack(rec, c->t_ack);
}

/* The request out got no whole response: lost. */
static void hconn_lost(struct http *h, struct hconn *c)
{
	struct txrec rec;

	if (c->st < H_BUSY)
		return;
	if (!c->measured) {
		h->r->cnt.warmup += !h->solo;
		return;
	}
	txrec_clear(&rec);
	rec.seq = c->seq;
	rec.t1_sw = c->t1_sw;
	rec.t1_wire = c->has_tx ? c->t1_wire : TS_NONE;
	if (h->step == MEASURE_GO_ON)
		h->step = prober_lost(&h->p, &rec);
}

/* A whole response with (or, after HTTP_TX_WAIT_NS, without) its
 * request's TX stamp: measured, and the connection free again. */
static void hconn_finish(struct http *h, struct hconn *c)
{
	struct run *r = h->r;
	struct txrec rec;

	hconn_record(c, &rec);
	if (!c->measured) {
		r->cnt.warmup += !h->solo;
		h->warm_whole++;
		h->answered += c->has_tx && c->t4_wire != TS_NONE;
	} else {
		r->probe.last_answer_ns = monotonic_ns() - h->p.start_mono;
		r->probe.timeouts_after = 0;
		if (r->cfg->http_path && c->resp.status / 100 != 2)
			prober_answered(&h->p, c->seq);	/* counted apart, no sample */
		else if (h->step == MEASURE_GO_ON)
			h->step = prober_measured(&h->p, &rec, c->late_ns);
	}
	set_state(h, c, H_IDLE);
	if (!c->resp.keep_alive) {
		r->probe.reopened++;	/* "Connection: close": made again */
		hconn_drop(h, c, false);
		return;
	}
	hconn_idle(h, c);
}

/* One stamp report: the request out's TX or ACK stamp, or an earlier
 * request's, late (ignored). */
static void hconn_stamp(struct http *h, struct hconn *c, const struct ts_tx *tx)
{
	if ((tx->key != c->key && tx->key != c->key_first) || c->st < H_BUSY)
		return;
	if (tx->type == SCM_TSTAMP_SND && tx->key == c->key_first) {
		c->t1_wire = ts_wire(&tx->ts, h->sk->hw);
		c->has_tx = c->t1_wire != TS_NONE;
	} else if (tx->type == SCM_TSTAMP_ACK && tx->key == c->key) {
		c->t_ack = tx->ts.kn_ns;
		c->has_ack = true;
	}
}

/*
 * TX and ACK stamps off the error queue, for the request out, two a
 * read (a request makes two reports): until both are in, or its TX
 * stamp is while no response has come (its ACK comes with the
 * response, or alone later: EPOLLERR again), or, when both were in
 * already, until the queue is empty. No read that says EAGAIN but
 * there; what is left raises EPOLLERR again. Whether a report came.
 */
static bool hconn_stamps(struct http *h, struct hconn *c)
{
	bool had = c->has_tx && c->has_ack, came = false;
	struct ts_tx tx[2];
	int n;

	while (had || !(c->has_tx && c->has_ack)) {
		n = conn_tx_readv(c->fd, tx, 2);
		if (n < 0)
			break;
		came = true;
		for (int i = 0; i < n; i++)
			hconn_stamp(h, c, &tx[i]);
		if (!had && c->has_tx && c->st == H_BUSY && c->t4_wire == TS_NONE)
			break;
	}
	if (c->st == H_STAMP_WAIT && c->has_tx)
		hconn_finish(h, c);
	return came;
}

/* The response is whole: counted by status, measured once its request's
 * TX stamp is in. */
static void hconn_complete(struct http *h, struct hconn *c)
{
	struct run *r = h->r;
	unsigned int cls = c->resp.status / 100;

	if (c->measured && r->cfg->http_path) {
		r->probe.status[cls >= 1 && cls <= 5 ? cls : 0]++;
		r->probe.non_2xx += cls != 2;
	}
	if (!(c->has_tx && c->has_ack))
		hconn_stamps(h, c);
	if (c->has_tx) {
		hconn_finish(h, c);
		return;
	}
	set_state(h, c, H_STAMP_WAIT);
	c->since_mono = monotonic_ns();
}

/* What cannot be a response (or bytes nobody asked for): counted, the
 * request lost, the connection made again. */
static void hconn_bad(struct http *h, struct hconn *c)
{
	h->r->probe.bad_responses++;
	h->why_bad = c->resp.why ? c->resp.why : "bytes where no response was asked for";
	hconn_lost(h, c);
	hconn_drop(h, c, false);
}

/* The server closed (or reset) the connection. */
static void hconn_closed(struct http *h, struct hconn *c)
{
	if (c->st == H_STAMP_WAIT)
		return;		/* made again once measured (keep_alive is false) */
	if (c->st == H_BUSY && !c->resp.bad) {
		httpresp_feed(&c->resp, NULL, 0);	/* a body until the close ends here */
		if (c->resp.done) {
			c->resp.keep_alive = false;
			hconn_complete(h, c);
			return;
		}
	}
	hconn_lost(h, c);
	h->r->probe.reopened++;
	hconn_drop(h, c, false);
}

/* Bytes read: the response's, framed. 1 when the connection is still
 * the same one (read on), 0 when it was finished with or dropped. */
static int hconn_bytes(struct http *h, struct hconn *c, size_t n, const struct ts_stamps *rx)
{
	int64_t t = ts_wire(rx, h->sk->hw);
	unsigned int interim;
	size_t took;

	h->r->probe.bytes_received += n;
	if (c->st != H_BUSY) {
		hconn_bad(h, c);	/* not asked for */
		return 0;
	}
	if (!c->has_first) {
		c->t2_wire = t;
		c->has_first = t != TS_NONE;
	}
	c->t4_wire = t;
	interim = c->resp.interim;
	took = httpresp_feed(&c->resp, h->buf, n);
	h->r->probe.informational += c->resp.interim - interim;
	if (c->resp.bad || (c->resp.done && took < n)) {
		hconn_bad(h, c);
		return 0;
	}
	if (!c->resp.done)
		return 1;
	hconn_complete(h, c);
	return 0;
}

/* At most HTTP_READS_MAX reads, then back to the loop (epoll is level
 * triggered: the rest is read next turn): a server that sends without
 * end cannot keep the loop from its clock (-d, --timeout). */
static void hconn_read(struct http *h, struct hconn *c)
{
	struct ts_stamps rx;

	for (int reads = 0; reads < HTTP_READS_MAX; reads++) {
		ssize_t n = conn_recv(c->fd, h->buf, sizeof(h->buf), &rx);

		if (n == -EAGAIN)
			break;
		if (n <= 0) {
			hconn_closed(h, c);
			return;
		}
		if (!hconn_bytes(h, c, (size_t)n, &rx))
			break;
	}
	if (h->r->cfg->quickack && c->fd >= 0)
		conn_quickack(c->fd);	/* the kernel cleared it if it delayed an ACK */
}

void hconn_event(struct http *h, struct hconn *c, uint32_t events)
{
	if (c->st == H_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			hconn_connected(h, c);
		return;
	}
	if (c->st == H_DOWN)
		return;
	/* EPOLLERR alone and a stamp report came: it was the reports' (a
	 * socket error with them is read when EPOLLERR comes again) */
	if ((events & EPOLLERR) && hconn_stamps(h, c) &&
	    !(events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)))
		events &= ~(uint32_t)EPOLLERR;
	if (c->st == H_STAMP_WAIT)
		return;		/* its response is whole: its stamp is awaited */
	if ((events & EPOLLOUT) && c->st == H_BUSY && c->wrote < h->req_len)
		hconn_write_rest(h, c);
	if (c->fd >= 0 && (events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)))
		hconn_read(h, c);
}

/* One connection's deadline passed? Acted on. */
static void hconn_due(struct http *h, struct hconn *c, int64_t now)
{
	struct run *r = h->r;

	switch (c->st) {
	case H_DOWN:
		if (now >= c->since_mono && !h->stopping)
			hconn_connect(h, c);
		break;
	case H_CONNECTING:
		if (now - c->since_mono > r->cfg->timeout_ns) {
			r->probe.connect_failures++;
			hconn_drop(h, c, true);
		}
		break;
	case H_BUSY:
		if (now - c->since_mono > r->cfg->timeout_ns) {
			r->probe.timeouts++;	/* a server that stopped answering */
			r->probe.timeouts_after += c->measured;
			hconn_lost(h, c);
			hconn_drop(h, c, false);
		}
		break;
	case H_STAMP_WAIT:
		if (now - c->since_mono > HTTP_TX_WAIT_NS)
			hconn_finish(h, c);	/* without T1: counted missing */
		break;
	case H_IDLE:
		break;
	}
}

void hconn_scan(struct http *h, int64_t now)
{
	for (uint32_t i = 0; i < h->n; i++)
		hconn_due(h, &h->c[i], now);
}
