// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * After each measured transaction, on both sides (see measure.h).
 */
#include <inttypes.h>
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

void measure_start(struct run *r)
{
	char line[128];

	r->start_ns = realtime_ns();
	if (r->trace) {
		snprintf(line, sizeof(line), "RANT_TEST_START mode=%s iface=%s session=%08x",
			 r->cfg->mode == MODE_EMIT ? "emit" : "reflect", r->cfg->iface,
			 r->session);
		trace_mark(r->trace, line);
	}
}

/* The first breach's marker: its seq, latency and every stamp it has. */
static int mark_breach(struct run *r, const struct txrec *rec, int64_t latency_ns)
{
	static const char *const names[P_COUNT] = {
		"T1_SW", "T1_wire", "T2_wire", "T2_SW",
		"T3_SW", "T3_wire", "T4_wire", "T4_SW",
	};
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "RANT_BREACH seq=%" PRIu64 " latency_ns=%" PRId64
		     " threshold_ns=%" PRId64, rec->seq, latency_ns, r->cfg->threshold_ns);
	for (int p = 0; p < P_COUNT && n < (int)sizeof(line) - 40; p++) {
		int64_t t = txrec_stamp(rec, p);

		if (t != TS_NONE)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%" PRId64, names[p], t);
	}
	return trace_mark(r->trace, line);
}

/*
 * A transaction crossed -t: count it, keep it for the report, and at the
 * first one write the marker and freeze the trace, in that order (the
 * kernel refuses markers once tracing_on is 0).
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
		if (!r->trace_err)
			r->trace_err = trace_freeze(r->trace);
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
	if (r->cfg->threshold_ns && latency_ns > r->cfg->threshold_ns) {
		breach_seen(r, rec, latency_ns);
		if (!r->cfg->cont) {
			r->stop_reason = "breach";
			return MEASURE_BREACH;
		}
	}
	return MEASURE_GO_ON;
}
