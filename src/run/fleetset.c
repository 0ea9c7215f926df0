// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's set-up (see fleetset.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "fleetset.h"
#include "pathsk.h"
#include "timeutil.h"

void fleetset_ctx(const struct run *r, struct targets_ctx *ctx)
{
	*ctx = (struct targets_ctx){
		.port = r->cfg->port, .iface = r->cfg->iface,
		.ifindex = if_nametoindex(r->cfg->iface),
		.family = r->fleet ? r->fleet->family : 0,
	};
}

void fleetset_fill(struct run *r, size_t i, const struct target_spec *t)
{
	uint32_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(getpid() ^ monotonic_ns() ^ i);
	fleettab_fill(r->fleet, i, t, msgfmt_session_key(&r->fmt, id), fleetset_tos(r->cfg, t));
}

/* The targets: the file's, or -a's alone (over --paths). */
static int load(struct run *r, struct target_list *l)
{
	const struct rant_cfg *c = r->cfg;
	struct targets_ctx ctx;
	char msg[640];

	fleetset_ctx(r, &ctx);
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

/* The sockets: one a path (one for every label with --flow-label). */
static int open_sockets(struct run *r)
{
	struct fleet *f = r->fleet;
	unsigned int n = r->cfg->flow_label ? 1 : f->npaths;
	int tos = r->cfg->dscp << 2, ret = 0;
	char err[512];
	uint16_t port;

	r->tp = &transport_udp;		/* its close() closes r->sk */
	for (unsigned int i = 0; !ret && i < n; i++) {
		struct sk *s = i ? calloc(1, sizeof(*s)) : &r->sk;

		if (!s)
			return -ENOMEM;
		if (i)
			s->fd = -1;
		r->fsk[r->nfsk++] = s;
		ret = pathsk_open(s, r->cfg, f->family, tos, &port, err, sizeof(err));
		for (unsigned int p = i; !ret && p < f->npaths; p += n)
			f->port[p] = port;
	}
	if (!ret && r->cfg->flow_label)
		ret = pathsk_labels(&r->sk, f->label, f->npaths, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

int fleetset_open(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct target_list l;
	int family = AF_INET, ret;

	ret = load(r, &l);
	if (ret)
		return ret;
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].addr.ss_family == AF_INET6)
			family = AF_INET6;
	ret = fleettab_create(&r->fleet, fleettab_cap(l.n), c->paths, family, c->hugepages);
	if (ret) {
		fprintf(stderr, "rant: cannot allocate the table of %zu targets (%zu bytes each): %s: fewer targets, or fewer --paths\n",
			fleettab_cap(l.n), fleettab_target_bytes(c->paths), strerror(-ret));
		targets_free(&l);
		return ret;
	}
	r->fleet->flow_label = c->flow_label;
	for (size_t i = 0; i < l.n; i++)
		fleetset_fill(r, fleettab_take(r->fleet, 0), &l.v[i]);
	targets_free(&l);
	return open_sockets(r);
}

void fleetset_close(struct run *r)
{
	for (unsigned int i = 1; i < r->nfsk; i++) {
		sk_close(r->fsk[i]);
		free(r->fsk[i]);
	}
	r->nfsk = 0;
	fleettab_destroy(r->fleet);
	r->fleet = NULL;
}
