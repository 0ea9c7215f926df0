// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One metric at one size of a sweep (see sweepstat.h).
 */
#include "mem.h"
#include "sweepstat.h"

struct sweepstat *sweepstat_create(bool huge)
{
	return mem_alloc(sizeof(struct sweepstat), huge);
}

void sweepstat_destroy(struct sweepstat *s, bool huge)
{
	if (s)
		mem_free(s, sizeof(*s), huge);
}

void sweepstat_add(struct sweepstat *s, int64_t v, uint64_t seq)
{
	moments_add(&s->m, v, seq);
	if (v >= 0)
		s->pos[hist_small_index(v)]++;
	else
		s->neg[hist_small_index(-(v + 1))]++;
}

void sweepstat_stats(const struct sweepstat *s, struct hist_stats *st)
{
	moments_stats(&s->m, st);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The negative values in ascending order are the magnitudes -v - 1 in
 * descending order: from the bucket of the least value up; a bucket of
 * magnitudes [lo, hi] holds the values [-hi - 1, -lo - 1].
 */
int64_t sweepstat_percentile(const struct sweepstat *s, double p)
{
	int64_t lo, hi;
	uint64_t k;
	size_t i;

	if (s->m.n == 0)
		return 0;
	k = hist_pct_rank(p, s->m.n);
	if (s->m.min < 0) {
		for (i = hist_small_index(-(s->m.min + 1)) + 1; i-- > 0;) {
			if (k <= s->neg[i]) {
				hist_small_bounds(i, &lo, &hi);
				return clamp(-lo - 1, s->m.min, s->m.max);
			}
			k -= s->neg[i];
		}
	}
	if (s->m.max < 0)
		return s->m.max;	/* a count read while the loop added (live) */
	for (i = hist_small_index(s->m.min < 0 ? 0 : s->m.min); i < hist_small_index(s->m.max);
	     i++) {
		if (k <= s->pos[i])
			break;
		k -= s->pos[i];
	}
	hist_small_bounds(i, &lo, &hi);
	return clamp(hi, s->m.min, s->m.max);
}
