// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * After each measured transaction, on both sides (see measure.h).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>

#include "measure.h"
#include "trace.h"

/* Log rec (if the log wants it); returns the slot, or NULL. */
static struct txrec *log_rec(struct run *r, const struct txrec *rec,
			     int64_t latency_ns)
{
	struct txrec *slot;

	if (!r->log)
		return NULL;
	if (r->cfg->log_threshold_ns && latency_ns <= r->cfg->log_threshold_ns) {
		r->cnt.log_skipped++;
		return NULL;
	}
	slot = txlog_next(r->log);
	if (!slot) {
		r->log_full = true;
		return NULL;
	}
	*slot = *rec;
	return slot;
}

static const char *side_name(const struct run *r)
{
	return r->cfg->mode == MODE_EMIT ? "emit" : "reflect";
}

void measure_start(struct run *r)
{
	char extra[96];

	r->start_ns = realtime_ns();
	if (r->trace) {
		snprintf(extra, sizeof(extra), "iface=%s session=%08x", r->cfg->iface,
			 r->session);
		trace_start(r->trace, side_name(r), sched_getcpu(), extra);
	}
}

/* The first breach's marker (every stamp it has), then the trace frozen. */
static int mark_breach(struct run *r, const struct txrec *rec, int64_t latency_ns)
{
	struct trace_breach tb = {
		.seq = rec->seq, .latency_ns = latency_ns,
		.threshold_ns = r->cfg->threshold_ns,
		.side = side_name(r), .cpu = sched_getcpu(),
	};

	_Static_assert(P_COUNT == TRACE_NSTAMPS, "marker stamps in path order");
	for (int p = 0; p < P_COUNT; p++)
		tb.stamp[p] = txrec_stamp(rec, p);
	return trace_breach(r->trace, &tb);
}

/*
 * A transaction crossed -t: count it, keep it for the report, and at the
 * first one write the marker and freeze the trace, in that order (the
 * kernel refuses markers once tracing_on is 0; trace_breach does both).
 */
static void breach_seen(struct run *r, const struct txrec *rec,
			int64_t latency_ns)
{
	r->cnt.breaches++;
	if (r->nbreach < RUN_MAX_BREACHES) {
		struct breach *b = &r->breach[r->nbreach++];

		b->rec = *rec;
		b->latency_ns = latency_ns;
	}
	if (r->trace && r->cnt.breaches == 1) {
		r->trace_err = mark_breach(r, rec, latency_ns);
	}
}

enum measure_next measure_done(struct run *r, const struct txrec *rec,
			       int64_t latency_ns, struct txrec **slot)
{
	struct txrec *s = log_rec(r, rec, latency_ns);

	if (slot)
		*slot = s;
	if (r->log_full) {
		r->stop_reason = "log full";
		return MEASURE_STOP;
	}
	if (txrec_lost(rec))
		return MEASURE_GO_ON;
	if (r->cfg->threshold_ns && latency_ns > r->cfg->threshold_ns) {
		breach_seen(r, rec, latency_ns);
		if (!r->cfg->cont) {
			r->stop_reason = "breach";
			return MEASURE_BREACH;
		}
	}
	return MEASURE_GO_ON;
}
