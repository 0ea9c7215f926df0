// SPDX-License-Identifier: GPL-2.0-or-later
/* The numbers of a run, taken once (snap.h): what holds them. The taking,
 * which reads struct run, is snaptake.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snap.h"

const double snap_pcts[SNAP_NPCT] = { 50, 90, 95, 99, 99.9, 99.99, 99.999 };
const char *const snap_pct_keys[SNAP_NPCT] = {
	"50", "90", "95", "99", "99.9", "99.99", "99.999",
};

/* The buckets next(src, ...) gives into st->hdr (hist_hdr_next's
 * protocol): 0 or -ENOMEM. */
static int fill_hdr(struct snap_stats *st, const void *src,
		    bool (*next)(const void *src, size_t *pos, struct hist_bucket *b))
{
	struct hist_bucket b;
	size_t pos = 0, n = 0;

	while (next(src, &pos, &b))
		n++;
	if (!n)
		return 0;
	st->hdr = calloc(n, sizeof(*st->hdr));
	if (!st->hdr)
		return -ENOMEM;
	pos = 0;
	while (st->nhdr < n && next(src, &pos, &b))
		st->hdr[st->nhdr++] = b;	/* live: no more than counted */
	return 0;
}

static bool hist_next(const void *h, size_t *pos, struct hist_bucket *b)
{
	return hist_hdr_next(h, pos, b);
}

static bool lat_next(const void *l, size_t *pos, struct hist_bucket *b)
{
	return latstat_next(l, pos, b);
}

int snap_stats_fill(struct snap_stats *st, const struct hist *h, const char *key,
		    const char *label, const char *untrusted)
{
	*st = (struct snap_stats){ .key = key, .label = label, .untrusted = untrusted };
	hist_get_stats(h, &st->st);
	for (int i = 0; i < SNAP_NPCT; i++)
		st->pct[i] = hist_percentile(h, snap_pcts[i]);
	return fill_hdr(st, h, hist_next);
}

void snap_stats_small(struct snap_stats *st, const struct sweepstat *s, const char *key,
		      const char *label, const char *untrusted)
{
	*st = (struct snap_stats){ .key = key, .label = label, .untrusted = untrusted,
				   .precision = SWEEPSTAT_PRECISION };
	sweepstat_stats(s, &st->st);
	for (int i = 0; i < SNAP_NPCT; i++)
		st->pct[i] = sweepstat_percentile(s, snap_pcts[i]);
}

int snap_stats_lat(struct snap_stats *st, const struct latstat *l, const char *key,
		   const char *label, bool buckets)
{
	*st = (struct snap_stats){ .key = key, .label = label,
				   .precision = latstat_precision(l->bits) };
	moments_stats(&l->m, &st->st);
	for (int i = 0; i < SNAP_NPCT; i++)
		st->pct[i] = latstat_percentile(l, snap_pcts[i]);
	return buckets ? fill_hdr(st, l, lat_next) : 0;
}

void snap_fleet_free(struct snap_fleet *f)
{
	if (!f)
		return;
	for (size_t i = 0; f->t && i < f->n; i++) {
		snap_stats_free(&f->t[i].rtt);
		free(f->t[i].path);
	}
	free(f->t);
	free(f->order);
	free(f->find);
	free(f->sock);
	free(f);
}

void snap_stats_free(struct snap_stats *st)
{
	free(st->hdr);
	st->hdr = NULL;
	st->nhdr = 0;
}

void snap_free(struct snap *s)
{
	if (!s)
		return;
	for (int m = 0; m < M_COUNT; m++)
		snap_stats_free(&s->metric[m]);
	snap_stats_free(&s->rtt_intended);
	for (unsigned int i = 0; i < s->nsizes; i++)
		snap_stats_free(&s->sizes[i].rtt);
	free(s->hist.b);
	free(s->breach);
	snap_fleet_free(s->fleet);
	if (s->have_sessions)
		sessions_snap_free(&s->sessions);
	if (s->have_series)
		series_snap_free(&s->series);
	free(s);
}
