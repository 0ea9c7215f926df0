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
#include "synsock.h"
#include "pathsk.h"
#include "timeutil.h"

void fleetset_ctx(const struct rant_cfg *c, const struct fleet *f, struct targets_ctx *ctx)
{
	*ctx = (struct targets_ctx){
		.port = c->port, .iface = c->iface, .ifindex = if_nametoindex(c->iface),
		.family = f ? f->family : 0, .interval_ns = c->interval_ns,
	};
}

/* A syn target's source address (its SYNs' checksum covers it): the one
 * the route out of -i gives; none (zeros) leaves its SYNs unanswered. */
static void syn_source(const struct rant_cfg *c, struct fleet_target *ft)
{
	struct sockaddr_storage local;
	socklen_t len;

	memset(ft->src, 0, sizeof(ft->src));
	if (synsock_local_addr(&ft->spec.addr, ft->spec.addr_len, c->iface, &local, &len))
		return;
	if (local.ss_family == AF_INET6)
		memcpy(ft->src, &((struct sockaddr_in6 *)&local)->sin6_addr, 16);
	else
		memcpy(ft->src, &((struct sockaddr_in *)&local)->sin_addr, 4);
}

void fleetset_fill(const struct rant_cfg *c, const struct fleetset *fs, struct fleet *f,
		   size_t i, const struct target_spec *t)
{
	uint32_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(getpid() ^ monotonic_ns() ^ i);
	fleettab_fill(f, i, t, msgfmt_session_key(fleetset_fmt(fs, t->kind), id),
		      fleetset_tos(c, t));
	if (t->kind == TARGET_SYN)
		syn_source(c, &f->t[i]);
}

int fleetset_check(const struct fleetset *fs, const struct rant_cfg *c,
		   const struct target_spec *t, char *msg, size_t len)
{
	int fam = t->addr.ss_family;
	bool icmp = t->kind == TARGET_ICMP;

	if (t->kind == TARGET_HTTP && c->paths > 1) {
		snprintf(msg, len, "http %s: --paths %u spreads each target's pings over source ports, and an http target's requests keep to its one connection: measure it in a run without --paths",
			 t->name, c->paths);
		return -EINVAL;
	}
	if (!fs->fleet || (t->kind != TARGET_ICMP && t->kind != TARGET_SYN) ||
	    (icmp ? fleetset_icmp(fs, fam) : fleetset_syn(fs, fam)))
		return 0;
	snprintf(msg, len, "%s %s: the fleet began without IPv%c %s targets (so without their %s socket): restart rant to add it",
		 targets_kind_name(t->kind), t->name, fam == AF_INET6 ? '6' : '4',
		 targets_kind_name(t->kind), icmp ? "ping" : "raw");
	return -EINVAL;
}

/* Every target of l checked (fleetset_check): 0, or -EINVAL after a
 * line each on stderr. */
static int check_all(const struct fleetset *fs, const struct rant_cfg *c,
		     const struct target_list *l)
{
	char msg[512];
	int ret = 0;

	for (size_t i = 0; i < l->n; i++)
		if (fleetset_check(fs, c, &l->v[i], msg, sizeof(msg))) {
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

/* Socket i (family fams[i]) of kind's (icmp, syn) into *s. */
static int open_one(struct fleetset *fs, const struct rant_cfg *c, int kind, int i,
		    struct sk *s, char *err, size_t len)
{
	int fam = i ? AF_INET6 : AF_INET;

	if (kind == TARGET_ICMP)
		return icmpsock_fleet_open(s, c, fam, fs->rcvbuf_asked, err, len);
	return synsock_fleet_open(s, c, fam, fs->rcvbuf_asked, &fs->syn_hold[i], &fs->syn_port[i],
				  err, len);
}

/* The sockets of kind (icmp, syn) into v: AF_INET's, AF_INET6's, each
 * where a target of the file needs it (a socket the loop reads every
 * turn costs its system calls: none for a kind the fleet lacks; a
 * reload cannot add one). */
static int open_kind(struct fleetset *fs, const struct rant_cfg *c, const struct target_list *l,
		     int kind, struct sk **v)
{
	char err[512];

	for (int i = 0; i < 2; i++) {
		int fam = i ? AF_INET6 : AF_INET, ret;
		bool need = false;

		for (size_t j = 0; j < l->n; j++)
			need |= (int)l->v[j].kind == kind && l->v[j].addr.ss_family == fam;
		if (!need)
			continue;
		v[i] = calloc(1, sizeof(struct sk));
		if (!v[i])
			return -ENOMEM;
		ret = open_one(fs, c, kind, i, v[i], err, sizeof(err));
		if (ret) {
			free(v[i]);
			v[i] = NULL;
			fprintf(stderr, "rant: %s targets: %s\n", targets_kind_name(kind), err);
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
		ret = open_kind(fs, c, &l, TARGET_ICMP, fs->icmp);
	if (!ret)
		ret = open_kind(fs, c, &l, TARGET_SYN, fs->syn);
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
		if (fs->syn[i]) {
			sk_close(fs->syn[i]);
			close(fs->syn_hold[i]);
		}
		free(fs->syn[i]);
		fs->syn[i] = NULL;
	}
	if (fs->have_stamp)
		msgfmt_fini(&fs->stamp);
	fs->have_stamp = false;
	fleettab_destroy(fs->fleet);
	fs->fleet = NULL;
}
