// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant trace's loop (hops.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <linux/errqueue.h>
#include <unistd.h>

#include "hops.h"
#include "stopsig.h"
#include "tcpwire.h"
#include "timeutil.h"

#define SYN_MSS4 1460
#define SYN_MSS6 1440

const char *hops_end_name(enum hops_end e)
{
	static const char *const names[] = {
		"running", "destination_reached", "unreachable", "silent", "max_hops",
		"stopped", "failed",
	};

	return names[e];
}

static uint32_t random32(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)monotonic_ns();
	return v;
}

/* Each path's flow identity: a source port held (tcp, udp), an echo
 * identifier (icmp). */
static int hold_ports(struct hops *h, char *err, size_t len)
{
	for (unsigned int i = 0; i < h->cfg.paths; i++) {
		struct hops_path *p = &h->path[i];
		int ret;

		p->hold = -1;
		if (h->cfg.proto == HOPSOCK_ICMP) {
			p->sport = hopmatch_echo_id(&h->m, i);
			continue;
		}
		ret = hopsock_hold(&h->sk, &p->hold, &p->sport);
		if (ret) {
			snprintf(err, len, "holding a source port for path %u: %s", i + 1,
				 strerror(-ret));
			return ret;
		}
		h->sport[i] = p->sport;
	}
	return 0;
}

int hops_create(struct hops **hp, const struct hops_cfg *c, char *err, size_t len)
{
	struct hops *h = calloc(1, sizeof(*h));
	uint64_t cap = (uint64_t)c->paths * c->count * c->max_hops;
	int ret;

	*hp = NULL;
	if (!h) {
		snprintf(err, len, "no memory for the trace");
		return -ENOMEM;
	}
	h->cfg = *c;
	for (unsigned int i = 0; i < HOPS_MAX_PATHS; i++)
		h->path[i].hold = -1;
	h->cap = (uint32_t)(cap > HOPS_MAX_PROBES ? HOPS_MAX_PROBES : cap);
	h->probe = calloc(h->cap, sizeof(*h->probe));
	h->by_key = calloc(h->cap, sizeof(*h->by_key));
	if (!h->probe || !h->by_key) {
		hops_destroy(h);
		snprintf(err, len, "no memory for the trace's %u probes", h->cap);
		return -ENOMEM;
	}
	ret = hopsock_open(&h->sk, c->iface, c->addr, c->proto, c->port, c->no_hw, err, len);
	if (ret) {
		hops_destroy(h);
		return ret;
	}
	h->m = (struct hopmatch){ .family = h->sk.family, .proto = c->proto, .dport = c->port,
				  .isn_base = random32(), .id_base = (uint16_t)random32(),
				  .paths = c->paths, .sport = h->sport, .probes = h->cap };
	memcpy(h->m.src, h->sk.src, 16);
	memcpy(h->m.dst, h->sk.dst, 16);
	ret = hold_ports(h, err, len);
	if (ret) {
		hops_destroy(h);
		return ret;
	}
	*hp = h;
	return 0;
}

void hops_destroy(struct hops *h)
{
	if (!h)
		return;
	for (unsigned int i = 0; i < HOPS_MAX_PATHS; i++)
		if (h->path[i].hold >= 0)
			close(h->path[i].hold);
	hopsock_close(&h->sk);
	free(h->probe);
	free(h->by_key);
	free(h);
}

/* The probe's packet into h->buf: its length. */
static size_t build(struct hops *h, uint32_t n, unsigned int path)
{
	int fam = h->sk.family == AF_INET6 ? 6 : 4;

	switch (h->cfg.proto) {
	case HOPSOCK_TCP:
		return tcpwire_syn(h->buf, fam, h->sk.src, h->sk.dst, h->path[path].sport,
				   h->cfg.port, hopmatch_tcp_seq(&h->m, n),
				   fam == 6 ? SYN_MSS6 : SYN_MSS4, n);
	case HOPSOCK_UDP:
		return tcpwire_udp(h->buf, fam, h->sk.src, h->sk.dst, h->path[path].sport,
				   h->cfg.port, hopmatch_udp_csum(n));
	default:
		tcpwire_echo(h->buf, hopmatch_echo_id(&h->m, path), (uint16_t)n,
			     hopmatch_echo_csum(path));
		if (fam == 6)
			h->buf[0] = 128;	/* ICMPv6 echo request: the kernel sums it */
		return TCPWIRE_ECHO_LEN;
	}
}

static int send_probe(struct hops *h, unsigned int ttl, unsigned int path, unsigned int round)
{
	uint32_t n = h->sent, key;
	struct hop_probe *pr = &h->probe[n];
	size_t len = build(h, n, path);
	int ret = hopsock_send(&h->sk, h->buf, len, (int)ttl, &key);

	if (ret) {
		snprintf(h->error, sizeof(h->error), "sending the probe for hop %u of path %u: %s",
			 ttl, path + 1, strerror(-ret));
		return ret;
	}
	*pr = (struct hop_probe){ .path = (uint8_t)path, .ttl = (uint8_t)ttl,
				  .round = (uint16_t)round, .key = key };
	if (key < h->cap)
		h->by_key[key] = n;
	h->sent++;
	return 0;
}

static void record(struct hops *h, const struct hopmatch_hit *hit, const struct ts_stamps *rx)
{
	struct hop_probe *pr;

	if (hit->probe >= h->sent || h->probe[hit->probe].path != hit->path) {
		h->unmatched++;
		return;
	}
	pr = &h->probe[hit->probe];
	if (pr->answer != HOP_NONE) {
		pr->dups++;
		return;
	}
	pr->answer = hit->answer;
	pr->code = hit->code;
	memcpy(pr->from, hit->from, 16);
	pr->rx_ns = ts_wire(rx, h->sk.hw);
}

/* Everything waiting: answers on both sockets, TX stamps. */
static void drain(struct hops *h)
{
	uint8_t from[16], pkt[1500];
	struct hopmatch_hit hit;
	struct ts_stamps rx;
	struct ts_tx tx;
	int n;

	while ((n = hopsock_recv(&h->sk, h->sk.icmp, pkt, sizeof(pkt), &rx, from)) >= 0) {
		struct pkt_icmp ic;

		if (pktparse_icmp(h->sk.family == AF_INET6 ? 6 : 4, pkt, (uint32_t)n, &ic) == 0 &&
		    hopmatch_icmp(&h->m, &ic, from, &hit))
			record(h, &hit, &rx);
	}
	while (h->cfg.proto == HOPSOCK_TCP &&
	       (n = hopsock_recv(&h->sk, h->sk.tx, pkt, sizeof(pkt), &rx, from)) >= 0) {
		struct pkt_tcp t;
		enum pkt_verdict v;

		v = h->sk.family == AF_INET6 ? pktparse_tcp(pkt, (uint32_t)n, 0, &t) :
		    pktparse_ip(pkt, (uint32_t)n, 0, &t);

		if (v == PKT_TCP && hopmatch_tcp(&h->m, &t, &hit))
			record(h, &hit, &rx);
	}
	while (hopsock_tx(&h->sk, &tx) == 0) {
		uint32_t i;

		if (tx.type != SCM_TSTAMP_SND || tx.key >= h->cap)
			continue;
		i = h->by_key[tx.key];
		if (i < h->sent && h->probe[i].key == tx.key)
			h->probe[i].tx_ns = ts_wire(&tx.ts, h->sk.hw);
	}
}

/* Wait until t_ns (monotonic), reading what comes. */
static void wait_until(struct hops *h, int64_t t_ns)
{
	int64_t now;

	drain(h);
	while (!stopsig_caught && (now = monotonic_ns()) < t_ns) {
		hopsock_wait(&h->sk, t_ns - now);
		drain(h);
	}
}

/* Every probe of TTL ttl (from probe first) answered and stamped? */
static bool hop_done(const struct hops *h, uint32_t first)
{
	for (uint32_t i = first; i < h->sent; i++) {
		const struct hop_probe *pr = &h->probe[i];

		if (pr->answer == HOP_NONE || pr->tx_ns == TS_NONE)
			return false;
	}
	return true;
}

/* The hop's answers, from probe first on: which paths end here. */
static void close_hop(struct hops *h, unsigned int ttl, uint32_t first)
{
	bool answered[HOPS_MAX_PATHS] = { false }, was[HOPS_MAX_PATHS] = { false };

	for (unsigned int i = 0; i < h->cfg.paths; i++)
		was[i] = h->path[i].end == HOPS_RUNNING;
	for (uint32_t i = first; i < h->sent; i++) {
		const struct hop_probe *pr = &h->probe[i];
		struct hops_path *p = &h->path[pr->path];

		answered[pr->path] |= pr->answer != HOP_NONE;
		if (pr->answer == HOP_DEST) {
			p->end = HOPS_REACHED;
		} else if (pr->answer == HOP_UNREACH && p->end != HOPS_REACHED) {
			p->end = HOPS_UNREACHABLE;
			p->code = pr->code;
			memcpy(p->by, pr->from, 16);
		}
	}
	for (unsigned int i = 0; i < h->cfg.paths; i++) {
		struct hops_path *p = &h->path[i];

		if (!was[i])
			continue;	/* ended before this hop */
		p->end_ttl = ttl;
		p->silent = answered[i] ? 0 : p->silent + 1;
		if (p->end == HOPS_RUNNING && p->silent >= HOPS_SILENT_STOP)
			p->end = HOPS_SILENT;
		if (p->end == HOPS_RUNNING && ttl == h->cfg.max_hops)
			p->end = HOPS_MAX_HOPS;
	}
}

/* One TTL: its probes paced from *next_ns, its answers awaited. */
static int one_hop(struct hops *h, unsigned int ttl, int64_t *next_ns)
{
	uint32_t first = h->sent;
	int ret;

	for (unsigned int r = 0; r < h->cfg.count; r++)
		for (unsigned int i = 0; i < h->cfg.paths; i++) {
			if (h->path[i].end != HOPS_RUNNING || h->sent == h->cap)
				continue;
			wait_until(h, *next_ns);
			if (stopsig_caught)
				return 0;
			ret = send_probe(h, ttl, i, r);
			if (ret)
				return ret;
			*next_ns = monotonic_ns() + h->cfg.interval_ns;
		}
	h->last_ttl = ttl;
	{
		int64_t deadline = monotonic_ns() + h->cfg.wait_ns;

		while (!stopsig_caught && !hop_done(h, first) && monotonic_ns() < deadline) {
			hopsock_wait(&h->sk, deadline - monotonic_ns());
			drain(h);
		}
	}
	close_hop(h, ttl, first);
	return 0;
}

static bool running(const struct hops *h)
{
	for (unsigned int i = 0; i < h->cfg.paths; i++)
		if (h->path[i].end == HOPS_RUNNING)
			return true;
	return false;
}

static int loop(struct hops *h)
{
	int64_t next = monotonic_ns();
	int ret = 0;

	for (unsigned int ttl = 1; ttl <= h->cfg.max_hops && running(h) && !stopsig_caught; ttl++) {
		ret = one_hop(h, ttl, &next);
		if (ret)
			break;
	}
	for (unsigned int i = 0; i < h->cfg.paths; i++)
		if (h->path[i].end == HOPS_RUNNING)
			h->path[i].end = ret ? HOPS_FAILED : HOPS_STOPPED;
	return ret;
}

int hops_run(struct hops *h)
{
	stopsig_arm();
	return loop(h);
}
