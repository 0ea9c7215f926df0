/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A session's recent sequence numbers, so that a reflector answers no
 * number for ever: STAMP's requests and replies look alike (RFC 8762
 * §4.2), so two reflectors set on each other by one forged datagram, or
 * a reflector beside an echo service (RFC 862), would bounce it without
 * end on any port. The replies of the last SEQREP_N numbers a session's
 * replies carried are remembered with how many carried each:
 *   - a request of a number SEQREP_MAX replies carried already (a
 *     stateless reflector copies the request's) is not answered: a
 *     sender does not send a number that often, a loop does;
 *   - a request of a number the reflector chose itself (a stateful
 *     reflector's own count, RFC 8762 §4.3) is its own reply come back,
 *     not answered: a sender's numbers run ahead of the replies', which
 *     count only what reached the reflector.
 * Either ends a loop within a few round trips whatever the ports. Fixed
 * memory in the session, a scan of SEQREP_N entries: no allocation.
 */
#ifndef RANT_SEQREP_H
#define RANT_SEQREP_H

#include <stdbool.h>
#include <stdint.h>

#define SEQREP_N 8	/* numbers remembered per session */
#define SEQREP_MAX 3	/* replies of one number at most */

struct seqrep {
	uint64_t seq[SEQREP_N];	/* in the request's terms (msg_hdr.seq) */
	uint8_t n[SEQREP_N];	/* replies that carried it; 0: a free entry */
	bool own[SEQREP_N];	/* the reflector chose it (not its request's) */
	uint8_t next;		/* the entry the next new number takes */
};

/* Whether a request of seq may be answered (false: a loop's, see above). */
bool seqrep_ok(const struct seqrep *q, uint64_t seq);

/* The reply to the request of req_seq carried reply_seq (the same for a
 * stateless reflector): remembered. */
void seqrep_note(struct seqrep *q, uint64_t req_seq, uint64_t reply_seq);

#endif
