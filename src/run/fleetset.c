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
#include "icmpsock.h"
#include "pathsk.h"
#include "timeutil.h"

void fleetset_ctx(const struct rant_cfg *c, const struct fleet *f, struct targets_ctx *ctx)
{
	*ctx = (struct targets_ctx){
		.port = c->port, .iface = c->iface, .ifindex = if_nametoindex(c->iface),
		.family = f ? f->family : 0, .interval_ns = c->interval_ns,
	};
}

void fleetset_fill(const struct rant_cfg *c, const struct fleetset *fs, struct fleet *f,
		   size_t i, const struct target_spec *t)
{
	uint32_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(getpid() ^ monotonic_ns() ^ i);
	fleettab_fill(f, i, t, msgfmt_session_key(fleetset_fmt(fs, t->kind), id),
		      fleetset_tos(c, t));
}

int fleetset_check(const struct fleetset *fs, const struct target_spec *t, char *msg, size_t len)
{
	if (t->kind == TARGET_SYN) {
		snprintf(msg, len, "syn %s: a fleet does not time TCP handshakes: measure it with rant emit --syn -a ADDR --port PORT",
			 t->name);
		return -EINVAL;
	}
	if (t->kind == TARGET_ICMP && fs->fleet && !fleetset_icmp(fs, t->addr.ss_family)) {
		snprintf(msg, len, "icmp %s: the fleet began without an IPv%c ping socket: restart rant to add it",
			 t->name, t->addr.ss_family == AF_INET6 ? '6' : '4');
		return -EINVAL;
	}
	return 0;
}

/* Every target of l checked (fleetset_check): 0, or -EINVAL after a
 * line each on stderr. */
static int check_all(const struct fleetset *fs, const struct rant_cfg *c,
		     const struct target_list *l)
{
	char msg[512];
	int ret = 0;

	for (size_t i = 0; i < l->n; i++)
		if (fleetset_check(fs, &l->v[i], msg, sizeof(msg))) {
			fprintf(stderr, "rant: --targets %s:%u: %s\n",
				c->targets_path ? c->targets_path : "-a", l->v[i].line, msg);
			ret = -EINVAL;
		}
	return ret;
}

/* STAMP's format for stamp targets, set as --stamp would set it. */
static int open_stamp(struct fleetset *fs, const struct rant_cfg *c, const struct auth *auth)
{
	struct msgfmt_side side = {
		.emit = true, .mac = auth != NULL, .iface = c->iface, .key = auth,
		.stamp_ptp = c->stamp_ts && !strcmp(c->stamp_ts, "ptp"),
		.stamp_ssid = (uint16_t)c->ssid, .stamp_phc_bound_ns = c->max_clock_offset_ns,
	};
	const struct msgfmt *f = msgfmt_find("stamp");
	char err[512];
	int ret = f ? msgfmt_init(&fs->stamp, f, &side, err, sizeof(err)) : -ENOENT;

	if (ret && f)
		fprintf(stderr, "rant: stamp targets: %s\n", err);
	fs->have_stamp = !ret;
	return f ? ret : 0;
}

/* The ping sockets: AF_INET's, and AF_INET6's on an IPv6 table. One a
 * target of the file needs must open; another is opened where it may
 * be, for a reload's targets. */
static int open_icmp(struct fleetset *fs, const struct rant_cfg *c, const struct target_list *l)
{
	int fams[2] = { AF_INET, AF_INET6 };
	char err[512];

	for (int i = 0; i < 2; i++) {
		bool need = false;
		int ret;

		if (fams[i] == AF_INET6 && fs->fleet->family != AF_INET6)
			continue;
		for (size_t j = 0; j < l->n; j++)
			need |= l->v[j].kind == TARGET_ICMP && l->v[j].addr.ss_family == fams[i];
		fs->icmp[i] = calloc(1, sizeof(struct sk));
		if (!fs->icmp[i])
			return -ENOMEM;
		ret = icmpsock_fleet_open(fs->icmp[i], c, fams[i], fs->rcvbuf_asked, err,
					  sizeof(err));
		if (ret) {
			free(fs->icmp[i]);
			fs->icmp[i] = NULL;
		}
		if (ret && need) {
			fprintf(stderr, "rant: icmp targets: %s\n", err);
			return ret;
		}
	}
	return 0;
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
		  const struct auth *auth, struct sk *first)
{
	struct target_list l;
	int family = AF_INET, ret;

	fs->fmt = fmt;
	ret = load(c, &l);
	if (!ret)
		ret = check_all(fs, c, &l);
	if (!ret)
		ret = open_stamp(fs, c, auth);
	if (ret) {
		targets_free(&l);
		return ret;
	}
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
	for (size_t i = 0; i < l.n; i++) {
		fs->nkind[l.v[i].kind]++;
		fleetset_fill(c, fs, fs->fleet, fleettab_take(fs->fleet, &l.v[i].addr,
			      l.v[i].kind, 0), &l.v[i]);
	}
	ret = open_sockets(fs, c, fmt, first);
	if (!ret)
		ret = open_icmp(fs, c, &l);
	targets_free(&l);
	return ret;
}

void fleetset_close(struct fleetset *fs)
{
	for (unsigned int i = 1; i < fs->nsk; i++) {
		sk_close(fs->sk[i]);
		free(fs->sk[i]);
	}
	fs->nsk = 0;
	for (int i = 0; i < 2; i++) {
		if (fs->icmp[i])
			sk_close(fs->icmp[i]);
		free(fs->icmp[i]);
		fs->icmp[i] = NULL;
	}
	if (fs->have_stamp)
		msgfmt_fini(&fs->stamp);
	fs->have_stamp = false;
	fleettab_destroy(fs->fleet);
	fs->fleet = NULL;
}
