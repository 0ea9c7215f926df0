// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace's rate limits and verdict (hopdiag.h).
 */
#include <string.h>

#include "hopdiag.h"

static double share(const struct hopdiag_cell *c)
{
	return c->sent ? (double)c->received / (double)c->sent : 0;
}

static bool short_of(const struct hopdiag_cell *c)
{
	return c->sent && c->received < c->sent;
}

/* Probes past hop h of path p were answered at a larger share. */
static bool passed(const struct hopdiag_path *p, unsigned int h)
{
	for (unsigned int t = h + 1; t < p->hops; t++)
		if (share(&p->cell[t]) > share(&p->cell[h]))
			return true;
	return false;
}

/* Did any path answer at hop h? (None: a silent hop, `*`.) */
static bool anyone(const struct hopdiag_path *p, unsigned int n, unsigned int h)
{
	for (unsigned int i = 0; i < n; i++)
		if (h < p[i].hops && p[i].cell[h].received)
			return true;
	return false;
}

void hopdiag_rate_limits(struct hopdiag_path *p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int h = 0; h < p[i].hops; h++) {
			struct hopdiag_cell *c = &p[i].cell[h];

			c->rate_limited = short_of(c) && passed(&p[i], h) && anyone(p, n, h);
		}
	/* the limit is the responder's: on every path it is short on */
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int h = 0; h < p[i].hops; h++) {
			const struct hopdiag_cell *c = &p[i].cell[h];

			if (!c->rate_limited || c->responder == HOPDIAG_NONE)
				continue;
			for (unsigned int j = 0; j < n; j++)
				for (unsigned int t = 0; t < p[j].hops; t++) {
					struct hopdiag_cell *d = &p[j].cell[t];

					if (d->responder == c->responder && short_of(d))
						d->rate_limited = true;
				}
		}
}

/* The previous hop of path p before h that answered, or -1. */
static int prev_answered(const struct hopdiag_path *p, unsigned int h)
{
	for (int t = (int)h - 1; t >= 0; t--)
		if (p->cell[t].received)
			return t;
	return -1;
}

/* The step at hop h of p when it is one (else 0), as hopdiag.h says. */
static int64_t step_at(const struct hopdiag_path *p, unsigned int h)
{
	const struct hopdiag_cell *c = &p->cell[h];
	int q = prev_answered(p, h);
	int64_t base = q < 0 ? 0 : p->cell[q].p50_ns;
	int64_t spread = q < 0 ? 0 : p->cell[q].p50_ns - p->cell[q].min_ns;
	int64_t step = c->p50_ns - base;

	if (!c->received || step < HOPDIAG_MIN_STEP_NS || step < base ||
	    step < HOPDIAG_NOISE_FACTOR * spread)
		return 0;
	return step;
}

/* Does the step at h of size step stay: every later answering hop at
 * least half of it above the median before h? */
static bool stays(const struct hopdiag_path *p, unsigned int h, int64_t step)
{
	int q = prev_answered(p, h);
	int64_t base = q < 0 ? 0 : p->cell[q].p50_ns;

	for (unsigned int t = h + 1; t < p->hops; t++)
		if (p->cell[t].received && p->cell[t].p50_ns - base < step / 2)
			return false;
	return true;
}

/* The finding of kind at ttl in out[0..*k), a new one when none. */
static struct hopdiag *entry(struct hopdiag *out, unsigned int *k, enum hopdiag_kind kind,
			     unsigned int ttl)
{
	for (unsigned int i = 0; i < *k; i++)
		if (out[i].kind == kind && out[i].ttl == ttl)
			return &out[i];
	if (*k == HOPDIAG_MAX)
		return NULL;
	out[*k] = (struct hopdiag){ .kind = kind, .ttl = ttl, .responder = HOPDIAG_NONE };
	return &out[(*k)++];
}

static void add(struct hopdiag *d, unsigned int path, int64_t step)
{
	if (!d)
		return;
	if (!d->paths || step < d->step_ns)
		d->step_ns = step;
	d->paths |= 1ULL << path;
}

static void steps(const struct hopdiag_path *p, unsigned int i, struct hopdiag *out,
		  unsigned int *k)
{
	for (unsigned int h = 0; h < p->hops; h++) {
		int64_t step = step_at(p, h);

		if (!step)
			continue;
		if (stays(p, h, step)) {
			add(entry(out, k, HOPDIAG_DELAY_STEP, h + 1), i, step);
			return;	/* the first step that stays: later ones ride on it */
		}
		add(entry(out, k, HOPDIAG_SLOW_ANSWER, h + 1), i, step);
	}
}

static bool lossy(const struct hopdiag_cell *c)
{
	return short_of(c) && !c->rate_limited;
}

static void losses(const struct hopdiag_path *p, unsigned int i, struct hopdiag *out,
		   unsigned int *k)
{
	for (unsigned int h = 0; h < p->hops; h++) {
		bool all = p->cell[h].received > 0 && lossy(&p->cell[h]);
		struct hopdiag *d;

		for (unsigned int t = h + 1; all && t < p->hops; t++)
			all = !p->cell[t].sent || lossy(&p->cell[t]);
		if (!all)
			continue;
		d = entry(out, k, HOPDIAG_LOSS_FROM, h + 1);
		if (d) {
			d->paths |= 1ULL << i;
			if (1 - share(&p->cell[h]) > d->lost)
				d->lost = 1 - share(&p->cell[h]);
		}
		return;
	}
}

/* The paths that answered at d's hop without d, and the responder there
 * that only d's paths have. */
static void contrast(const struct hopdiag_path *p, unsigned int n, struct hopdiag *d)
{
	uint32_t r = HOPDIAG_NONE;

	for (unsigned int i = 0; i < n; i++) {
		const struct hopdiag_cell *c;

		if (d->ttl > p[i].hops || !p[i].cell[d->ttl - 1].received)
			continue;
		c = &p[i].cell[d->ttl - 1];
		if (!(d->paths & (1ULL << i)))
			d->others |= 1ULL << i;
		else if (r == HOPDIAG_NONE)
			r = c->responder;
		else if (r != c->responder)
			return;		/* the paths named differ there: none */
	}
	for (unsigned int i = 0; i < n; i++)
		if ((d->others & (1ULL << i)) && p[i].cell[d->ttl - 1].responder == r)
			return;		/* the others have it too */
	d->responder = r;
}

unsigned int hopdiag_find(const struct hopdiag_path *p, unsigned int n, struct hopdiag *out)
{
	unsigned int k = 0;

	if (n > 64)
		n = 64;
	for (unsigned int i = 0; i < n; i++) {
		steps(&p[i], i, out, &k);
		losses(&p[i], i, out, &k);
	}
	for (unsigned int i = 0; i < k; i++)
		contrast(p, n, &out[i]);
	return k;
}

const char *hopdiag_kind_name(enum hopdiag_kind k)
{
	static const char *const names[] = { "delay_step", "slow_answer", "loss_from" };

	return names[k];
}
