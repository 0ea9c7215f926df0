// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a pong says (emitpong.h), both loops: its MAC checked (--key), its
 * body's stamps into the record, and its follow-up (the T3 of an earlier
 * pong) to the record that awaits it.
 */
#include "auth.h"
#include "clock.h"
#include "emitpong.h"
#include "holdback.h"
#include "measure.h"
#include "openloop.h"
#include "stamppeer.h"

/*
 * --key: whether a datagram shaped as this phase's pong carries a valid
 * MAC. Checked before it is classified, so a forged pong cannot mark its
 * seq as seen. Other datagrams pass here and are counted invalid after.
 * false after counting it (invalid, unauthenticated).
 */
bool emit_authentic(struct emitter *e, const struct sk_msg *m)
{
	struct run *r = e->r;
	struct msg_hdr h;

	if (!r->auth || m->len < 0 || (size_t)m->len != e->len ||
	    msgfmt_parse(&r->fmt, e->rx, (size_t)m->len, MSG_PONG, &h))
		return true;
	if (!(h.flags & MSG_F_MAC))
		r->peer_no_key = true;	/* a reflector without --key */
	else if (msgfmt_verify(&r->fmt, r->auth, e->rx, (size_t)m->len))
		return true;
	r->cnt.invalid++;
	r->cnt.unauthenticated++;
	return false;
}

/*
 * The follow-up: T3 of the reflector's pong of fu_seq, which came when
 * its TX stamp did: with the next pong, or (a pong held in the
 * reflector's queue) a few pongs later. To that ping while it is still
 * in flight (open loop: it is sampled when retired), else to its
 * measured record awaiting it (its log row, its T3 metrics) and to a
 * breach kept of that seq.
 */
static void emit_follow_up(struct emitter *e, uint64_t fu_seq, int64_t fu_t3)
{
	struct run *r = e->r;
	struct ol_entry *x = e->ol ? ol_get(e->ol, fu_seq) : NULL;
	struct txrec *w;

	if (x) {
		txrec_set_t3_wire(&x->rec, fu_t3);
		return;
	}
	w = holdback_find(e->await, fu_seq);
	if (w && txrec_stamp(w, P_T3_WIRE) != TS_NONE)
		w = NULL;	/* it has its T3 already */
	measure_t3(r, fu_seq, w, fu_t3);
}

/*
 * The seq of the ping whose pong the reflector numbered no, 0 when that
 * pong never came (or is too old): the follow-up of a format that names
 * pongs by the reflector's numbers (caps.fu_by_pong_no). A ping lost on
 * its way there was never numbered, so the next follow-up still finds
 * its pong.
 */
static uint64_t emit_pong_named(const struct emitter *e, uint64_t no)
{
	uint32_t i = (uint32_t)no % EMIT_NAMES;

	return e->names.seq[i] && e->names.no[i] == (uint32_t)no ? e->names.seq[i] : 0;
}

static void emit_pong_name(struct emitter *e, uint64_t no, uint64_t seq)
{
	uint32_t i = (uint32_t)no % EMIT_NAMES;

	e->names.no[i] = (uint32_t)no;
	e->names.seq[i] = seq;
}

/* Fill rec from the pong; patch an earlier record from the follow-up. */
void emit_take_pong(struct emitter *e, struct txrec *rec,
			   const struct msg_hdr *h)
{
	struct run *r = e->r;
	struct msg_body b = { 0 };
	uint64_t fu_seq;
	uint16_t flags;

	if (msgfmt_parse_body(&r->fmt, e->rx, h, &b))
		return;
	flags = h->flags | b.flags;	/* and those only the body tells */
	r->peer_body = true;
	r->peer_hw = flags & MSG_F_T2_HW;
	stamppeer_take(&r->stamp_peer, &b.peer, h->seq, flags & MSG_F_FU);
	if (r->cfg->stamp && e->first_measured && h->seq >= e->first_measured)
		stamppeer_reply(&r->stamp_peer, h->seq, &b);	/* loss by direction */
	clock_pong(r->clock, flags, b.host_tag);
	if (b.report.have) {	/* each only grows: the largest is the latest */
		struct msg_report *p = &r->peer_report;

		r->peer_reports++;
		p->have = true;
		p->send_errors = b.report.send_errors > p->send_errors ? b.report.send_errors :
									 p->send_errors;
		p->qdisc_drops = b.report.qdisc_drops > p->qdisc_drops ? b.report.qdisc_drops :
									 p->qdisc_drops;
		if (b.report.queue_max_ns > p->queue_max_ns)
			p->queue_max_ns = b.report.queue_max_ns;
	}
	if (flags & MSG_F_T2)
		rec->t2_wire = b.t2_wire;
	/* no follow-up to come (none understood, or a stateless reflector's):
	 * rec's T3 before emit_measured() would await it */
	if ((b.flags & MSG_F_T3) ||
	    (b.t3_wire != TS_NONE && !(flags & MSG_F_FU) && stamppeer_stateless(&r->stamp_peer)))
		txrec_set_t3_wire(rec, b.t3_wire);
	if (flags & MSG_F_SW) {
		rec->t2_sw = b.t2_sw;
		txrec_set_t3_sw(rec, b.t3_sw);
	}
	if (r->fmt.f->caps.fu_by_pong_no)
		emit_pong_name(e, b.pong_no, h->seq);
	if (!(flags & MSG_F_FU))
		return;
	fu_seq = r->fmt.f->caps.fu_by_pong_no ? emit_pong_named(e, b.fu_pong_no) :
		 msgfmt_seq_near(&r->fmt, e->seq, b.fu_seq);
	if (fu_seq)
		emit_follow_up(e, fu_seq, b.fu_t3_wire);
}
