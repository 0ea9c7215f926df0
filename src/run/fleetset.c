// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's set-up (see fleetset.h).
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "fleetset.h"
#include "pathsk.h"
#include "timeutil.h"

void fleetset_ctx(const struct rant_cfg *c, const struct fleet *f, struct targets_ctx *ctx)
{
	*ctx = (struct targets_ctx){
		.port = c->port, .iface = c->iface, .ifindex = if_nametoindex(c->iface),
		.family = f ? f->family : 0,
	};
}

void fleetset_fill(const struct rant_cfg *c, const struct msgfmt_ctx *fmt, struct fleet *f,
		   size_t i, const struct target_spec *t)
{
	uint32_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(getpid() ^ monotonic_ns() ^ i);
	fleettab_fill(f, i, t, msgfmt_session_key(fmt, id), fleetset_tos(c, t));
}

/* The targets: the file's, or -a's alone (over --paths). */
static int load(const struct rant_cfg *c, struct target_list *l)
{
	struct targets_ctx ctx;
	char msg[640];

	fleetset_ctx(c, NULL, &ctx);
	if (c->targets_path)
		return targets_load(c->targets_path, &ctx, l, stderr);
	l->v = calloc(1, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	l->n = 1;
	if (targets_parse_line(c->addr, &ctx, &l->v[0], msg, sizeof(msg)) == 1)
		return 0;
	fprintf(stderr, "rant: -a %s\n", msg);
	targets_free(l);
	return -EINVAL;
}

/* The first IPv6 target's address (not an IPv4 one mapped), or NULL. */
static const struct in6_addr *ipv6_target(const struct fleet *f)
{
	for (size_t i = 0; i < f->used; i++) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&f->t[i].to;

		if (a->sin6_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
			return &a->sin6_addr;
	}
	return NULL;
}

void fleetset_plan(struct fleetset *fs, const struct rant_cfg *c, size_t cap, unsigned int npaths,
		   size_t wire_len)
{
	double rate = (double)cap * npaths * NS_PER_SEC / (double)c->interval_ns;
	double per_sock, bytes;

	fs->ngroup = c->flow_label ? 1 : npaths;
	fs->share = (unsigned int)ceil(rate / fs->ngroup / FLEETSET_SOCK_RATE);
	if (!fs->share || c->flow_label)
		fs->share = 1;	/* --flow-label: one socket, the labels leased to it */
	if (fs->share > FLEETSET_MAX_SK / fs->ngroup)
		fs->share = FLEETSET_MAX_SK / fs->ngroup;
	per_sock = rate / (fs->ngroup * fs->share);
	bytes = per_sock * (double)c->timeout_ns / NS_PER_SEC *
		(double)(wire_len + PATHSK_DGRAM_BYTES + PATHSK_STAMP_BYTES);
	if (bytes < FLEETSET_RCVBUF_MIN)
		bytes = FLEETSET_RCVBUF_MIN;
	if (bytes > FLEETSET_RCVBUF_MAX)
		bytes = FLEETSET_RCVBUF_MAX;
	fs->rcvbuf_asked = c->rcvbuf ? (int)c->rcvbuf : (int)bytes;
}

/* The sockets: a group a path (one for every label with --flow-label),
 * share of them a group on its port. */
static int open_sockets(struct fleetset *fs, const struct rant_cfg *c,
			const struct msgfmt_ctx *fmt, struct sk *first)
{
	struct fleet *f = fs->fleet;
	int ret = 0;
	char err[512];
	uint16_t port = 0;

	fleetset_plan(fs, c, f->cap, f->npaths, msgfmt_wire_len(fmt, c->size));
	for (unsigned int i = 0; !ret && i < fs->ngroup * fs->share; i++) {
		struct sk *s = i ? calloc(1, sizeof(*s)) : first;

		if (!s)
			return -ENOMEM;
		if (i)
			s->fd = -1;
		fs->sk[fs->nsk++] = s;
		if (i % fs->share == 0)
			port = 0;	/* a group's first: a port of its own */
		ret = pathsk_open(s, c, f->family, fs->share > 1, &port, fs->rcvbuf_asked,
				  err, sizeof(err));
		for (unsigned int p = i / fs->share; !ret && p < f->npaths; p += fs->ngroup)
			f->port[p] = port;
	}
	if (!ret)
		fs->rcvbuf = pathsk_rcvbuf(first);
	if (!ret && c->flow_label)
		ret = pathsk_labels(first, ipv6_target(f), f->label, f->npaths, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

int fleetset_open(struct fleetset *fs, const struct rant_cfg *c, const struct msgfmt_ctx *fmt,
		  struct sk *first)
{
	struct target_list l;
	int family = AF_INET, ret;

	ret = load(c, &l);
	if (ret)
		return ret;
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].addr.ss_family == AF_INET6)
			family = AF_INET6;
	ret = fleettab_create(&fs->fleet, fleettab_cap(l.n), c->paths, family, c->hugepages);
	if (ret) {
		fprintf(stderr, "rant: cannot allocate the table of %zu targets (%zu bytes each): %s: fewer targets, or fewer --paths\n",
			fleettab_cap(l.n), fleettab_target_bytes(c->paths), strerror(-ret));
		targets_free(&l);
		return ret;
	}
	fs->fleet->flow_label = c->flow_label;
	for (size_t i = 0; i < l.n; i++)
		fleetset_fill(c, fmt, fs->fleet, fleettab_take(fs->fleet, &l.v[i].addr, 0),
			      &l.v[i]);
	targets_free(&l);
	return open_sockets(fs, c, fmt, first);
}

void fleetset_close(struct fleetset *fs)
{
	for (unsigned int i = 1; i < fs->nsk; i++) {
		sk_close(fs->sk[i]);
		free(fs->sk[i]);
	}
	fs->nsk = 0;
	fleettab_destroy(fs->fleet);
	fs->fleet = NULL;
}
