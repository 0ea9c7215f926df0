// SPDX-License-Identifier: GPL-2.0-or-later
/* One metric of one flow (flowstat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flowstat.h"
#include "timeutil.h"

struct flowstat_pool {
	size_t max, used, peak;
	size_t nfree;
	uint32_t **free;	/* arrays given back, for reuse */
};

struct flowstat_pool *flowstat_pool_create(size_t max)
{
	struct flowstat_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->max = max;
	p->free = calloc(max ? max : 1, sizeof(*p->free));
	if (!p->free) {
		free(p);
		return NULL;
	}
	return p;
}

void flowstat_pool_destroy(struct flowstat_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfree; i++)
		free(p->free[i]);
	free(p->free);
	free(p);
}

size_t flowstat_pool_used(const struct flowstat_pool *p)
{
	return p->used;
}

size_t flowstat_pool_peak(const struct flowstat_pool *p)
{
	return p->peak;
}

/* A zeroed counter array, or NULL when the pool is spent. */
static uint32_t *pool_get(struct flowstat_pool *p)
{
	uint32_t *c;

	if (p->used == p->max)
		return NULL;
	if (p->nfree) {
		c = p->free[--p->nfree];
		memset(c, 0, HIST_SMALL_COUNTS * sizeof(*c));
	} else {
		c = calloc(HIST_SMALL_COUNTS, sizeof(*c));
		if (!c)
			return NULL;
	}
	if (++p->used > p->peak)
		p->peak = p->used;
	return c;
}

static void pool_put(struct flowstat_pool *p, uint32_t *c)
{
	p->used--;
	if (p->nfree < p->max)
		p->free[p->nfree++] = c;
	else
		free(c);
}

void flowstat_init(struct flowstat *s)
{
	memset(s, 0, offsetof(struct flowstat, v));
}

/* The first values into the counters, once they came. */
static void spill(struct flowstat *s, struct flowstat_pool *p)
{
	s->counts = pool_get(p);
	if (!s->counts) {
		s->partial = true;
		return;
	}
	for (size_t i = 0; i < FLOWSTAT_EXACT; i++)
		s->counts[hist_small_index(s->v[i])]++;
}

void flowstat_add(struct flowstat *s, struct flowstat_pool *p, int64_t v, uint64_t seq)
{
	uint64_t n = s->m.n;

	if (v < 0)
		v = 0;
	moments_add(&s->m, v, seq);
	if (n < FLOWSTAT_EXACT) {
		s->v[n] = v;
		return;
	}
	if (n == FLOWSTAT_EXACT)
		spill(s, p);
	if (s->counts)
		s->counts[hist_small_index(v)]++;
}

void flowstat_sum(const struct flowstat *s, const double *pcts, size_t npct,
		  struct flowstat_sum *out)
{
	int64_t sorted[FLOWSTAT_EXACT];
	size_t k = s->m.n < FLOWSTAT_EXACT ? (size_t)s->m.n : FLOWSTAT_EXACT;

	memset(out, 0, sizeof(*out));
	moments_stats(&s->m, &out->st);
	out->partial = s->partial;
	if (!s->m.n)
		return;
	if (npct > sizeof(out->pct) / sizeof(out->pct[0]))
		npct = sizeof(out->pct) / sizeof(out->pct[0]);
	if (s->counts) {
		for (size_t i = 0; i < npct; i++)
			out->pct[i] = hist_small_percentile(s->counts, s->m.n, pcts[i], s->m.min,
							    s->m.max);
		return;
	}
	memcpy(sorted, s->v, k * sizeof(*sorted));
	ns_sort(sorted, k);
	for (size_t i = 0; i < npct; i++)
		out->pct[i] = sorted[hist_pct_rank(pcts[i], k) - 1];
}

void flowstat_release(struct flowstat *s, struct flowstat_pool *p)
{
	if (s->counts)
		pool_put(p, s->counts);
	flowstat_init(s);
}
