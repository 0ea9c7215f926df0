// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IPDV (RFC 5481) and RFC 3550's jitter, for the round trip and each way
 * (see jitter.h).
 */
#include "jitter.h"
#include "mem.h"
#include "metric.h"
#include "sweepstat.h"

/* The delays of the last JITTER_WINDOW sequence numbers, by seq. */
struct jitter_slot {
	uint64_t seq;		/* 0: empty */
	int64_t delay_ns;
};

struct jitter_way_state {
	struct jitter_slot slot[JITTER_WINDOW];
	struct sweepstat abs;	/* |IPDV| */
	int64_t min, max;	/* IPDV, signed */
	double j;		/* RFC 3550's J, ns */
};

struct jitter {
	struct jitter_way_state w[JITTER_NWAYS];
	bool huge;		/* its memory is the hugepage pool's */
};

struct jitter *jitter_create(bool huge)
{
	struct jitter *j = mem_alloc(sizeof(*j), huge);

	if (j)
		j->huge = huge;
	return j;
}

void jitter_destroy(struct jitter *j)
{
	if (j)
		mem_free(j, sizeof(*j), j->huge);
}

/* One IPDV: the later packet's delay minus the earlier one's. */
static void add_ipdv(struct jitter_way_state *w, int64_t ipdv, uint64_t seq)
{
	int64_t a = ipdv < 0 ? -ipdv : ipdv;

	if (!w->abs.m.n || ipdv < w->min)
		w->min = ipdv;
	if (!w->abs.m.n || ipdv > w->max)
		w->max = ipdv;
	sweepstat_add(&w->abs, a, seq);
	w->j += ((double)a - w->j) / 16;
}

/* Delay d of seq: paired with seq - 1 and seq + 1 where they came. */
static void add_delay(struct jitter_way_state *w, uint64_t seq, int64_t d)
{
	struct jitter_slot *prev = &w->slot[(seq - 1) % JITTER_WINDOW];
	struct jitter_slot *next = &w->slot[(seq + 1) % JITTER_WINDOW];
	struct jitter_slot *me = &w->slot[seq % JITTER_WINDOW];

	if (me->seq == seq)
		return;		/* once a seq */
	if (prev->seq == seq - 1 && seq > 1)
		add_ipdv(w, d - prev->delay_ns, seq);
	if (next->seq == seq + 1)
		add_ipdv(w, next->delay_ns - d, seq + 1);
	me->seq = seq;
	me->delay_ns = d;
}

void jitter_sample(struct jitter *j, const struct txrec *rec, unsigned int which)
{
	int64_t v;

	if (!rec->seq)
		return;
	if ((which & METRIC_NO_T3) && metric_value(M_RTT, rec, &v))
		add_delay(&j->w[JITTER_RTT], rec->seq, v);
	if ((which & METRIC_NO_T3) && metric_value(M_OWD_FWD, rec, &v))
		add_delay(&j->w[JITTER_FWD], rec->seq, v);
	if ((which & METRIC_T3) && metric_value(M_OWD_BACK, rec, &v))
		add_delay(&j->w[JITTER_BACK], rec->seq, v);
}

void jitter_get(const struct jitter *j, enum jitter_way way, struct jitter_stats *out)
{
	const struct jitter_way_state *w = &j->w[way];

	*out = (struct jitter_stats){ .pairs = w->abs.m.n };
	if (!w->abs.m.n)
		return;
	out->abs_p50 = sweepstat_percentile(&w->abs, 50);
	out->abs_p99 = sweepstat_percentile(&w->abs, 99);
	out->abs_max = w->abs.m.max;
	out->min = w->min;
	out->max = w->max;
	out->rfc3550 = w->j;
}

const char *jitter_way_name(enum jitter_way w)
{
	static const char *const names[JITTER_NWAYS] = { "rtt", "fwd", "back" };

	return (unsigned int)w < JITTER_NWAYS ? names[w] : "?";
}
