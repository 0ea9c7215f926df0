/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Framing of rant's messages on a byte stream (--tcp): each message is
 * preceded by its length, 4 bytes big-endian, and is an ordinary rant
 * message (wire.h) of that length. A receiver finds whole messages in
 * what it has read so far, and rejects a stream that cannot be rant's
 * (a length outside [WIRE_HDR_LEN, max], or a message not starting with
 * the magic) as soon as the bytes that show it have arrived.
 */
#ifndef RANT_FRAME_H
#define RANT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_PREFIX 4		/* bytes of the length prefix */

/* What frame_check() found at the start of the bytes read. */
enum frame_state {
	FRAME_NEED = 0,		/* no whole message yet: read more */
	FRAME_WHOLE = 1,	/* a whole message: *len bytes after the prefix */
	FRAME_BADLEN = -1,	/* the length cannot be a rant message's */
	FRAME_BADMAGIC = -2,	/* the message does not start with "RANT" */
};

/* Write the prefix for a message of len bytes into pfx[FRAME_PREFIX]. */
void frame_put_len(uint8_t *pfx, uint32_t len);

/*
 * Look at the first have bytes of a stream (starting at a prefix) for a
 * message of at most max bytes: FRAME_WHOLE with *len, FRAME_NEED, or a
 * rejection. *len is also set with FRAME_NEED once the prefix is read.
 */
enum frame_state frame_check(const uint8_t *buf, size_t have, uint32_t max,
			     uint32_t *len);

/* A short name for a rejection: "bad length", "bad magic". */
const char *frame_strerror(enum frame_state st);

#endif
