/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --stamp, emitter: what the Session-Reflector says of itself in its
 * replies (struct msg_peer, filled by fmtstamp.c's parse_body): its
 * timestamp format (the Z bit), whether its clock is synchronized (the S
 * bit) and its error estimate, whether it returned the SSID (RFC 8972),
 * the TTL it reports, which of the sender's TLVs it understood and, from
 * Timestamp Information, how it took T2 and T3. Kept from the first reply
 * on, with how often it changed, printed after the warm-up (the start-up
 * lines) and in the summary's JSON ("stamp_peer").
 */
#ifndef RANT_STAMPPEER_H
#define RANT_STAMPPEER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "msgfmt.h"
#include "out.h"
#include "warn.h"

struct stamppeer {
	uint64_t replies;		/* replies that carried a report */
	uint64_t changes;		/* of them, unlike the one before */
	uint64_t changed_seq;		/* the last change's ping */
	uint64_t followups;		/* replies with a Follow-Up Telemetry filled in */
	struct msg_peer first, last;
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

/*
 * The report as the line "stamp peer: ..." (text) and the object
 * "stamp_peer" (JSON): the first reply's, and with changes the last
 * one's too ("stamp peer, last: ...", "last"). Nothing when no reply
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
 * Whether the reflector's T3 is the one its replies carry (their own
 * Timestamp, fmtstamp.c's MSG_F_T3): it did not understand Follow-Up
 * Telemetry, so no wire T3 follows. Else T3 comes in the follow-up.
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
