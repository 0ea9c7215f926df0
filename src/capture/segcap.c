// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A server's segments captured (segcap.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offloop.h"
#include "pcapopen.h"
#include "segcap.h"
#include "timeutil.h"

#define SEGCAP_BLOCK_MS 50
#define SEGCAP_POLL_MS 20
#define SEGCAP_BUFFER_MS 500			/* the buffer holds this long */
#define SEGCAP_DRAIN_NS (5 * SEGCAP_BLOCK_MS * NS_PER_MS)

struct segcap {
	struct segcap_params p;
	pcap_t *pc;
	int dlt, tstamp_type;
	char filter[128];
	struct segcap_stats st;
	pthread_t tid;
	bool started;
	_Atomic int stop;		/* 1: stop and read what is left; 2: abandon */
};

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct segcap *c = (struct segcap *)user;
	/* nanosecond precision: tv_usec holds nanoseconds */
	int64_t t_ns = (int64_t)h->ts.tv_sec * NS_PER_SEC + h->ts.tv_usec;
	struct pkt_tcp pk;

	if (pktparse(c->dlt, bytes, h->caplen, h->len, t_ns, &pk) != PKT_TCP || pk.noflags) {
		c->st.unread++;
		return;
	}
	c->st.packets++;
	c->p.seg(c->p.ctx, &pk);
}

/* At the end: until every packet the kernel queued was read. */
static void drain(struct segcap *c)
{
	int64_t give_up = monotonic_ns() + SEGCAP_DRAIN_NS;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(c->pc), .events = POLLIN };

	while (monotonic_ns() < give_up) {
		if (pcap_dispatch(c->pc, -1, on_packet, (u_char *)c) > 0)
			continue;
		if (c->st.packets + c->st.unread >= pcapopen_queued(c->pc))
			break;
		poll(&pfd, 1, 5);
	}
	pcap_dispatch(c->pc, -1, on_packet, (u_char *)c);
}

static void *segcap_thread(void *arg)
{
	struct segcap *c = arg;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(c->pc), .events = POLLIN };
	int stop;

	while (!(stop = atomic_load_explicit(&c->stop, memory_order_acquire))) {
		poll(&pfd, 1, SEGCAP_POLL_MS);
		pcap_dispatch(c->pc, -1, on_packet, (u_char *)c);
	}
	if (stop == 2) {		/* abandoned: the joiner sees pc NULL */
		pcap_close(c->pc);
		c->pc = NULL;
		return NULL;
	}
	drain(c);
	return NULL;
}

/* "tcp port 80 and host 10.0.0.2" (a server on this host: any
 * address): the server's segments. */
static void build_filter(struct segcap *c)
{
	const struct sockaddr_storage *ss = c->p.server;
	uint16_t port = ss->ss_family == AF_INET6 ?
			ntohs(((const struct sockaddr_in6 *)ss)->sin6_port) :
			ntohs(((const struct sockaddr_in *)ss)->sin_port);

	pcapopen_filter(c->filter, sizeof(c->filter), "tcp", port, ss);
}

int segcap_start(struct segcap **cp, const struct segcap_params *p, char *err, size_t len)
{
	struct segcap *c = calloc(1, sizeof(*c));
	struct pcapopen_params o = {
		.what = "the probe's capture", .iface = p->iface, .snaplen = SEGCAP_SNAPLEN,
		.block_ms = SEGCAP_BLOCK_MS, .hw = p->hw,
	};
	int ret;

	*cp = c;
	if (!c)
		return -ENOMEM;
	c->p = *p;
	build_filter(c);
	o.filter = c->filter;
	o.buffer_bytes = pcapopen_buffer_bytes(p->rate, SEGCAP_SNAPLEN, SEGCAP_BUFFER_MS);
	ret = pcapopen(&c->pc, &c->tstamp_type, &o, err, len);
	if (ret)
		return ret;
	c->dlt = pcap_datalink(c->pc);
	c->st.tstamp_type = pcap_tstamp_type_val_to_name(c->tstamp_type);
	if (!pktparse_link_ok(c->dlt)) {
		snprintf(err, len, "the probe's capture: %s's link type %s is not one rant reads",
			 p->iface, pcap_datalink_val_to_name(c->dlt));
		return -EOPNOTSUPP;
	}
	ret = offloop_spawn(&c->tid, segcap_thread, c, NULL);
	if (ret) {
		snprintf(err, len, "the probe's capture: cannot start its thread: %s", strerror(ret));
		return -ret;
	}
	c->started = true;
	return 0;
}

void segcap_abandon(struct segcap *c)
{
	if (c)
		atomic_store_explicit(&c->stop, 2, memory_order_release);
}

/* The thread asked to stop (reading what is left, unless it was
 * abandoned: then it closes the capture itself) and joined. */
static void join(struct segcap *c)
{
	int running = 0;

	if (!c->started)
		return;
	atomic_compare_exchange_strong_explicit(&c->stop, &running, 1, memory_order_acq_rel,
						memory_order_acquire);
	pthread_join(c->tid, NULL);
	c->started = false;
}

void segcap_stop(struct segcap *c, struct segcap_stats *st)
{
	struct pcap_stat ps;

	join(c);
	if (c->pc && pcap_stats(c->pc, &ps) == 0)
		c->st.dropped = ps.ps_drop;
	*st = c->st;
}

void segcap_destroy(struct segcap *c)
{
	if (!c)
		return;
	join(c);
	if (c->pc)
		pcap_close(c->pc);
	free(c);
}
