// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One loop of --http and --request (httpconn.h): its connections made
 * and warmed up, then its measured requests, closed loop or at
 * --interval, all on one epoll set. One loop a run, or one a thread
 * with --threads (httpthr.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "conn.h"
#include "httpconn.h"

#define HTTP_EVENTS 256

/*
 * --interval: the slots due by now, each on a free connection or, when
 * none is, waiting for one (a full backlog: the slot is never sent,
 * counted missed). The next slot's time.
 */
static int64_t http_schedule(struct http *h, int64_t now)
{
	int64_t due = prober_due(&h->p, now);

	while (due <= now && hconn_may_send(h)) {
		prober_take_slot(&h->p);
		if (h->nidle) {
			struct hconn *c = &h->c[h->idle[--h->nidle]];

			c->queued = false;
			if (c->st == H_IDLE) {
				hconn_send(h, c, now - due);
			} else {
				h->p.slot--;	/* dropped since: the slot again */
				continue;
			}
		} else if (h->bhead - h->btail < HTTP_BACKLOG) {
			h->backlog[h->bhead++ % HTTP_BACKLOG] = due;
		} else {
			h->r->cnt.missed_slots++;
		}
		due = prober_due(&h->p, now);
	}
	if (h->out > h->r->cnt.inflight_max)
		h->r->cnt.inflight_max = h->out;
	return due;
}

/* One round: the events until deadline (0: spin), then timeouts. */
static void http_round(struct http *h, int64_t deadline)
{
	struct epoll_event ev[HTTP_EVENTS];
	int64_t now;
	int n = conn_poll_wait(h->ep, ev, HTTP_EVENTS, deadline);

	for (int i = 0; i < n; i++)
		hconn_event(h, &h->c[ev[i].data.u32], ev[i].events);
	now = monotonic_ns();
	if (!h->stopping)
		pathsyn_tick(h->path, now);
	if (now >= h->next_scan) {
		hconn_scan(h, now);
		h->next_scan = now + HTTP_SCAN_NS;
	}
}

static int64_t earliest(int64_t a, int64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * Every connection made, then unmeasured requests until -w were
 * answered and one came with both stamps, and none is out: 0, -EINTR,
 * or -EIO when that took over --warmup-timeout. Blocking: a spinner
 * could starve the kernel worker that turns RX stamps on.
 */
int hloop_warmup(struct http *h)
{
	const struct rant_cfg *c = h->r->cfg;
	int64_t give_up = monotonic_ns() + c->warmup_timeout_ns;

	for (uint32_t i = 0; i < h->n; i++)
		hconn_connect(h, &h->c[i]);
	while (!run_stop) {
		if (h->warm_sent >= c->warmup && h->answered && !h->out)
			return 0;
		if (monotonic_ns() > give_up)
			return -EIO;
		http_round(h, h->next_scan);
	}
	return -EINTR;
}

/*
 * The path's SYNs, from the address a connection made has (one source
 * address for both): without them (no raw socket) the verdict has only
 * the connections' own handshakes for the path's RTT, and says so.
 */
static void http_path_start(struct http *h)
{
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	char err[256];

	for (uint32_t i = 0; i < h->n; i++) {
		if (h->c[i].st < H_IDLE ||
		    getsockname(h->c[i].fd, (struct sockaddr *)&local, &sl))
			continue;
		h->path = pathsyn_open(&local, &h->sk->peer, h->r->cfg->iface, err, sizeof(err));
		if (!h->path)
			fprintf(stderr, "rant: %s: the path's RTT under the load is not measured\n",
				err);
		return;
	}
}

/*
 * The server alone, after the warm-up and before the load: up to
 * PROBE_SOLO_REQUESTS requests, one at a time (each sent when the one
 * before is whole), for PROBE_SOLO_NS (PROBE_SOLO_MORE_NS more until
 * TCPANA_SOLO_MIN were sent: a machine so loaded that one request takes
 * the time still gives the verdict its reference); unmeasured, apart from
 * the load's figures. Their packets are the server's own time at no
 * load (segdiag_solo), which the load's hold is told from a stall by
 * (tcpana.h: server_queue). One connection's load is the server alone:
 * none then. On the first loop only, before the others begin.
 */
void hloop_solo(struct http *h)
{
	struct probe_counts *p = &h->r->probe, was;

	if (h->r->cfg->connections < 2)
		return;
	was = *p;
	h->solo = true;
	h->solo_until = monotonic_ns() + PROBE_SOLO_NS;
	segdiag_solo(h->diag, realtime_ns());
	for (uint32_t i = 0; i < h->n && !h->out; i++)
		if (h->c[i].st == H_IDLE)
			hconn_idle(h, &h->c[i]);
	while (!run_stop && (h->out || hconn_may_send(h)))
		http_round(h, h->next_scan);
	h->solo = false;
	/* what they met is not the load's (connections made stay counted) */
	p->reopened = was.reopened;
	p->timeouts = was.timeouts;
	p->bad_responses = was.bad_responses;
	p->informational = was.informational;
	p->bytes_received = was.bytes_received;
	fprintf(h->r->text, "alone: %" PRIu64 " requests one at a time (the server's own time at no load, apart from the load's figures)\n",
		h->solo_sent);
}

void hloop_begin(struct http *h)
{
	h->measuring = true;
	h->step = MEASURE_GO_ON;
	h->r->probe.last_answer_ns = -1;
	http_path_start(h);
	prober_begin(&h->p);
	segdiag_measuring(h->diag, realtime_ns());
}

void hloop_follow(struct http *h, const struct http *lead, int64_t offset_ns)
{
	h->measuring = true;
	h->step = MEASURE_GO_ON;
	h->r->probe.last_answer_ns = -1;
	prober_follow(&h->p, &lead->p, offset_ns);
}

void hloop_measure(struct http *h)
{
	const struct rant_cfg *c = h->r->cfg;
	int64_t next = 0;

	for (uint32_t i = 0; i < h->n; i++)
		if (h->c[i].st == H_IDLE)
			hconn_idle(h, &h->c[i]);
	while (!run_stop) {
		int64_t now = monotonic_ns();

		if (!h->stopping && (h->step != MEASURE_GO_ON || prober_enough(&h->p, now))) {
			h->stopping = true;
			h->stop_mono = now;
		}
		if (h->step == MEASURE_BREACH || (h->stopping && !h->out))
			break;
		if (h->paced && !h->stopping)
			next = http_schedule(h, now);
		http_round(h, c->block ? earliest(h->stopping ? 0 : next, h->next_scan) : 0);
	}
	h->stopping = true;
}
