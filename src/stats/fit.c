// SPDX-License-Identifier: GPL-2.0-or-later
/* Straight lines through measurements (fit.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "timeutil.h"

static double unit_of(const struct fit *f)
{
	return f->x_unit > 0 ? f->x_unit : 1;
}

void fit_add(struct fit *f, int64_t x, int64_t y)
{
	double t, v, dt;

	if (!f->n) {
		f->x0 = x;
		f->y0 = y;
	}
	t = (double)ns_sub(x, f->x0) / unit_of(f);
	v = (double)ns_sub(y, f->y0);
	f->n++;
	dt = t - f->mx;
	f->mx += dt / (double)f->n;
	f->my += (v - f->my) / (double)f->n;
	f->sxx += dt * (t - f->mx);
	f->sxy += dt * (v - f->my);
	f->x_last = t;
}

bool fit_slope(const struct fit *f, double *slope)
{
	if (f->n < 2 || !(f->sxx > 0))
		return false;
	*slope = f->sxy / f->sxx;
	return true;
}

double fit_at(const struct fit *f, int64_t x)
{
	double slope = 0;

	fit_slope(f, &slope);
	return (double)f->y0 + f->my + slope * ((double)ns_sub(x, f->x0) / unit_of(f) - f->mx);
}

int fit_bins_init(struct fit_bins *b)
{
	memset(b, 0, sizeof(*b));
	b->picks = calloc(FIT_PICKS, sizeof(*b->picks));
	if (!b->picks)
		return -ENOMEM;
	memset(b->picks, 0, FIT_PICKS * sizeof(*b->picks));	/* touched */
	b->bin_ns = FIT_BIN_NS;
	return 0;
}

void fit_bins_free(struct fit_bins *b)
{
	free(b->picks);
	b->picks = NULL;
}

/* Full: neighbours merged, the less delayed of each pair kept; bins twice
 * as wide from now on. */
static void bins_merge(struct fit_bins *b)
{
	unsigned int i;

	for (i = 0; 2 * i < b->n; i++) {
		const struct fit_pick *x = &b->picks[2 * i], *y = x + 1;

		b->picks[i] = 2 * i + 1 < b->n && y->net_ns < x->net_ns ? *y : *x;
	}
	b->n = i;
	b->bin_ns *= 2;
}

void fit_bins_add(struct fit_bins *b, int64_t t1_ns, int64_t net_ns,
		      int64_t theta_ns)
{
	if (b->open && ns_sub(t1_ns, b->bin_start) >= b->bin_ns) {
		if (b->n == FIT_PICKS)
			bins_merge(b);
		b->picks[b->n++] = b->best;
		b->open = false;
	}
	if (!b->open) {
		b->open = true;
		b->bin_start = t1_ns;
		b->best.net_ns = INT64_MAX;
	}
	if (net_ns < b->best.net_ns)
		b->best = (struct fit_pick){ t1_ns, net_ns, theta_ns };
}

/* The network time above which a pick counts as stalled: the median
 * plus 8 median absolute deviations, at least FIT_STALL_NS. */
static int64_t stall_limit(int64_t *v, unsigned int n)
{
	int64_t med, mad;
	unsigned int i;

	ns_sort(v, n);
	med = v[n / 2];
	for (i = 0; i < n; i++)
		v[i] = v[i] > med ? ns_sub(v[i], med) : ns_sub(med, v[i]);
	ns_sort(v, n);
	mad = v[n / 2];
	return ns_add(med, mad > FIT_STALL_NS / 8 ? 8 * mad : FIT_STALL_NS);
}

int fit_bins_result(const struct fit_bins *b, struct fit *out, unsigned int *kept)
{
	unsigned int n = b->n + b->open, i;
	int64_t *v, limit;

	*out = (struct fit){ .x_unit = NS_PER_SEC };
	*kept = 0;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = i < b->n ? b->picks[i].net_ns : b->best.net_ns;
	limit = stall_limit(v, n);
	free(v);
	for (i = 0; i < n; i++) {
		const struct fit_pick *p = i < b->n ? &b->picks[i] : &b->best;

		if (p->net_ns > limit)
			continue;
		fit_add(out, p->t1_ns, p->theta_ns);
		(*kept)++;
	}
	return 0;
}
