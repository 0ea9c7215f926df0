// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server from its own side (see srvview.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pidsock.h"
#include "procfd.h"
#include "sockdiag.h"
#include "srvview.h"
#include "syswrite.h"
#include "timeutil.h"

#define SRV_MAX_NETNS 1024
#define SRV_MAX_RESPONSES (1u << 20)	/* responses summed up at most */

/* One dump of the port's sockets, in the namespace procfd_in_netns() runs it. */
struct dump_arg {
	uint16_t port;
	bool peer;
	struct srv_sock *socks;
	int n;
	char *err;
	size_t len;
	const struct sockaddr_storage *addr;
	bool addr_local;
};

static bool addr_local_here(const struct sockaddr_storage *a)
{
	struct sockaddr_storage b = *a;
	socklen_t len = a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						   sizeof(struct sockaddr_in);
	int fd = socket(a->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	if (b.ss_family == AF_INET)
		((struct sockaddr_in *)&b)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&b)->sin6_port = 0;
	ok = !bind(fd, (struct sockaddr *)&b, len);
	close(fd);
	return ok;
}

static int dump_here(void *p)
{
	struct dump_arg *d = p;

	d->n = sockdiag_port(d->port, d->peer, d->socks, SRV_MAX_SOCKS, d->err, d->len);
	d->addr_local = d->addr && addr_local_here(d->addr);
	return d->n < 0 ? d->n : 0;
}

static bool is_wildcard(const struct sockaddr_storage *s)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;

	if (s->ss_family == AF_INET)
		return ((const struct sockaddr_in *)s)->sin_addr.s_addr == htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)s)->sin6_addr, &any6, sizeof(any6));
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* The listener of the dump that serves addr (any when addr is NULL), or -1. */
static int pick_listener(const struct dump_arg *d)
{
	for (int i = 0; i < d->n && i < SRV_MAX_SOCKS; i++) {
		const struct srv_sock *s = &d->socks[i];

		if (s->state != SRV_LISTEN)
			break;
		if (!d->addr || same_addr(&s->local, d->addr) ||
		    (is_wildcard(&s->local) && d->addr_local))
			return i;
	}
	return -1;
}

struct counters {
	uint64_t overflows, drops;
};

/* TcpExt's ListenOverflows and ListenDrops of this thread's namespace
 * (/proc/thread-self/net: /proc/net is the process's). */
static int read_counters(void *arg)
{
	char names[4096], values[4096];
	struct counters *c = arg;
	FILE *f = fopen("/proc/thread-self/net/netstat", "re");

	c->overflows = c->drops = 0;
	while (f && fgets(names, sizeof(names), f) && fgets(values, sizeof(values), f)) {
		char *sn, *sv, *n = strtok_r(names, " \n", &sn), *v = strtok_r(values, " \n", &sv);

		if (!n || strcmp(n, "TcpExt:"))
			continue;
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv))) {
			if (!strcmp(n, "ListenOverflows"))
				c->overflows = strtoull(v, NULL, 10);
			else if (!strcmp(n, "ListenDrops"))
				c->drops = strtoull(v, NULL, 10);
		}
	}
	if (f)
		fclose(f);
	return 0;
}

static void listen_counters(const struct procfd_ns *ns, uint64_t *overflows, uint64_t *drops)
{
	struct counters c = { 0, 0 };

	procfd_in_netns(ns, read_counters, &c);
	*overflows = c.overflows;
	*drops = c.drops;
}

static void addr_text(const struct sockaddr_storage *s, char *buf, size_t len)
{
	const void *a = s->ss_family == AF_INET ?
			(const void *)&((const struct sockaddr_in *)s)->sin_addr :
			(const void *)&((const struct sockaddr_in6 *)s)->sin6_addr;

	if ((s->ss_family != AF_INET && s->ss_family != AF_INET6) ||
	    !inet_ntop(s->ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

void srvview_addr(const struct sockaddr_storage *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	uint16_t port = s->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)s)->sin6_port :
						  ((const struct sockaddr_in *)s)->sin_port;

	addr_text(s, a, sizeof(a));
	snprintf(buf, len, s->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, ntohs(port));
}

/* The namespace whose listener serves q: 0, or -ENOENT. */
static int find_netns(struct srv_view *v, const struct srv_query *q, struct dump_arg *d,
		      int *listener)
{
	struct procfd_ns *ns = calloc(SRV_MAX_NETNS, sizeof(*ns));
	size_t n = 0;
	int ret = -ENOENT;

	if (!ns)
		return -ENOMEM;
	if (q->pid)
		n = procfd_netns_of(q->pid, &ns[0]) ? 0 : 1;
	else
		n = procfd_netns_all(ns, SRV_MAX_NETNS);
	for (size_t i = 0; i < n; i++) {
		int l;

		if (procfd_in_netns(&ns[i], dump_here, d) || (l = pick_listener(d)) < 0)
			continue;
		if (!ret) {	/* a second: which one is meant cannot be told */
			snprintf(d->err, d->len, "port %u is listened on in two network namespaces (%s and %s): give the server's pid with --server-pid PID",
				 q->port, v->ns.path, ns[i].path);
			ret = -EEXIST;
			break;
		}
		v->ns = ns[i];
		ret = 0;
	}
	if (!ret)	/* the listener of the one found, dumped again */
		ret = procfd_in_netns(&v->ns, dump_here, d) ? -ENOENT :
		      (*listener = pick_listener(d)) < 0 ? -ENOENT : 0;
	free(ns);
	return ret;
}

static void not_found(const struct srv_query *q, char *err, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "", comm[32];

	if (q->addr)
		addr_text(q->addr, a, sizeof(a));
	if (q->pid) {
		procfd_comm(q->pid, comm, sizeof(comm));
		snprintf(err, len, "process %d (%s) has no listening TCP socket on port %u%s%s in its network namespace: is it the server? (rant sockets %d lists its ports)",
			 q->pid, comm, q->port, *a ? " for " : "", a, q->pid);
	} else {
		snprintf(err, len, "no process on this machine listens on TCP port %u%s%s (in any network namespace): give the server's pid with --server-pid PID, or run rant where the server runs",
			 q->port, *a ? " at " : "", a);
	}
}

int srvview_open(struct srv_view **vp, const struct srv_query *q, char *err, size_t len)
{
	struct srv_view *v = calloc(1, sizeof(*v));
	struct dump_arg d = { .port = q->port, .err = err, .len = len, .addr = q->addr };
	int listener = -1, ret;

	*vp = NULL;
	if (!v || !(v->socks = calloc(SRV_MAX_SOCKS, sizeof(*v->socks)))) {
		free(v);
		snprintf(err, len, "no memory for the server's sockets");
		return -ENOMEM;
	}
	d.socks = v->socks;
	if (q->pid && procfd_netns_of(q->pid, &v->ns)) {
		snprintf(err, len, "process %d: no such process (or /proc/%d/ns/net unreadable)", q->pid,
			 q->pid);
		ret = -ESRCH;
		goto failed;
	}
	if (q->client) {
		v->pid = v->owners[0] = q->pid;
		v->nowners = 1;
	} else if ((ret = find_netns(v, q, &d, &listener))) {
		if (ret != -EEXIST)
			not_found(q, err, len);
		goto failed;
	} else {
		v->pid = q->pid;
		v->nowners = procfd_holders(v->socks[listener].inode, v->owners, SRV_MAX_OWNERS);
		if (!q->pid && v->nowners)
			v->pid = v->owners[0];
	}
	v->client = q->client;
	v->netns = v->ns.inode;
	v->other_netns = v->netns != procfd_netns(0);
	if (v->pid)
		procfd_comm(v->pid, v->comm, sizeof(v->comm));
	else
		snprintf(v->comm, sizeof(v->comm), "?");
	listen_counters(&v->ns, &v->overflows_at_open, &v->drops_at_open);
	v->w.first_kind = v->w.second_kind = -1;
	v->port = q->port;
	*vp = v;
	return 0;
failed:
	srvview_close(v);
	return ret;
}

/* A connection's response under way, while the calls are summed up. */
struct conn_resp {
	int pid, fd;
	int64_t read_ns;		/* its request's read, 0: none yet */
	int64_t first_ns, last_ns;
	uint32_t nw;
	int64_t first_bytes, second_bytes;
	int first_kind, second_kind;
};

struct resp_sum {
	int64_t *nw, *first, *second, *r2w, *gap;
	size_t n, ngap;
	uint64_t kinds[2][SYSW_KINDS];
};

static int conn_cmp(const void *a, const void *b)
{
	const struct conn_resp *x = a, *y = b;

	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) :
				  (x->fd > y->fd) - (x->fd < y->fd);
}

static void resp_close(struct resp_sum *s, struct conn_resp *c)
{
	size_t i = s->n;

	if (!c->read_ns || !c->nw || i >= SRV_MAX_RESPONSES)
		goto reset;
	s->nw[i] = c->nw;
	s->first[i] = c->first_bytes;
	s->second[i] = c->second_bytes;
	s->r2w[i] = c->first_ns - c->read_ns;
	if (c->nw >= 2)
		s->gap[s->ngap++] = c->last_ns - c->first_ns;
	s->kinds[0][c->first_kind]++;
	if (c->nw >= 2)
		s->kinds[1][c->second_kind]++;
	s->n++;
reset:
	c->read_ns = c->first_ns = c->last_ns = 0;
	c->nw = 0;
	c->first_bytes = c->second_bytes = -1;
}

static void resp_call(struct resp_sum *s, struct conn_resp *c, const struct syswrite_call *k)
{
	if (k->ret <= 0)
		return;
	if (k->kind >= SYSW_FIRST_READ) {
		resp_close(s, c);
		c->read_ns = k->t_ns;
		return;
	}
	if (!c->read_ns)
		return;		/* a write before any request read: not a response's */
	if (!c->nw++) {
		c->first_ns = k->t_ns;
		c->first_bytes = k->ret;
		c->first_kind = k->kind;
	} else if (c->nw == 2) {
		c->second_bytes = k->ret;
		c->second_kind = k->kind;
	}
	c->last_ns = k->t_ns + k->dur_ns;
}

static int64_t median(int64_t *v, size_t n)
{
	if (!n)
		return -1;
	ns_sort(v, n);
	return v[n / 2];
}

static int most(const uint64_t *k)
{
	int best = -1;

	for (int i = 0; i < SYSW_KINDS; i++)
		if (k[i] && (best < 0 || k[i] > k[best]))
			best = i;
	return best;
}

static void resp_summary(struct srv_writes *w, struct resp_sum *s)
{
	w->responses = s->n;
	w->per_response = s->n ? (double)w->writes / (double)s->n : 0;
	w->typical_writes = s->n ? (uint32_t)median(s->nw, s->n) : 0;
	w->first_bytes = median(s->first, s->n);
	w->second_bytes = median(s->second, s->n);
	w->read_to_write_ns = median(s->r2w, s->n);
	w->write_gap_ns = median(s->gap, s->ngap);
	w->write_gap_max_ns = s->ngap ? s->gap[s->ngap - 1] : -1;
	w->first_kind = most(s->kinds[0]);
	w->second_kind = most(s->kinds[1]);
}

/* The traced calls on the port's connections, response by response. */
static int sum_writes(struct srv_view *v)
{
	const struct syswrite_call *calls;
	size_t ncalls = syswrite_calls(v->trace, &calls), nc = 0;
	struct conn_resp *conns = calloc(v->nsocks ? v->nsocks : 1, sizeof(*conns));
	struct resp_sum s = { 0 };
	int ret = 0;

	s.nw = calloc(SRV_MAX_RESPONSES, sizeof(int64_t));
	s.first = calloc(SRV_MAX_RESPONSES, sizeof(int64_t));
	s.second = calloc(SRV_MAX_RESPONSES, sizeof(int64_t));
	s.r2w = calloc(SRV_MAX_RESPONSES, sizeof(int64_t));
	s.gap = calloc(SRV_MAX_RESPONSES, sizeof(int64_t));
	if (!conns || !s.nw || !s.first || !s.second || !s.r2w || !s.gap) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < v->nsocks; i++) {
		const struct srv_sock *k = &v->socks[i];

		if (k->state != SRV_LISTEN && k->pid)
			conns[nc++] = (struct conn_resp){ .pid = k->pid, .fd = k->fd,
							  .first_bytes = -1, .second_bytes = -1 };
	}
	qsort(conns, nc, sizeof(*conns), conn_cmp);
	for (size_t i = 0; i < ncalls; i++) {
		struct conn_resp key = { .pid = calls[i].pid, .fd = calls[i].fd };
		struct conn_resp *c = bsearch(&key, conns, nc, sizeof(*conns), conn_cmp);

		if (!c)
			continue;
		v->w.calls++;
		if (calls[i].kind < SYSW_FIRST_READ && calls[i].ret > 0 && c->read_ns)
			v->w.writes++;
		resp_call(&s, c, &calls[i]);
	}
	for (size_t i = 0; i < nc; i++)
		resp_close(&s, &conns[i]);
	resp_summary(&v->w, &s);
	v->w.lost = syswrite_lost(v->trace);
out:
	free(conns);
	free(s.nw);
	free(s.first);
	free(s.second);
	free(s.r2w);
	free(s.gap);
	return ret;
}

/* A client's view: only the sockets its process holds. */
static void keep_owned(struct srv_view *v)
{
	size_t w = 0;

	for (size_t i = 0; i < v->nsocks; i++)
		if (v->socks[i].pid)
			v->socks[w++] = v->socks[i];
	v->nsocks = v->socks_total = w;
}

/* The process that holds most of the connections. */
static void conn_owner(struct srv_view *v)
{
	size_t best = 0;

	v->conn_pid = 0;
	for (size_t i = 0; i < v->nsocks; i++) {
		size_t n = 0;

		if (v->socks[i].state == SRV_LISTEN || !v->socks[i].pid)
			continue;
		for (size_t k = 0; k < v->nsocks; k++)
			n += v->socks[k].state != SRV_LISTEN && v->socks[k].pid == v->socks[i].pid;
		if (n > best) {
			best = n;
			v->conn_pid = v->socks[i].pid;
		}
		if (best * 2 > v->nsocks)
			break;
	}
	if (v->conn_pid)
		procfd_comm(v->conn_pid, v->conn_comm, sizeof(v->conn_comm));
}

/* Does any socket of the view have its owner? */
static bool owned(const struct srv_view *v)
{
	for (size_t i = 0; i < v->nsocks; i++)
		if (v->socks[i].pid)
			return true;
	return false;
}

static void read_options(struct srv_view *v)
{
	for (size_t i = 0; i < v->nsocks; i++) {
		struct srv_sock *s = &v->socks[i];

		if (!s->pid)
			continue;
		if (pidsock_read(s) && !v->opts_err)
			v->opts_err = s->opt.err;
	}
}

/* The connections' TCP_INFO, field by field the median. */
static void typical_info(struct srv_view *v)
{
	int64_t *x = calloc(v->nsocks ? v->nsocks : 1, sizeof(*x));
	struct srv_tcpinfo *t = &v->typical;
	size_t n;

#define TYPICAL(f)							\
	do {								\
		n = 0;							\
		for (size_t i = 0; i < v->nsocks; i++)			\
			if (v->socks[i].ti.valid)			\
				x[n++] = (int64_t)v->socks[i].ti.f;	\
		t->f = n ? (__typeof__(t->f))median(x, n) : 0;		\
	} while (0)

	memset(t, 0, sizeof(*t));
	if (!x)
		return;
	TYPICAL(rtt_us);
	t->valid = n > 0;
	t->full = true;
	for (size_t i = 0; i < v->nsocks; i++)
		if (v->socks[i].ti.valid && !v->socks[i].ti.full)
			t->full = false;
	TYPICAL(rttvar_us);
	TYPICAL(ato_us);
	TYPICAL(rto_us);
	TYPICAL(snd_cwnd);
	TYPICAL(snd_mss);
	TYPICAL(unacked);
	TYPICAL(lost);
	TYPICAL(retrans);
	TYPICAL(total_retrans);
	TYPICAL(delivery_rate);
	TYPICAL(busy_us);
	TYPICAL(rwnd_limited_us);
	TYPICAL(sndbuf_limited_us);
#undef TYPICAL
	free(x);
}

int srvview_trace(struct srv_view *v, char *err, size_t len)
{
	int ret;

	if (!v->pid) {
		snprintf(err, len, "the server's process is unknown: its calls cannot be traced");
		return -ESRCH;
	}
	ret = syswrite_start(&v->trace, v->nowners ? v->owners : &v->pid,
			     v->nowners ? v->nowners : 1, err, len);
	v->w.traced = !ret;
	return ret;
}

int srvview_read(struct srv_view *v, char *err, size_t len)
{
	struct dump_arg d = { .port = v->port, .peer = v->client, .socks = v->socks, .err = err,
			      .len = len };
	uint64_t o, dr;
	int ret = procfd_in_netns(&v->ns, dump_here, &d);

	if (ret) {
		if (d.n >= 0)
			snprintf(err, len, "entering the server's network namespace (%s): %s",
				 v->ns.path, strerror(-ret));
		return ret;
	}
	v->socks_total = (size_t)d.n;
	v->nsocks = v->socks_total < SRV_MAX_SOCKS ? v->socks_total : SRV_MAX_SOCKS;
	procfd_owners(v->socks, v->nsocks, v->client ? v->pid : 0);
	if (v->client)
		keep_owned(v);
	conn_owner(v);
	v->opts_err = 0;
	read_options(v);
	if (!v->opts_err && procfd_owners_denied() && !owned(v))
		v->opts_err = -EACCES;	/* no process's descriptors could be read */
	typical_info(v);
	listen_counters(&v->ns, &o, &dr);
	v->listen_overflows = o - v->overflows_at_open;
	v->listen_drops = dr - v->drops_at_open;
	if (v->trace) {
		syswrite_stop(v->trace);
		ret = sum_writes(v);
		syswrite_destroy(v->trace);
		v->trace = NULL;
		if (ret)
			snprintf(err, len, "no memory to sum up the server's calls");
	}
	return ret;
}

void srvview_optcount(const struct srv_view *v, struct srv_optcount *c)
{
	*c = (struct srv_optcount){ 0 };
	for (size_t i = 0; i < v->nsocks; i++) {
		const struct srv_sock *s = &v->socks[i];

		if (s->state == SRV_LISTEN || !s->inode)
			continue;	/* a listener, or TIME-WAIT: no one's socket */
		c->conns++;
		if (s->opt.err)
			continue;
		c->read++;
		c->nodelay += s->opt.nodelay > 0;
		c->cork += s->opt.cork > 0;
		c->delayed_acks += s->opt.delayed_acks > 0;
	}
}

void srvview_close(struct srv_view *v)
{
	if (!v)
		return;
	syswrite_destroy(v->trace);
	free(v->socks);
	free(v);
}

static int port_cmp(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

static uint16_t sock_port(const struct sockaddr_storage *s)
{
	return ntohs(s->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)s)->sin6_port :
						((const struct sockaddr_in *)s)->sin_port);
}

int srvview_ports(int pid, uint16_t *ports, size_t max, char *err, size_t len)
{
	struct srv_sock *s = calloc(SRV_MAX_SOCKS, sizeof(*s));
	struct dump_arg d = { .port = 0, .socks = s, .err = err, .len = len };
	struct procfd_ns ns = { .inode = 0 };
	size_t n = 0, k = 0;
	int ret;

	if (!s) {
		snprintf(err, len, "no memory for the process's sockets");
		return -ENOMEM;
	}
	ret = procfd_netns_of(pid, &ns);
	if (ret) {
		snprintf(err, len, "process %d: %s", pid, strerror(-ret));
		goto out;
	}
	ret = procfd_in_netns(&ns, dump_here, &d);
	if (ret)
		goto out;
	while (n < (size_t)d.n && n < SRV_MAX_SOCKS && s[n].state == SRV_LISTEN)
		n++;
	procfd_owners(s, n, pid);
	for (size_t i = 0; i < n; i++) {
		uint16_t p = sock_port(&s[i].local);

		if (!s[i].pid || k >= max)
			continue;
		ports[k++] = p;
	}
	qsort(ports, k, sizeof(*ports), port_cmp);
	n = 0;
	for (size_t i = 0; i < k; i++)	/* once each (IPv4 and IPv6 listeners) */
		if (!n || ports[i] != ports[n - 1])
			ports[n++] = ports[i];
	ret = (int)n;
out:
	free(s);
	return ret;
}
