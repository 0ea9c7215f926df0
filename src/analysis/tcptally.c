// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exchanges summed up into a diagnosis (tcpana.h's tcpana_tally): per
 * kind the exchanges it held, their share, the median and the largest
 * time it held them. The median is estimated in constant space by the
 * P-squared algorithm (Jain and Chlamtac, CACM 28(10), 1985): five
 * markers whose heights follow the 0, 25, 50, 75 and 100th percentiles,
 * moved by a parabola as samples come; exact up to five samples. A tally
 * is a few hundred bytes, so one can be kept per flow.
 */
#include <stdlib.h>
#include <string.h>

#include "tcpana.h"

/* The P-squared markers of one median. */
struct p2 {
	uint64_t n;		/* samples */
	double q[5];		/* marker heights */
	double pos[5];		/* marker positions, 0-based */
	double want[5];		/* where they should be */
};

struct kind_tally {
	uint64_t held;		/* exchanges it held */
	int64_t max_ns;
	struct p2 med;
};

struct tcpana_tally {
	uint64_t exchanges;
	struct kind_tally k[TCPANA_KINDS];
	int64_t path_idle_ns;		/* the least, -1: none */
	struct p2 path, server;		/* medians of path_ns, server_ns */
	/* the server alone (tcpana_tally_solo): its own time's median (-1:
	 * none), its exchanges, those server_time held */
	int64_t solo_ns;
	uint64_t solo_n, solo_held;
};

static const double step[5] = { 0, 0.25, 0.5, 0.75, 1 };	/* for p = 0.5 */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double p2_parabola(const struct p2 *m, int i, double d)
{
	const double *q = m->q, *n = m->pos;

	return q[i] + d / (n[i + 1] - n[i - 1]) *
		((n[i] - n[i - 1] + d) * (q[i + 1] - q[i]) / (n[i + 1] - n[i]) +
		 (n[i + 1] - n[i] - d) * (q[i] - q[i - 1]) / (n[i] - n[i - 1]));
}

/* The middle markers moved toward where they should be. */
static void p2_adjust(struct p2 *m)
{
	for (int i = 1; i <= 3; i++) {
		double d = m->want[i] - m->pos[i], h;
		int s;

		if (!((d >= 1 && m->pos[i + 1] - m->pos[i] > 1) ||
		      (d <= -1 && m->pos[i - 1] - m->pos[i] < -1)))
			continue;
		s = d > 0 ? 1 : -1;
		h = p2_parabola(m, i, s);
		if (!(m->q[i - 1] < h && h < m->q[i + 1]))	/* linear instead */
			h = m->q[i] + s * (m->q[i + s] - m->q[i]) / (m->pos[i + s] - m->pos[i]);
		m->q[i] = h;
		m->pos[i] += s;
	}
}

static void p2_add(struct p2 *m, double x)
{
	int k;

	if (m->n < 5) {
		m->q[m->n++] = x;
		if (m->n == 5) {
			qsort(m->q, 5, sizeof(m->q[0]), cmp_dbl);
			for (int i = 0; i < 5; i++) {
				m->pos[i] = i;
				m->want[i] = 4 * step[i];
			}
		}
		return;
	}
	m->n++;
	if (x < m->q[0])
		m->q[0] = x;
	if (x > m->q[4])
		m->q[4] = x;
	for (k = 0; k < 3 && x >= m->q[k + 1]; k++)
		;
	for (int i = k + 1; i < 5; i++)
		m->pos[i]++;
	for (int i = 0; i < 5; i++)
		m->want[i] += step[i];
	p2_adjust(m);
}

/* The quartile q (1, 2, 3: p25, the median, p75): exact (nearest rank)
 * up to five samples, else its marker. */
static int64_t p2_quartile(const struct p2 *m, int q)
{
	double v[5];

	if (!m->n)
		return 0;
	if (m->n >= 5)
		return (int64_t)(m->q[q] + 0.5);
	memcpy(v, m->q, sizeof(v[0]) * m->n);
	qsort(v, m->n, sizeof(v[0]), cmp_dbl);
	return (int64_t)v[(m->n * (uint64_t)q + 3) / 4 - 1];
}

static int64_t p2_median(const struct p2 *m)
{
	return p2_quartile(m, 2);
}

struct tcpana_tally *tcpana_tally_create(void)
{
	struct tcpana_tally *t = calloc(1, sizeof(struct tcpana_tally));

	if (t)
		t->path_idle_ns = t->solo_ns = -1;
	return t;
}

static void least(int64_t *into, int64_t v)
{
	if (v >= 0 && (*into < 0 || v < *into))
		*into = v;
}

void tcpana_tally_destroy(struct tcpana_tally *t)
{
	free(t);
}

void tcpana_tally_add(struct tcpana_tally *t, const struct tcpana_exchange *x)
{
	struct kind_tally *k;

	t->exchanges++;
	if (x->resp_first_ns)
		p2_add(&t->server, (double)x->server_ns);
	if (x->path_ns >= 0) {
		p2_add(&t->path, (double)x->path_ns);
		least(&t->path_idle_ns, x->path_idle_ns);
	}
	if (x->held == TCPANA_NONE || (unsigned int)x->held >= TCPANA_KINDS)
		return;
	k = &t->k[x->held];
	k->held++;
	if (x->held_ns > k->max_ns)
		k->max_ns = x->held_ns;
	p2_add(&k->med, (double)x->held_ns);
}

/*
 * Two medians into one. P-squared keeps no samples, so the merged
 * markers are the two sets' weighted by their counts (exact while one
 * side has five samples or fewer: those are added one by one; close when
 * the two come from one distribution, as the flows of one port do).
 */
static void p2_merge(struct p2 *into, const struct p2 *from)
{
	struct p2 m;
	double wa, wb;

	if (!from->n)
		return;
	if (!into->n) {
		*into = *from;
		return;
	}
	if (from->n <= 5 || into->n <= 5) {
		const struct p2 *few = from->n <= 5 ? from : into;

		m = from->n <= 5 ? *into : *from;
		for (uint64_t i = 0; i < few->n; i++)
			p2_add(&m, few->q[i]);
		*into = m;
		return;
	}
	wa = (double)into->n / (double)(into->n + from->n);
	wb = 1 - wa;
	for (int i = 1; i <= 3; i++)
		into->q[i] = wa * into->q[i] + wb * from->q[i];
	if (from->q[0] < into->q[0])
		into->q[0] = from->q[0];
	if (from->q[4] > into->q[4])
		into->q[4] = from->q[4];
	for (int i = 0; i < 5; i++) {
		into->pos[i] += from->pos[i] + (i ? 1 : 0);
		into->want[i] += from->want[i] + (i ? 1 : 0);
	}
	into->n += from->n;
}

void tcpana_tally_merge(struct tcpana_tally *t, const struct tcpana_tally *from)
{
	t->exchanges += from->exchanges;
	least(&t->path_idle_ns, from->path_idle_ns);
	p2_merge(&t->path, &from->path);
	p2_merge(&t->server, &from->server);
	for (int i = 0; i < TCPANA_KINDS; i++) {
		struct kind_tally *k = &t->k[i];
		const struct kind_tally *f = &from->k[i];

		k->held += f->held;
		if (f->max_ns > k->max_ns)
			k->max_ns = f->max_ns;
		p2_merge(&k->med, &f->med);
	}
}

uint64_t tcpana_tally_exchanges(const struct tcpana_tally *t)
{
	return t->exchanges;
}

/* Is kind k named, holding held of n exchanges? */
static bool named(enum tcpana_kind k, uint64_t held, uint64_t n)
{
	if (!held)
		return false;
	if (k == TCPANA_SERVER_TIME || k == TCPANA_PATH_QUEUE || k == TCPANA_SERVER_QUEUE)
		return (double)held >= TCPANA_NAME_SHARE * (double)n;
	return true;
}

void tcpana_tally_solo(struct tcpana_tally *t, const struct tcpana_tally *solo)
{
	t->solo_n = solo->exchanges;
	t->solo_held = solo->k[TCPANA_SERVER_TIME].held;
	t->solo_ns = solo->server.n ? p2_median(&solo->server) : -1;
}

/* A stall alone as often as under the load (its share alone
 * TCPANA_SOLO_SHARE of the loaded one at least): one of a size of its
 * own, not the load's. */
static bool stalled_alone(const struct tcpana_tally *t, const struct tcpana_diag *d)
{
	double share = t->solo_n ? (double)t->solo_held / (double)t->solo_n : 0;

	return named(TCPANA_SERVER_TIME, t->solo_held, t->solo_n) &&
	       share >= TCPANA_SOLO_SHARE * d->share;
}

/* The server's time grown with the load, against the server alone:
 * requests queued in it (tcpana.h). */
static enum tcpana_kind server_kind(const struct tcpana_tally *t, const struct tcpana_diag *d)
{
	if (d->kind == TCPANA_SERVER_TIME && t->solo_n >= TCPANA_SOLO_MIN && t->solo_ns >= 0 &&
	    t->solo_ns < TCPANA_STALL_NS && !stalled_alone(t, d) &&
	    d->typical_ns >= TCPANA_QUEUE_RATIO * t->solo_ns)
		return TCPANA_SERVER_QUEUE;
	return d->kind;
}

size_t tcpana_tally_diag(const struct tcpana_tally *t, struct tcpana_diag *out, size_t max)
{
	size_t n = 0;

	for (int i = TCPANA_NONE + 1; i < TCPANA_KINDS; i++) {
		const struct kind_tally *k = &t->k[i];
		struct tcpana_diag d;
		size_t j;

		if (!named((enum tcpana_kind)i, k->held, t->exchanges))
			continue;
		d = (struct tcpana_diag){
			.kind = (enum tcpana_kind)i,
			.exchanges = k->held,
			.share = (double)k->held / (double)t->exchanges,
			.typical_ns = p2_median(&k->med),
			.p25_ns = p2_quartile(&k->med, 1),
			.p75_ns = p2_quartile(&k->med, 3),
			.max_ns = k->max_ns,
		};
		d.kind = server_kind(t, &d);
		d.fix = tcpana_kind_fix(d.kind);
		/* insert by share, the largest first */
		for (j = n; j > 0 && out[j - 1].exchanges < k->held; j--)
			if (j < max)
				out[j] = out[j - 1];
		if (j >= max)
			continue;
		out[j] = d;
		if (n < max)
			n++;
	}
	return n;
}

void tcpana_tally_path(const struct tcpana_tally *t, struct tcpana_pathsum *out)
{
	out->idle_ns = t->path_idle_ns;
	out->loaded_ns = t->path.n ? p2_median(&t->path) : -1;
	out->server_ns = t->server.n ? p2_median(&t->server) : -1;
	out->solo_ns = t->solo_ns;
	out->solo_exchanges = t->solo_n;
	out->solo_held = t->solo_held;
}
