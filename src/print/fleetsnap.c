// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's part of a snapshot (see fleetsnap.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleetsnap.h"

#define RTT_LABEL "Round trip (T4 - T1)"

static void addr_of(const struct target_spec *t, char *buf, size_t len)
{
	const void *a = t->addr.ss_family == AF_INET6 ?
			(const void *)&((const struct sockaddr_in6 *)&t->addr)->sin6_addr :
			(const void *)&((const struct sockaddr_in *)&t->addr)->sin_addr;

	if (!inet_ntop(t->addr.ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* Slot i's paths into st->path: 0 or -ENOMEM. */
static int take_paths(struct snap_target *st, const struct fleet *f, const struct fleet_target *ft)
{
	if (!ft->path)
		return 0;
	st->path = calloc(f->npaths, sizeof(*st->path));
	if (!st->path)
		return -ENOMEM;
	for (unsigned int p = 0; p < f->npaths; p++) {
		struct snap_path *sp = &st->path[p];

		sp->id = f->flow_label ? f->label[p] : f->port[p];
		sp->cnt = ft->path[p].cnt;
		snap_stats_lat(&sp->rtt, &ft->path[p].rtt, "rtt", RTT_LABEL, false);
	}
	return 0;
}

/* Slot i into st: 1 taken, 0 not (not measured, or rewritten while
 * read), -ENOMEM. */
static int take_target(struct snap_target *st, const struct run *r, size_t i)
{
	const struct fleet *f = r->fleet;
	const struct fleet_target *ft = &f->t[i];
	unsigned int gen = fleettab_read_begin(f, i);
	int ret;

	if ((gen & 1) || ft->state != FLEET_ACTIVE)
		return 0;
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", ft->spec.name);
	snprintf(st->label, sizeof(st->label), "%s", ft->spec.label);
	st->kind = targets_kind_name(ft->spec.kind);
	st->interval_ns = ft->spec.interval_ns ? ft->spec.interval_ns : r->cfg->interval_ns;
	addr_of(&ft->spec, st->addr, sizeof(st->addr));
	st->port = ft->spec.port;
	st->dscp = ft->tos >> 2;
	st->line = ft->spec.line;
	st->session = ft->session;
	st->added_ns = ft->added_ns;
	st->cnt = ft->cnt;
	ret = snap_stats_lat(&st->rtt, &ft->rtt, "rtt", RTT_LABEL, true);
	if (!ret)
		ret = take_paths(st, f, ft);
	if (!ret && fleettab_read_end(f, i, gen))
		return 1;
	snap_stats_free(&st->rtt);
	free(st->path);
	st->path = NULL;
	return ret;
}

/* The paths of target ti that stand out, appended to sf->find. */
static int find_paths(struct snap_fleet *sf, size_t ti, size_t *cap)
{
	struct snap_target *t = &sf->t[ti];
	struct pathdiag_in in[RANT_MAX_PATHS];
	struct pathdiag d[2];
	unsigned int k;

	if (!t->path)
		return 0;
	for (unsigned int p = 0; p < sf->npaths; p++)
		in[p] = (struct pathdiag_in){ .sent = t->path[p].cnt.sent,
					      .lost = t->path[p].cnt.lost,
					      .samples = t->path[p].rtt.st.samples,
					      .p50_ns = t->path[p].rtt.pct[0] };
	k = pathdiag_find(in, sf->npaths, d);
	for (unsigned int j = 0; j < k; j++) {
		if (sf->nfind == *cap) {
			size_t c = *cap ? 2 * *cap : 16;
			struct snap_finding *v = realloc(sf->find, c * sizeof(*v));

			if (!v)
				return -ENOMEM;
			sf->find = v;
			*cap = c;
		}
		sf->find[sf->nfind++] = (struct snap_finding){ .target = ti, .d = d[j] };
		for (unsigned int p = 0; p < sf->npaths; p++)
			if (d[j].paths & (1ULL << p))
				t->path[p].named |= 1u << d[j].kind;
	}
	return 0;
}

static double loss_rate(const struct fleet_counts *c)
{
	return c->sent ? (double)c->lost / (double)c->sent : 0;
}

static unsigned int named_paths(const struct snap_fleet *sf, const struct snap_target *t)
{
	unsigned int n = 0;

	for (unsigned int p = 0; t->path && p < sf->npaths; p++)
		n += t->path[p].named != 0;
	return n;
}

/* Worst first: nothing answered, loss, paths named, p99 (qsort_r's). */
static int worse(const void *a, const void *b, void *ctx)
{
	const struct snap_fleet *sort_fleet = ctx;
	const struct snap_target *x = &sort_fleet->t[*(const size_t *)a];
	const struct snap_target *y = &sort_fleet->t[*(const size_t *)b];
	bool dx = x->cnt.sent && !x->cnt.received, dy = y->cnt.sent && !y->cnt.received;
	double lx = loss_rate(&x->cnt), ly = loss_rate(&y->cnt);
	unsigned int nx = named_paths(sort_fleet, x), ny = named_paths(sort_fleet, y);

	if (dx != dy)
		return dy - dx;
	if (lx != ly)
		return lx < ly ? 1 : -1;
	if (nx != ny)
		return nx < ny ? 1 : -1;
	return (x->rtt.pct[SNAP_P99] < y->rtt.pct[SNAP_P99]) -
	       (x->rtt.pct[SNAP_P99] > y->rtt.pct[SNAP_P99]);
}

/* The sockets: each one's port and drops (live: read now; at the end:
 * as the run's counts took them, so that the two agree). */
static int take_socks(struct snap_fleet *sf, const struct snap *s, const struct run *r)
{
	const struct fleetset *fs = &r->fs;

	sf->nsk = fs->nsk;
	sf->share = fs->share;
	sf->rcvbuf = fs->rcvbuf;
	sf->rcvbuf_asked = fs->rcvbuf_asked;
	sf->sock = calloc(fs->nsk ? fs->nsk : 1, sizeof(*sf->sock));
	if (!sf->sock)
		return -ENOMEM;
	for (unsigned int i = 0; i < fs->nsk; i++) {
		sf->sock[i].port = (uint16_t)r->fleet->port[i / fs->share % r->fleet->npaths];
		sf->sock[i].drops = s->kind == SNAP_FINAL ? fs->sk[i]->drops :
				    sk_drops_peek(fs->sk[i]);
	}
	return 0;
}

static int take(struct snap_fleet *sf, const struct snap *s, const struct run *r)
{
	const struct fleet *f = r->fleet;
	size_t used = f->used, cap = 0;
	int ret = take_socks(sf, s, r);

	if (ret)
		return ret;
	sf->npaths = f->npaths;
	sf->flow_label = f->flow_label;
	sf->cap = f->cap;
	sf->target_bytes = fleettab_target_bytes(f->npaths);
	sf->t = calloc(used ? used : 1, sizeof(*sf->t));
	sf->order = calloc(used ? used : 1, sizeof(*sf->order));
	if (!sf->t || !sf->order)
		return -ENOMEM;
	for (size_t i = 0; !ret && i < used; i++) {
		ret = take_target(&sf->t[sf->n], r, i);
		sf->n += ret == 1;
		ret = ret < 0 ? ret : 0;
	}
	for (size_t i = 0; !ret && i < sf->n; i++) {
		sf->order[i] = i;
		ret = find_paths(sf, i, &cap);
	}
	return ret;
}

int fleetsnap_take(struct snap *s, const struct run *r)
{
	struct snap_fleet *sf;
	int ret;

	if (!r->fleet)
		return 0;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	s->fleet = sf;
	ret = take(sf, s, r);
	if (ret)
		return ret;
	qsort_r(sf->order, sf->n, sizeof(*sf->order), worse, sf);
	return 0;
}

bool fleetsnap_has_errors(const struct snap_fleet *f)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!strcmp(f->t[i].kind, targets_kind_name(TARGET_ICMP)) ||
		    !strcmp(f->t[i].kind, targets_kind_name(TARGET_SYN)))
			return true;
	return false;
}
