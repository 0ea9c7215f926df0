// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a pong says (emitter.h), both loops: its MAC checked (--key), its
 * body's stamps into the record, and its follow-up (the T3 of an earlier
 * pong) to the record that awaits it.
 */
#include "auth.h"
#include "emitter.h"
#include "holdback.h"

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

/* Fill rec from the pong; patch an earlier record from the follow-up. */
void emit_take_pong(struct emitter *e, struct txrec *rec,
			   const struct msg_hdr *h)
{
	struct run *r = e->r;
	struct msg_body b = { 0 };
	uint16_t flags;

	if (msgfmt_parse_body(&r->fmt, e->rx, h, &b))
		return;
	flags = h->flags | b.flags;	/* and those only the body tells */
	r->peer_body = true;
	r->peer_hw = flags & MSG_F_T2_HW;
	stamppeer_take(&r->stamp_peer, &b.peer, h->seq, flags & MSG_F_FU);
	clock_pong(r->clock, flags, b.host_tag);
	if (flags & MSG_F_T2)
		rec->t2_wire = b.t2_wire;
	/* no follow-up to come: rec's T3 before emit_measured() would await it */
	if (b.flags & MSG_F_T3)
		txrec_set_t3_wire(rec, b.t3_wire);
	if (flags & MSG_F_SW) {
		rec->t2_sw = b.t2_sw;
		txrec_set_t3_sw(rec, b.t3_sw);
	}
	if (flags & MSG_F_FU)
		emit_follow_up(e, msgfmt_seq_near(&r->fmt, e->seq, b.fu_seq), b.fu_t3_wire);
}
