// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One latency's statistics, small (see latstat.h).
 */
#include <math.h>
#include <string.h>

#include "latstat.h"

void latmom_add(struct latmom *m, int64_t v, uint64_t seq)
{
	double d;

	if (m->n == 0 || v < m->min) {
		m->min = v;
		m->min_seq = seq;
	}
	if (m->n == 0 || v > m->max) {
		m->max = v;
		m->max_seq = seq;
	}
	if (m->n == 0)
		m->shift = v;
	m->n++;
	d = (double)v - (double)m->shift;
	m->sum += d;
	m->sumsq += d * d;
}

void latmom_stats(const struct latmom *m, struct hist_stats *st)
{
	*st = (struct hist_stats){
		.samples = m->n, .min = m->min, .max = m->max,
		.min_seq = m->min_seq, .max_seq = m->max_seq,
	};
	if (m->n) {
		double dm = m->sum / (double)m->n, var = m->sumsq / (double)m->n - dm * dm;

		st->avg = (double)m->shift + dm;
		st->stddev = var > 0 ? sqrt(var) : 0;
	}
}

void latstat_init(struct latstat *s, uint32_t *counts, unsigned int bits)
{
	memset(&s->m, 0, sizeof(s->m));
	s->counts = counts;
	s->bits = bits;
	memset(counts, 0, latstat_bytes(bits));
}

void latstat_add(struct latstat *s, int64_t v, uint64_t seq)
{
	latmom_add(&s->m, v, seq);
	s->counts[hist_ll_index(v, s->bits)]++;
}

int64_t latstat_percentile(const struct latstat *s, double p)
{
	int64_t min = s->m.min < 0 ? 0 : s->m.min;

	if (s->m.max < 0)
		return s->m.max;
	return hist_ll_percentile(s->counts, s->bits, s->m.n, p, min, s->m.max);
}

bool latstat_next(const struct latstat *s, size_t *pos, struct hist_bucket *b)
{
	size_t i = *pos, last;

	if (s->m.n == 0)
		return false;
	if (i < hist_ll_index(s->m.min, s->bits))
		i = hist_ll_index(s->m.min, s->bits);
	last = hist_ll_index(s->m.max, s->bits);
	while (i <= last && !s->counts[i])
		i++;
	if (i > last)
		return false;
	hist_ll_bounds(i, s->bits, &b->lo, &b->hi);
	b->count = s->counts[i];
	*pos = i + 1;
	return true;
}

const char *latstat_precision(unsigned int bits)
{
	switch (bits) {
	case 8:
		return "0.8% (128 buckets per power of two), exact below 256 ns";
	case 6:
		return "3.1% (32 buckets per power of two), exact below 64 ns";
	default:
		return "log-linear";
	}
}
