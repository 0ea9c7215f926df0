// SPDX-License-Identifier: GPL-2.0-or-later
/* The capture's sums, each port's and the whole's (watchagg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "watchagg.h"

struct watchagg {
	struct watch_report *r;
	struct watchagg_params p;
	uint64_t seq;			/* exchanges so far: the histograms' seq */
	size_t cap;			/* of r->flows */
	uint8_t port_idx[65536];	/* 0: not seen; i + 1: r->ports[i] */
};

static int port_init(struct watch_port *p, const struct watchagg_params *prm)
{
	for (int m = 0; m < WM_COUNT; m++) {
		p->h[m] = hist_create(prm->bucket_ns, prm->overflow_ns, false);
		if (!p->h[m])
			return -ENOMEM;
	}
	p->tally = tcpana_tally_create();
	tcpana_path_init(&p->path);
	return p->tally ? 0 : -ENOMEM;
}

static void port_free(struct watch_port *p)
{
	for (int m = 0; m < WM_COUNT; m++)
		hist_destroy(p->h[m]);
	tcpana_tally_destroy(p->tally);
	memset(p, 0, sizeof(*p));
}

struct watchagg *watchagg_create(struct watch_report *r, const struct watchagg_params *p)
{
	struct watchagg *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->r = r;
	g->p = *p;
	r->flows_max = p->flows_max;
	if (port_init(&r->all, p)) {
		port_free(&r->all);
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	return g;
}

void watchagg_destroy(struct watchagg *g)
{
	struct watch_report *r;

	if (!g)
		return;
	r = g->r;
	port_free(&r->all);
	for (size_t i = 0; i < atomic_load(&r->nports); i++)
		port_free(&r->ports[i]);
	atomic_store(&r->nports, 0);
	free(r->flows);
	r->flows = NULL;
	r->nflows = 0;
	free(g);
}

/* A new port's sums at r->ports[nports]; NULL without memory. */
static struct watch_port *port_add(struct watchagg *g, uint16_t port, bool other)
{
	struct watch_report *r = g->r;
	size_t n = atomic_load_explicit(&r->nports, memory_order_relaxed);
	struct watch_port *p = &r->ports[n];

	if (port_init(p, &g->p)) {
		port_free(p);
		return NULL;
	}
	p->port = other ? 0 : port;
	p->other = other;
	/* a reader sees the histograms before the port */
	atomic_store_explicit(&r->nports, n + 1, memory_order_release);
	return p;
}

struct watch_port *watchagg_port(struct watchagg *g, uint16_t port)
{
	struct watch_report *r = g->r;
	struct watch_port *p;
	size_t n;

	if (g->port_idx[port])
		return &r->ports[g->port_idx[port] - 1];
	n = atomic_load_explicit(&r->nports, memory_order_relaxed);
	if (n < WATCH_PORTS) {
		p = port_add(g, port, false);
		if (p) {
			g->port_idx[port] = (uint8_t)(n + 1);
			return p;
		}
	}
	/* "other": the last entry once it exists */
	if (n && r->ports[n - 1].other)
		p = &r->ports[n - 1];
	else if (n <= WATCH_PORTS)
		p = port_add(g, port, true);
	else
		return NULL;
	if (p)
		g->port_idx[port] = (uint8_t)(p - r->ports + 1);
	return p;
}

static void port_exchange(struct watch_port *p, const struct tcpana_exchange *x, uint64_t seq)
{
	p->exchanges++;
	if (x->held != TCPANA_NONE && x->held < TCPANA_KINDS)
		p->held[x->held]++;
	hist_add(p->h[WM_EXCHANGE], x->latency_ns, seq);
	hist_add(p->h[WM_FIRST_BYTE], x->first_byte_ns, seq);
	tcpana_tally_add(p->tally, x);
}

void watchagg_exchange(struct watchagg *g, struct watch_port *p, const struct tcpana_exchange *x)
{
	g->seq++;
	port_exchange(&g->r->all, x, g->seq);
	if (p)
		port_exchange(p, x, g->seq);
}

void watchagg_sample(struct watchagg *g, struct watch_port *p, enum watch_metric m,
		     int64_t v_ns, uint64_t seq)
{
	hist_add(g->r->all.h[m], v_ns, seq);
	if (p)
		hist_add(p->h[m], v_ns, seq);
}

void watchagg_retransmits(struct watchagg *g, struct watch_port *p, uint64_t n)
{
	g->r->all.retransmits += n;
	if (p)
		p->retransmits += n;
}

void watchagg_flow_start(struct watchagg *g, struct watch_port *p)
{
	g->r->all.flows++;
	if (p)
		p->flows++;
}

/* Is a worse than b (watchagg.h)? */
static bool worse(const struct watch_flow *a, const struct watch_flow *b)
{
	if (a->held_ns != b->held_ns)
		return a->held_ns > b->held_ns;
	return a->m[WM_EXCHANGE].st.max > b->m[WM_EXCHANGE].st.max;
}

/* r->flows is a heap with the least bad flow first while the capture is
 * read: a flow worse than it takes its place. */
static bool less_bad(const void *a, const void *b)
{
	return worse(b, a);
}

static const struct heap_ops kept = { .size = sizeof(struct watch_flow), .before = less_bad };

static bool grow(struct watchagg *g)
{
	struct watch_report *r = g->r;
	size_t cap = g->cap ? 2 * g->cap : 64;
	struct watch_flow *f;

	if (cap > r->flows_max)
		cap = (size_t)r->flows_max;
	if (cap <= g->cap)
		return false;
	f = realloc(r->flows, cap * sizeof(*f));
	if (!f)
		return false;
	r->flows = f;
	g->cap = cap;
	return true;
}

static void keep(struct watchagg *g, const struct watch_flow *f)
{
	struct watch_report *r = g->r;

	if (r->nflows < g->cap || (r->nflows < r->flows_max && grow(g))) {
		heap_up(r->flows, r->nflows++, f, &kept, NULL);
	} else if (r->nflows && worse(f, &r->flows[0])) {
		heap_down(r->flows, r->nflows, 0, f, &kept, NULL);
	}
}

void watchagg_flow(struct watchagg *g, struct watch_port *p, const struct watch_flow *f)
{
	struct watch_report *r = g->r;

	for (int i = 0; i < 4; i++)
		if (f->unknowns & (1u << i))
			r->cnt.flows_unknown[i]++;
	for (size_t i = 0; i < f->ndiag; i++) {
		r->all.named_flows[f->diag[i].kind]++;
		if (p)
			p->named_flows[f->diag[i].kind]++;
	}
	keep(g, f);
}

static int cmp_worse(const void *a, const void *b)
{
	return worse(a, b) ? -1 : worse(b, a) ? 1 : 0;
}

void watchagg_finish(struct watchagg *g)
{
	struct watch_report *r = g->r;
	struct watch_port *all = &r->all;

	all->ndiag = tcpana_tally_diag(all->tally, all->diag, TCPANA_KINDS);
	for (size_t i = 0; i < atomic_load(&r->nports); i++) {
		struct watch_port *p = &r->ports[i];

		p->ndiag = tcpana_tally_diag(p->tally, p->diag, TCPANA_KINDS);
	}
	if (r->nflows)
		qsort(r->flows, r->nflows, sizeof(*r->flows), cmp_worse);
}
