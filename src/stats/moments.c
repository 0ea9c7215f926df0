// SPDX-License-Identifier: GPL-2.0-or-later
/* The exact moments of a stream of values (moments.h). */
#include <math.h>

#include "moments.h"

void moments_add(struct moments *m, int64_t v, uint64_t seq)
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

void moments_stats(const struct moments *m, struct hist_stats *st)
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
