// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Message-size sweeps (see sweep.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "sweep.h"
#include "timeutil.h"

/* One size: digits only, in [lo, hi]. 0 or -EINVAL after a message. */
static int sweep_number(const char *s, const char *end, uint32_t lo, uint32_t hi,
			uint32_t *v, char *err, size_t errlen)
{
	uint64_t x = 0;
	const char *p;

	if (s == end) {
		snprintf(err, errlen, "an empty size: give sizes from %" PRIu32 " to %" PRIu32 ", as 64,256,1024 or LO:HI:x2",
			 lo, hi);
		return -EINVAL;
	}
	for (p = s; p < end; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(err, errlen, "'%.*s' is not a size in bytes: give sizes from %" PRIu32 " to %" PRIu32 ", as 64,256,1024 or LO:HI:x2",
				 (int)(end - s), s, lo, hi);
			return -EINVAL;
		}
		if (x <= UINT32_MAX)
			x = x * 10 + (uint64_t)(*p - '0');
	}
	if (x < lo || x > hi) {
		snprintf(err, errlen, "%.*s is out of range. Must be in the range %" PRIu32 " to %" PRIu32,
			 (int)(end - s), s, lo, hi);
		return -EINVAL;
	}
	*v = (uint32_t)x;
	return 0;
}

static int sweep_add(uint32_t v, uint32_t *sizes, unsigned int max_n,
		     unsigned int *n, char *err, size_t errlen)
{
	if (*n >= max_n) {
		snprintf(err, errlen, "more than %u sizes: a sweep measures at most %u (use a larger factor or step)",
			 max_n, max_n);
		return -EINVAL;
	}
	sizes[(*n)++] = v;
	return 0;
}

/* "LO:HI:xF" or "LO:HI:+S". */
static int sweep_range(const char *text, uint32_t lo, uint32_t hi,
		       uint32_t *sizes, unsigned int max_n, unsigned int *n,
		       char *err, size_t errlen)
{
	const char *c1 = strchr(text, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	uint32_t a, b, k;
	char op;

	if (!c2 || strchr(c2 + 1, ':') || (c2[1] != 'x' && c2[1] != '+')) {
		snprintf(err, errlen, "'%s' is not a range: give LO:HI:xFACTOR (64:65536:x2) or LO:HI:+STEP (64:1500:+64)",
			 text);
		return -EINVAL;
	}
	op = c2[1];
	if (sweep_number(text, c1, lo, hi, &a, err, errlen) ||
	    sweep_number(c1 + 1, c2, lo, hi, &b, err, errlen) ||
	    sweep_number(c2 + 2, c2 + 2 + strlen(c2 + 2), op == 'x' ? 2 : 1, hi, &k, err, errlen))
		return -EINVAL;
	if (b < a) {
		snprintf(err, errlen, "'%s': the range ends below its start: give LO:HI with LO <= HI", text);
		return -EINVAL;
	}
	for (uint64_t v = a; v <= b; v = op == 'x' ? v * k : v + k)
		if (sweep_add((uint32_t)v, sizes, max_n, n, err, errlen))
			return -EINVAL;
	return 0;
}

int sweep_parse(const char *text, uint32_t lo, uint32_t hi, uint32_t *sizes,
		unsigned int max_n, unsigned int *n, char *err, size_t errlen)
{
	const char *p = text;
	uint32_t v;

	*n = 0;
	if (strchr(text, ':'))
		return sweep_range(text, lo, hi, sizes, max_n, n, err, errlen);
	for (;;) {
		const char *end = strchr(p, ',');

		if (!end)
			end = p + strlen(p);
		if (sweep_number(p, end, lo, hi, &v, err, errlen) ||
		    sweep_add(v, sizes, max_n, n, err, errlen))
			return -EINVAL;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int sweep_fit(const uint32_t *sizes, const int64_t *lat_ns, unsigned int n,
	      struct sweep_fit *f)
{
	struct fit line = { .x_unit = 1 };

	for (unsigned int i = 0; i < n; i++)
		fit_add(&line, sizes[i], lat_ns[i]);
	if (!fit_slope(&line, &f->ns_per_byte))
		return -EINVAL;
	f->offset_ns = fit_at(&line, 0);
	f->bandwidth_bps = f->ns_per_byte > 0 ? 8e9 / f->ns_per_byte : 0;
	return 0;
}

static enum sweep_break break_between(uint32_t s0, int64_t l0, uint32_t s1, int64_t l1,
				      uint32_t frag_above)
{
	if (frag_above && s0 <= frag_above && s1 > frag_above)
		return SWEEP_FRAGMENTS;
	if (l0 > 0 && l1 > 2 * l0 &&
	    (double)l1 / (double)l0 > 1.5 * (double)s1 / (double)s0)
		return SWEEP_CLIFF_UP;
	if (l1 > 0 && 2 * l1 <= l0)
		return SWEEP_CLIFF_DOWN;
	return SWEEP_END;
}

/* One regime's line, or its level. */
static void regime_fit(const uint32_t *sizes, const int64_t *lat_ns, struct sweep_regime *g)
{
	unsigned int n = g->last - g->first + 1;
	int64_t sorted[SWEEP_MAX_POINTS];

	memcpy(sorted, lat_ns + g->first, n * sizeof(*sorted));
	ns_sort(sorted, n);
	g->level_ns = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	g->sloped = n >= 2 && !sweep_fit(sizes + g->first, lat_ns + g->first, n, &g->fit) &&
		    g->fit.ns_per_byte > 0;
}

void sweep_regimes(const uint32_t *sizes, const int64_t *lat_ns, unsigned int n,
		   uint32_t frag_above, struct sweep_regime *out, unsigned int *nout)
{
	unsigned int k = 0, start = 0;

	if (n > SWEEP_MAX_POINTS)
		n = SWEEP_MAX_POINTS;
	for (unsigned int i = 0; i < n; i++) {
		enum sweep_break b = SWEEP_END;

		if (i + 1 < n)
			b = break_between(sizes[i], lat_ns[i], sizes[i + 1], lat_ns[i + 1],
					  frag_above);

		if (b == SWEEP_END && i + 1 < n)
			continue;
		out[k] = (struct sweep_regime){ .first = start, .last = i, .ends = b };
		regime_fit(sizes, lat_ns, &out[k++]);
		start = i + 1;
	}
	*nout = k;
}

const char *sweep_break_name(enum sweep_break b)
{
	static const char *const names[] = {
		[SWEEP_END] = "", [SWEEP_FRAGMENTS] = "IP fragmentation",
		[SWEEP_CLIFF_UP] = "cliff up", [SWEEP_CLIFF_DOWN] = "cliff down",
	};

	return names[b];
}
