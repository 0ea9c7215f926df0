// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --http PATH and --request FILE: requests over --connections kept-alive
 * connections, served by one epoll loop (httploop.c) or by --threads
 * loops (httpthr.c); httpconn.c is a connection's life. Here: the
 * run's set-up, its request, its capture and its failures.
 *
 * Closed loop (the default): each connection sends its next request as
 * soon as its response is whole (wrk's model). Paced (--interval, with
 * or without --open-loop): one request every --interval in all, on
 * whichever connection is free; a slot that finds none waits for the
 * first to free up, and request_intended counts from the slot's time
 * (wrk2's corrected latency); one that leaves an interval or more late
 * is a missed slot.
 *
 * Between the warm-up and the load, the server alone: requests one at a
 * time (hloop_solo, on the first loop while the others wait), whose
 * packets tell the load from a stall.
 *
 * The connections' packets are captured on -i from the start (segcap.h)
 * and analysed on the capture's thread (segdiag.h): each connection's
 * handshake is the connect metric, and what held the measured exchanges
 * is the diagnosis, read when the capture stopped at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "http.h"
#include "httpconn.h"
#include "httpthr.h"
#include "optprobe.h"

/* The most segments a second the capture is sized for: a request and
 * its response, their ACKs, at the bench's rates and more. */
#define HTTP_CAP_RATE 400000

static struct http hs;
static struct httpthr *thr;	/* --threads: the other loops; NULL: one */

/* "GET PATH HTTP/1.1" with the Host header (optprobe_host). */
static int http_request_text(struct http *h, const struct rant_cfg *c)
{
	char host[320];
	int n;

	optprobe_host(c, host, sizeof(host));
	h->req = malloc(PROBE_MAX_REQUEST);
	if (!h->req)
		return -ENOMEM;
	n = httpresp_get_request((char *)h->req, PROBE_MAX_REQUEST, c->http_path, host);
	if (n < 0)
		return n;
	h->req_len = (uint32_t)n;
	return 0;
}

/* --request FILE: its bytes, 1 to PROBE_MAX_REQUEST of them. */
static int http_request_file(struct http *h, const struct rant_cfg *c, char *err, size_t len)
{
	int fd = open(c->request_path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "--request %s: %s", c->request_path, strerror(-ret));
		return ret;
	}
	h->req = malloc(PROBE_MAX_REQUEST + 1);
	n = h->req ? read(fd, h->req, PROBE_MAX_REQUEST + 1) : -1;
	close(fd);
	if (n <= 0 || n > PROBE_MAX_REQUEST) {
		snprintf(err, len, "--request %s: %s: give a file of 1 to %d bytes", c->request_path,
			 n < 0 ? strerror(errno) : n ? "too long" : "empty", PROBE_MAX_REQUEST);
		return -EINVAL;
	}
	h->req_len = (uint32_t)n;
	return ret;
}

/* The capture and its analysis, before the first connection. */
static int http_capture(struct http *h, struct run *r, char *err, size_t len)
{
	struct segcap_params p = {
		.iface = r->cfg->iface, .server = &r->sk.peer, .hw = r->sk.hw,
		.rate = HTTP_CAP_RATE, .seg = segdiag_seg,
	};

	h->diag = segdiag_create(r->cfg->connections, &r->sk.peer, r->hist[M_CONNECT]);
	if (!h->diag) {
		snprintf(err, len, "no memory for the analysis of %u connections",
			 r->cfg->connections);
		return -ENOMEM;
	}
	p.ctx = h->diag;
	return segcap_start(&h->cap, &p, err, len);
}

int http_setup(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct http *h = &hs;
	char err[512] = "";
	int ret;

	memset(h, 0, sizeof(*h));
	ret = httpthr_create(r, h, &thr);
	if (ret)
		snprintf(err, sizeof(err), "cannot set up %u connections on %u threads: %s",
			 c->connections, c->threads, strerror(-ret));
	else if (c->request_path)
		ret = http_request_file(h, c, err, sizeof(err));
	else if ((ret = http_request_text(h, c)))
		snprintf(err, sizeof(err), "--http %s: the request is longer than %d bytes",
			 c->http_path, PROBE_MAX_REQUEST);
	if (!ret)
		ret = http_capture(h, r, err, sizeof(err));
	if (!ret)
		httpthr_request(thr, h);
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

void http_teardown(void)
{
	struct http *h = &hs;

	pathsyn_close(h->path);
	segcap_destroy(h->cap);
	segdiag_destroy(h->diag);
	httpthr_destroy(thr);
	thr = NULL;
	hconn_free(h);
	free(h->req);
	memset(h, 0, sizeof(*h));
}

/* Why the warm-up ended without an answer, in r->failure. */
static void http_warmup_failed(struct http *h)
{
	struct run *r = h->r;
	const struct rant_cfg *c = r->cfg;
	double s = (double)c->warmup_timeout_ns / NS_PER_SEC;

	r->stop_reason = "warm-up failed";
	if (!r->probe.connections)
		snprintf(r->failure, sizeof(r->failure),
			 "cannot connect to %s port %u (%" PRIu64 " attempts failed in %g s): is the server up and listening there? (rant --syn says whether the port is closed)",
			 c->addr, c->port, r->probe.connect_failures, s);
	else if (r->probe.bad_responses)
		snprintf(r->failure, sizeof(r->failure),
			 "%s port %u answers, but not with %s: %" PRIu64 " responses could not be read (%s)",
			 c->addr, c->port, c->http_path ? "HTTP/1.1 responses" : "--response-bytes bytes",
			 r->probe.bad_responses, h->why_bad ? h->why_bad : "?");
	else if (c->request_path && r->probe.bytes_received)
		snprintf(r->failure, sizeof(r->failure),
			 "%s port %u answered (%" PRIu64 " bytes in %g s of warm-up), but no response reached --response-bytes %u: is that its responses' length?",
			 c->addr, c->port, r->probe.bytes_received, s, c->response_bytes);
	else if (h->warm_whole)
		snprintf(r->failure, sizeof(r->failure),
			 "responses from %s port %u come without their stamps for %g s (--warmup-timeout): is timestamping blocked on %s?",
			 c->addr, c->port, s, c->iface);
	else
		snprintf(r->failure, sizeof(r->failure),
			 "no whole response from %s port %u in %g s of warm-up (%" PRIu64 " requests: %" PRIu64 " timed out, %" PRIu64 " cut by the server closing its connection): is the server stuck, or slower than --timeout?",
			 c->addr, c->port, s, h->warm_sent, r->probe.timeouts, r->probe.reopened);
}

/* The capture stopped, its analysis read; the open-file limit kept. */
static void http_finish(struct http *h)
{
	struct run *r = h->r;
	struct segcap_stats st;
	uint64_t before;

	segcap_stop(h->cap, &st);
	segdiag_finish(h->diag, realtime_ns(), &r->diag);
	r->diag.packets = st.packets;
	r->diag.dropped = st.dropped;
	conn_fd_limit_was(&before, &r->probe.fd_limit);
}

/*
 * A server that stopped answering: requests timed out after its last
 * answer and it said nothing more until the run stopped sending (at
 * least --timeout before), or most requests timed out. The finding in r->failure (the run exits
 * 2 after its summary); the counts in r->probe either way.
 */
static bool http_silent(struct http *h)
{
	struct run *r = h->r;
	struct probe_counts *p = &r->probe;
	int64_t run_ns = (h->stop_mono ? h->stop_mono : monotonic_ns()) - h->p.start_mono;
	double share = r->cnt.sent ? (double)p->timeouts / (double)r->cnt.sent : 0;

	p->silent_ns = run_ns - (p->last_answer_ns < 0 ? 0 : p->last_answer_ns);
	if (p->silent_ns < 0)
		p->silent_ns = 0;	/* answered while the last were awaited */
	if (!p->timeouts)
		return false;
	if (p->timeouts_after && p->silent_ns >= r->cfg->timeout_ns && r->cnt.received)
		snprintf(r->failure, sizeof(r->failure),
			 "the server stopped answering at %.2f s: %" PRIu64 " requests timed out (%.2f%%), nothing came in the last %.1f s of the run's requests",
			 (double)p->last_answer_ns / NS_PER_SEC, p->timeouts, 100 * share,
			 (double)p->silent_ns / NS_PER_SEC);
	else if (share > 0.5 && r->cnt.received)
		snprintf(r->failure, sizeof(r->failure),
			 "most requests timed out: %" PRIu64 " of %" PRIu64 " (%.1f%%) had no whole response within --timeout",
			 p->timeouts, r->cnt.sent, 100 * share);
	else
		return false;
	return true;
}

int http_run(struct run *r)
{
	struct http *h = &hs;
	int ret = httpthr_start(thr);

	ret = httpthr_warmed(thr, ret ? ret : hloop_warmup(h));	/* the others wait for it */
	if (!ret) {
		hloop_solo(h);	/* the server alone, the others waiting */
		hloop_begin(h);
		httpthr_begun(thr);
		hloop_measure(h);
	}
	httpthr_join(thr);
	http_finish(h);
	httpthr_merge(thr, h);
	if (ret == -EIO && !r->failure[0])
		http_warmup_failed(h);
	if (!ret && r->cnt.received && r->probe.non_2xx == r->cnt.received) {
		snprintf(r->failure, sizeof(r->failure),
			 "every response from %s port %u had a status other than 2xx (%" PRIu64 " 1xx, %" PRIu64 " 3xx, %" PRIu64 " 4xx, %" PRIu64 " 5xx, %" PRIu64 " other): none is a sample; is --http %s the path, and --host the name, it serves?",
			 r->cfg->addr, r->cfg->port, r->probe.status[1], r->probe.status[3],
			 r->probe.status[4], r->probe.status[5], r->probe.status[0],
			 r->cfg->http_path);
		ret = -EIO;
	} else if (!ret && http_silent(h)) {
		ret = -EIO;
	} else if (!ret && r->cnt.sent && !r->cnt.received) {
		snprintf(r->failure, sizeof(r->failure),
			 "no whole response from %s port %u to %" PRIu64 " measured requests (%" PRIu64 " timed out, %" PRIu64 " bad)",
			 r->cfg->addr, r->cfg->port, r->cnt.sent, r->probe.timeouts,
			 r->probe.bad_responses);
		ret = -EIO;
	}
	return ret;
}
