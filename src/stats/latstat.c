// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One latency's statistics, small (see latstat.h).
 */
#include <string.h>

#include "latstat.h"

void latstat_init(struct latstat *s, uint32_t *counts, unsigned int bits)
{
	memset(&s->m, 0, sizeof(s->m));
	s->counts = counts;
	s->bits = bits;
	memset(counts, 0, latstat_bytes(bits));
}

void latstat_add(struct latstat *s, int64_t v, uint64_t seq)
{
	moments_add(&s->m, v, seq);
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
