// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace summed up (hopsum.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hopsum.h"
#include "timeutil.h"

int64_t hopsum_p50(const struct hopsum_cell *c)
{
	return c->rtt.counts ? latstat_percentile(&c->rtt, 50) : 0;
}

/* The index of address a in s->addr, added when new. */
static int addr_index(struct hopsum *s, int family, const uint8_t a[16])
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(family, a, text, sizeof(text));
	for (unsigned int i = 0; i < s->naddr; i++)
		if (!strcmp(s->addr[i], text))
			return (int)i;
	memcpy(s->addr[s->naddr], text, sizeof(text));
	return (int)s->naddr++;
}

/* One probe into its cell. */
static int add_probe(struct hopsum *s, const struct hops *h, const struct hop_probe *pr)
{
	struct hopsum_cell *c = &s->path[pr->path].cell[pr->ttl - 1];
	int who;

	c->sent++;
	if (pr->answer == HOP_NONE)
		return 0;
	c->received++;
	who = addr_index(s, h->sk.family, pr->from);
	if (c->responder < 0) {
		c->responder = who;
		c->answer = pr->answer;
	} else if (c->responder != who) {
		c->others++;
	}
	if (pr->tx_ns == TS_NONE || pr->rx_ns == TS_NONE) {
		c->unstamped++;
		return 0;
	}
	if (!c->rtt.counts) {
		uint32_t *counts = malloc(latstat_bytes(HOPSUM_BITS));

		if (!counts)
			return -ENOMEM;
		latstat_init(&c->rtt, counts, HOPSUM_BITS);
	}
	latstat_add(&c->rtt, pr->rx_ns - pr->tx_ns, (uint64_t)(pr - h->probe));
	return 0;
}

static int paths(struct hopsum *s, const struct hops *h)
{
	for (unsigned int i = 0; i < s->paths; i++) {
		struct hopsum_path *p = &s->path[i];
		const struct hops_path *hp = &h->path[i];

		*p = (struct hopsum_path){ .sport = hp->sport, .end = hp->end,
					   .end_ttl = hp->end_ttl, .code = hp->code, .by = -1,
					   .hops = h->last_ttl, .ncell = h->last_ttl };
		p->cell = calloc(p->hops ? p->hops : 1, sizeof(*p->cell));
		if (!p->cell)
			return -ENOMEM;
		for (unsigned int t = 0; t < p->hops; t++)
			p->cell[t] = (struct hopsum_cell){ .ttl = t + 1, .responder = -1 };
		if (hp->end == HOPS_UNREACHABLE)
			p->by = addr_index(s, h->sk.family, hp->by);
	}
	return 0;
}

/* Each path's cells up to its last TTL probed; the increments. */
static void trim(struct hopsum *s)
{
	for (unsigned int i = 0; i < s->paths; i++) {
		struct hopsum_path *p = &s->path[i];
		int64_t prev = 0;
		bool have = false;

		if (p->end_ttl < p->hops)
			p->hops = p->end_ttl;
		for (unsigned int t = 0; t < p->hops; t++) {
			struct hopsum_cell *c = &p->cell[t];
			int64_t m;

			if (!c->rtt.counts)
				continue;
			m = hopsum_p50(c);
			c->have_inc = true;
			c->inc_ns = m - (have ? prev : 0);
			prev = m;
			have = true;
			if (m > p->worst_ns)
				p->worst_ns = m;
		}
	}
}

static void diagnose(struct hopsum *s)
{
	struct hopdiag_path dp[HOPS_MAX_PATHS];
	struct hopdiag_cell cells[HOPS_MAX_PATHS][HOPS_MAX_TTL];

	for (unsigned int i = 0; i < s->paths; i++) {
		dp[i] = (struct hopdiag_path){ .hops = s->path[i].hops, .cell = cells[i] };
		for (unsigned int t = 0; t < dp[i].hops; t++) {
			const struct hopsum_cell *c = &s->path[i].cell[t];

			cells[i][t] = (struct hopdiag_cell){
				.sent = c->sent, .received = c->received,
				.p50_ns = hopsum_p50(c), .min_ns = c->rtt.counts ? c->rtt.m.min : 0,
				.responder = c->responder < 0 ? HOPDIAG_NONE :
					     (uint32_t)c->responder,
			};
		}
	}
	hopdiag_rate_limits(dp, s->paths);
	for (unsigned int i = 0; i < s->paths; i++)
		for (unsigned int t = 0; t < dp[i].hops; t++)
			s->path[i].cell[t].rate_limited = cells[i][t].rate_limited;
	s->ndiag = hopdiag_find(dp, s->paths, s->diag);
}

static int worst_first(const void *a, const void *b, void *arg)
{
	const struct hopsum *s = arg;
	int64_t x = s->path[*(const unsigned int *)a].worst_ns;
	int64_t y = s->path[*(const unsigned int *)b].worst_ns;

	return (x < y) - (x > y);
}

int hopsum_build(struct hopsum **out, const struct hops *h)
{
	struct hopsum *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->cfg = &h->cfg;
	s->family = h->sk.family;
	s->hw = h->sk.hw;
	s->hw_note = h->sk.hw_note;
	s->paths = h->cfg.paths;
	s->sent = h->sent;
	s->unmatched = h->unmatched;
	s->error = *h->error ? h->error : NULL;
	inet_ntop(s->family, h->sk.dst, s->dst, sizeof(s->dst));
	s->addr = calloc((size_t)h->sent + HOPS_MAX_PATHS + 1, sizeof(*s->addr));
	ret = s->addr ? paths(s, h) : -ENOMEM;
	for (uint32_t i = 0; !ret && i < h->sent; i++) {
		ret = add_probe(s, h, &h->probe[i]);
		s->answered += h->probe[i].answer != HOP_NONE;
	}
	if (ret) {
		hopsum_free(s);
		return ret;
	}
	trim(s);
	diagnose(s);
	for (unsigned int i = 0; i < s->paths; i++)
		s->order[i] = i;
	qsort_r(s->order, s->paths, sizeof(s->order[0]), worst_first, s);
	*out = s;
	return 0;
}

void hopsum_free(struct hopsum *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < s->paths; i++) {
		for (unsigned int t = 0; s->path[i].cell && t < s->path[i].ncell; t++)
			free(s->path[i].cell[t].rtt.counts);
		free(s->path[i].cell);
	}
	free(s->addr);
	free(s);
}
