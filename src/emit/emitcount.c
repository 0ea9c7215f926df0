// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What came back to the emitter, told apart and counted (emitcount.h): the
 * pong awaited, late, duplicate, foreign or invalid (emit_classify, by
 * the window of pongs seen), and the emitter's own counts: pings sent,
 * pongs late, datagrams stray (the answered and the lost are the run's
 * fan-out's: measure.h). Both loops (emit.c, emitopen.c) count here.
 */
#include "emitcount.h"
#include "run.h"
#include "series.h"
#include "timeutil.h"

void pong_window_forget(struct pong_window *w, uint64_t seq)
{
	w->bits[(seq / 64) % (EMIT_WINDOW / 64)] &= ~(1ULL << (seq % 64));
}

static bool pong_window_test_set(struct pong_window *w, uint64_t seq)
{
	uint64_t bit = 1ULL << (seq % 64), *word = &w->bits[(seq / 64) % (EMIT_WINDOW / 64)];
	bool was = *word & bit;

	*word |= bit;
	return was;
}

enum pong_class emit_classify(struct pong_window *w, const struct msgfmt_ctx *fmt,
			      const void *buf, ssize_t len, uint32_t wire_len,
			      uint32_t session, uint64_t seq, struct msg_hdr *h)
{
	if (len < 0 || msgfmt_parse(fmt, buf, (size_t)len, MSG_PONG, h) ||
	    (size_t)len != wire_len)
		return PONG_INVALID;
	h->seq = msgfmt_seq_near(fmt, seq, h->seq);
	if (h->session != session)
		return PONG_FOREIGN;
	if (h->seq > seq)
		return PONG_INVALID;	/* a seq never sent */
	if (seq - h->seq >= EMIT_WINDOW)
		return PONG_LATE;
	if (pong_window_test_set(w, h->seq))
		return PONG_DUPLICATE;
	return h->seq == seq ? PONG_MATCH : PONG_LATE;
}

/* A measured ping left at t_sent (its T1_SW). */
void emit_count_sent(struct emitter *e, uint64_t seq, int64_t t_sent)
{
	struct run *r = e->r;

	r->cnt.sent++;
	if (r->nsweep)
		r->sweep[r->sweep_idx].sent++;
	if (r->series)
		series_sent(r->series, seq, t_sent);
}

/* The pong of seq came after its ping was counted lost. */
void emit_count_late(struct emitter *e, uint64_t seq)
{
	e->r->cnt.late++;
	(void)seq;
	if (e->r->series)
		series_late(e->r->series, realtime_ns());	/* seen now: rare */
}

/* A datagram that is not the pong of a ping in flight: counted by class. */
void emit_count_stray(struct emitter *e, enum pong_class k,
			     const struct msg_hdr *h)
{
	struct run *r = e->r;

	switch (k) {
	case PONG_MATCH:
		break;
	case PONG_INVALID:
		r->cnt.invalid++;
		break;
	case PONG_FOREIGN:
		r->cnt.foreign++;
		break;
	case PONG_LATE:
		if (emit_pong_of_warmup(h->seq, e->first_measured))
			r->cnt.warmup_late++;
		else
			emit_count_late(e, h->seq);
		break;
	case PONG_DUPLICATE:
		if (emit_pong_of_warmup(h->seq, e->first_measured))
			r->cnt.warmup_duplicate++;
		else
			r->cnt.duplicate++;
		break;
	}
}
