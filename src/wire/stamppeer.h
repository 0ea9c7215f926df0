/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --stamp, emitter: what the Session-Reflector says of itself in its
 * replies (struct msg_peer, filled by fmtstamp.c's parse_body): its
 * timestamp format (the Z bit), whether its clock is synchronized (the S
 * bit) and its error estimate, whether it returned the SSID (RFC 8972),
 * the TTL it reports, which of the sender's TLVs it understood and, from
 * Timestamp Information, how it took T2 and T3, and from Class of
 * Service the DSCP and ECN the pings arrived with. Kept from the first
 * reply on, settled at the warm-up's end (stamppeer_settle), with how
 * often it changed since, printed then (the start-up lines) and in the
 * summary's JSON ("stamp_peer"); and loss by direction.
 */
#ifndef RANT_STAMPPEER_H
#define RANT_STAMPPEER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "msgfmt.h"
#include "out.h"
#include "stamp.h"
#include "warn.h"

/*
 * Loss by direction, from the measured replies (stamppeer_reply): from
 * the first to the last, the pings sent (their seqs' span), those the
 * reflector took (the span of its own numbers of its replies, or of its
 * Direct Measurement R_RxC) and the replies it sent (its numbers, or
 * R_TxC) against those that came back. The sender's span less what the
 * reflector took was lost forward; what it sent less what came back,
 * backward. The reflector's numbers tell only when they are its own (a
 * stateful reflector's): a stateless one's are the sender's.
 */
struct stamp_dirloss {
	uint64_t replies;		/* measured replies counted */
	uint64_t s0, s_span;		/* the first's ping seq; the highest less it */
	uint32_t r0, r_span;		/* the same of the reflector's numbers */
	bool numbered;			/* they left the sender's: its own */
	bool dm;			/* every reply carried Direct Measurement */
	uint32_t dm_s0, dm_rx0, dm_tx0;	/* the first's S_TxC, R_RxC, R_TxC */
	uint32_t dm_s_span, dm_rx_span, dm_tx_span;
};

struct stamppeer {
	uint64_t replies;		/* replies that carried a report */
	uint64_t changes;		/* of them, unlike the one before */
	uint64_t changed_seq;		/* the last change's ping */
	uint64_t followups;		/* replies with a Follow-Up Telemetry filled in */
	struct msg_peer first, last;
	struct stamp_dirloss loss;	/* the measured replies */
};

/* One reply's report, fu whether it brought a follow-up (the packet
 * loop: a compare, and a copy on change). */
static inline void stamppeer_take(struct stamppeer *sp, const struct msg_peer *pe, uint64_t seq,
				  bool fu)
{
	sp->followups += fu;
	if (!pe->have || (sp->replies++ && !memcmp(&sp->last, pe, sizeof(*pe))))
		return;
	if (sp->replies == 1) {
		sp->first = *pe;
	} else {
		sp->changes++;
		sp->changed_seq = seq;
	}
	sp->last = *pe;
}

/* The span from a to b of 32-bit numbers that wrap (serial arithmetic):
 * a later b than a only; else 0. */
static inline uint32_t stamppeer_span32(uint32_t a, uint32_t b)
{
	return b - a < 1u << 31 ? b - a : 0;
}

/* One measured reply, to the ping of seq: its reflector's number
 * (b->pong_no) and Direct Measurement counters into sp->loss (the packet
 * loop: a few compares). */
static inline void stamppeer_reply(struct stamppeer *sp, uint64_t seq, const struct msg_body *b)
{
	struct stamp_dirloss *d = &sp->loss;
	uint32_t r = (uint32_t)b->pong_no, dr;

	if (!d->replies++) {
		*d = (struct stamp_dirloss){ .replies = 1, .s0 = seq, .r0 = r, .dm = b->has_dm,
					     .dm_s0 = b->dm_s_tx, .dm_rx0 = b->dm_r_rx,
					     .dm_tx0 = b->dm_r_tx };
		return;
	}
	dr = stamppeer_span32(d->r0, r);
	if (seq > d->s0 && seq - d->s0 > d->s_span)
		d->s_span = seq - d->s0;
	if (dr > d->r_span)
		d->r_span = dr;
	d->numbered |= seq >= d->s0 && seq - d->s0 != dr;
	d->dm &= b->has_dm;
	if (!d->dm)
		return;
	if ((dr = stamppeer_span32(d->dm_s0, b->dm_s_tx)) > d->dm_s_span)
		d->dm_s_span = dr;
	if ((dr = stamppeer_span32(d->dm_rx0, b->dm_r_rx)) > d->dm_rx_span)
		d->dm_rx_span = dr;
	if ((dr = stamppeer_span32(d->dm_tx0, b->dm_r_tx)) > d->dm_tx_span)
		d->dm_tx_span = dr;
}

/* Loss by direction, as sp->loss gives it with lost pings in all, late
 * of them whose pongs came after they were counted lost (those came
 * back: neither way lost them). */
struct stamp_loss_dir {
	const char *from;		/* "direct_measurement", "reflector_numbers",
					 * NULL: not known (why says) */
	const char *why;
	uint64_t forward, backward;	/* between the first and last replies */
	uint64_t other;			/* lost after the last reply came */
};

void stamppeer_loss(const struct stamppeer *sp, uint64_t lost, uint64_t late,
		    struct stamp_loss_dir *out);

/* The text line "loss by direction: ..." and the JSON's object
 * "loss_by_direction" (null, with "loss_by_direction_unknown"). */
void stamppeer_loss_print(struct out *o, const struct stamppeer *sp, uint64_t lost,
			  uint64_t late);

/*
 * Measuring starts: the report the warm-up ended with is the one the run
 * starts from (first), changes counted from there: a reflector's first
 * replies may differ from its steady ones (rant's: a Class of Service TLV
 * before its TOS reports flow comes back with U, once in its life).
 * Without replies yet, nothing.
 */
static inline void stamppeer_settle(struct stamppeer *sp)
{
	if (!sp->replies)
		return;
	sp->first = sp->last;
	sp->changes = 0;
	sp->changed_seq = 0;
}

/*
 * The report as the line "stamp peer: ..." (text) and the object
 * "stamp_peer" (JSON): the first reply's (the warm-up's last, once
 * settled), and with changes the last one's too ("stamp peer, last: ...", "last"). Nothing when no reply
 * carried one.
 */
void stamppeer_print(struct out *o, const struct stamppeer *sp);

/*
 * The suffix of the reflector's wire stamps in the log and the breakdown
 * (T2_PEER_HW ...): they came in a STAMP reply, taken as its Timestamp
 * Information said ("_PEER_HW": HW assist, "_PEER_SW": SW local, kernel or
 * program, which STAMP does not tell apart), or "_PEER" when it said
 * nothing.
 */
const char *stamppeer_suffix(const struct stamppeer *sp);

/*
 * Whether the reflector is stateless: it understood Follow-Up Telemetry
 * yet filled it in none of more than STAMPPEER_STATELESS_AFTER replies
 * (a stateful one fills it from its second reply on, once its first
 * reply's stamp came; RFC 8972 §4.7 has a stateless one zero it). Inline:
 * every pong's.
 */
#define STAMPPEER_STATELESS_AFTER 4
static inline bool stamppeer_stateless(const struct stamppeer *sp)
{
	return sp->replies > STAMPPEER_STATELESS_AFTER && !sp->followups &&
	       (sp->first.tlv_understood & STAMP_TLV_BIT(STAMP_TLV_FOLLOWUP));
}

/*
 * Whether the reflector's T3 is the one its replies carry (their own
 * Timestamp): it did not understand Follow-Up Telemetry (fmtstamp.c's
 * MSG_F_T3), or it is stateless, so no wire T3 follows. Else T3 comes in
 * the follow-up.
 */
bool stamppeer_t3_own(const struct stamppeer *sp);

/*
 * The suffix of T3's column: as stamppeer_suffix() for a T3 from the
 * follow-up; for the reply's own T3, by what Timestamp Information said
 * of T3 ("_PEER" when it said nothing).
 */
const char *stamppeer_suffix_t3(const struct stamppeer *sp);

/*
 * The warnings a report calls for, to ws (printed to f): a reflector
 * whose clock is not synchronized under --one-way, and a reflector
 * that did not understand Follow-Up Telemetry and does not say its T3
 * is a HW stamp (T3 is then the reply's own, taken before it left).
 */
void stamppeer_warn(struct warnings *ws, FILE *f, const struct stamppeer *sp, bool one_way);

#endif
