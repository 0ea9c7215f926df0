// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading a capture, flow by flow (watch.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowtab.h"
#include "pcapsrc.h"
#include "stopsig.h"
#include "timeutil.h"
#include "watch.h"
#include "watchagg.h"

#define BATCH 4096			/* packets between looks at the clock */
#define WAIT_MS 100			/* live: a wait for packets at most */
#define BLOCK_MS 100			/* live: the kernel hands a block over */
#define DROPS_EVERY_NS NS_PER_SEC	/* live: pcap's drop counters read */

struct watch {
	const struct rant_cfg *cfg;
	struct watch_report r;
	struct pcapsrc *src;
	struct watchagg *g;
	struct flowtab *tab;
	int dlt;
	bool have_first;
};

int watch_create(struct watch **wp, const struct rant_cfg *c, char *err, size_t len)
{
	struct pcapsrc_params sp = {
		.path = c->read_path, .iface = c->read_path ? NULL : c->iface, .filter = c->filter,
		.snaplen = WATCH_SNAPLEN, .buffer_bytes = WATCH_BUFFER_BYTES, .block_ms = BLOCK_MS,
	};
	struct watchagg_params ap = { .flows_max = c->flows_keep, .bucket_ns = c->bucket_ns,
				      .overflow_ns = c->overflow_ns };
	struct flowtab_params fp = { .max_flows = c->max_flows, .idle_ns = c->flow_idle_ns,
				     .linger_ns = WATCH_LINGER_NS,
				     .counters_max = WATCH_COUNTERS_MAX };
	const struct pcapsrc_info *info;
	struct watch *w = calloc(1, sizeof(*w));
	int ret;

	*wp = NULL;
	if (!w) {
		snprintf(err, len, "no memory for --read/--watch: free some");
		return -ENOMEM;
	}
	w->cfg = c;
	ret = pcapsrc_open(&w->src, &sp, err, len);
	if (ret)
		goto fail;
	info = pcapsrc_info(w->src);
	w->dlt = info->dlt;
	w->r = (struct watch_report){ .live = !c->read_path, .path = c->read_path,
				      .iface = c->read_path ? NULL : c->iface, .filter = c->filter,
				      .link = info->link, .format = info->format,
				      .stamps = info->stamps, .snaplen = info->snaplen };
	w->g = watchagg_create(&w->r, &ap);
	w->tab = w->g ? flowtab_create(&fp, w->g, &w->r) : NULL;
	if (!w->tab) {
		snprintf(err, len, "no memory for the flow table (--max-flows %u): give a smaller one",
			 c->max_flows);
		ret = -ENOMEM;
		goto fail;
	}
	*wp = w;
	return 0;
fail:
	watch_destroy(w);
	return ret;
}

static void on_packet(void *ctx, int64_t t_ns, const uint8_t *p, uint32_t caplen,
		      uint32_t wirelen)
{
	struct watch *w = ctx;
	struct watch_report *r = &w->r;
	struct pkt_tcp pk;
	enum pkt_verdict v;

	r->cnt.packets++;
	if (!w->have_first) {
		w->have_first = true;
		r->first_ns = t_ns;
	}
	if (t_ns > r->last_ns)
		r->last_ns = t_ns;
	v = pktparse(w->dlt, p, caplen, wirelen, t_ns, &pk);
	r->cnt.verdict[v]++;
	r->cnt.ip_len_clamped += pk.clamped;
	r->cnt.tunneled += v == PKT_TCP && pk.tunnels;
	if (v == PKT_TCP)
		flowtab_packet(w->tab, &pk);
}

static void read_drops(struct watch *w)
{
	uint64_t d, i;

	if (!pcapsrc_drops(w->src, &d, &i)) {
		w->r.cnt.dropped = d;
		w->r.cnt.if_dropped = i;
	}
}

/* Live, between batches: the clock's time for idle flows, pcap's drop
 * counters, -d. true when -d is over. */
static bool live_tick(struct watch *w, int64_t deadline, int64_t *next_drops)
{
	int64_t now = realtime_ns();

	if (now >= *next_drops) {
		read_drops(w);
		*next_drops = now + DROPS_EVERY_NS;
	}
	if (now > flowtab_now(w->tab) + WAIT_MS * NS_PER_MS)
		flowtab_expire(w->tab, now);
	return deadline && now >= deadline;
}

/* Live, at the end: what the kernel still holds (its last block is
 * handed over after BLOCK_MS at the latest). */
static void drain(struct watch *w)
{
	int64_t until = monotonic_ns() + 2 * BLOCK_MS * NS_PER_MS;
	char err[256];

	while (monotonic_ns() < until)
		if (pcapsrc_next(w->src, on_packet, w, BATCH, BLOCK_MS / 5, err, sizeof(err)) < 0)
			return;
}

static int read_all(struct watch *w)
{
	bool live = w->r.live;
	int64_t start = realtime_ns(), next_drops = start;
	int64_t deadline = live && w->cfg->duration_ns > 0 ? start + w->cfg->duration_ns : 0;
	int n;

	for (;;) {
		if (stopsig_caught) {
			w->r.stop_reason = stopsig_caught == SIGTERM ? "SIGTERM" : "SIGINT";
			return 0;
		}
		n = pcapsrc_next(w->src, on_packet, w, BATCH, live ? WAIT_MS : 0, w->r.error,
				 sizeof(w->r.error));
		if (n < 0) {
			w->r.stop_reason = "read error";
			return n;
		}
		if (!live && n == 0) {
			w->r.stop_reason = "end of file";
			return 0;
		}
		if (live && live_tick(w, deadline, &next_drops)) {
			w->r.stop_reason = "-d";
			return 0;
		}
	}
}

int watch_run(struct watch *w)
{
	int64_t t0 = monotonic_ns();
	int ret;

	stopsig_arm();
	ret = read_all(w);
	if (w->r.live && !ret)
		drain(w);
	if (w->r.live) {
		read_drops(w);
		flowtab_end_all(w->tab, realtime_ns());
	} else {
		flowtab_end_all(w->tab, w->r.last_ns);
	}
	w->r.cnt.bad_stamps = pcapsrc_bad_stamps(w->src);
	w->r.table_bytes = flowtab_bytes(w->tab);
	watchagg_finish(w->g);
	w->r.wall_ns = monotonic_ns() - t0;
	return ret;
}

struct watch_report *watch_report(struct watch *w)
{
	return &w->r;
}

void watch_destroy(struct watch *w)
{
	if (!w)
		return;
	flowtab_destroy(w->tab);
	watchagg_destroy(w->g);
	pcapsrc_close(w->src);
	free(w);
}
