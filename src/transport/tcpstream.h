/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One TCP stream of rant's messages, as tcp.c's emitter and each of the
 * reflector's connections (tcpserve.h) carry them: the connection set up
 * (timestamping, whose OPT_ID counts bytes from here, and the --tcp
 * options), framed messages written in --writes calls (frame.h), whole
 * messages read back with the RX stamps of the read that completed each.
 */
#ifndef RANT_TCPSTREAM_H
#define RANT_TCPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "cfg.h"
#include "sock.h"

#define TCPSTREAM_MAX (FRAME_PREFIX + RANT_TCP_MAX_LEN)	/* one framed message */

/* One stream's framing: the bytes read and not yet handed out. */
struct tcpstream_rx {
	uint8_t *buf;
	size_t cap, have;
	struct ts_stamps ts;		/* of the last read */
	int64_t sw;			/* CLOCK_REALTIME after the last read */
};

/*
 * A connection is up on s->fd: timestamping (OPT_ID counts bytes from
 * here), the options, an empty TX stash. The emitter adds SCHED and ACK
 * reports. 0, or -errno with err.
 */
int tcpstream_established(const struct rant_cfg *cfg, struct sk *s, char *err,
			  size_t len);

/*
 * One message on s in --writes calls (the framed bytes split evenly),
 * corked with --cork. *key: the first write's last byte emitting (T1:
 * the ping starts out), the message's last byte reflecting (T3: a pong
 * Nagle held leaves in parts, the last ends the response); *done: the
 * framed bytes written. 0, -EAGAIN (the rest did not fit: the message
 * still counts in the byte offsets), or -errno. Not stamped, its writes
 * ask for no TX stamp (ts_no_tx_cmsg: a refusal's, whose stamp nothing
 * reads); OPT_ID counts its bytes all the same.
 */
int tcpstream_send(const struct rant_cfg *cfg, struct sk *s, const void *buf,
		   size_t len, bool stamped, uint32_t *key, size_t *done);

/*
 * The next whole message on a stream: 0 with it in buf and m (without
 * its source), -EAGAIN or -EINTR while it has not all come, -EPROTO when
 * the stream cannot be rant's, -ECONNRESET (or another -errno) when the
 * connection is over. rx grows to hold a message (tcpstream_grow).
 */
int tcpstream_next(int fd, struct tcpstream_rx *rx, const struct rant_cfg *cfg,
		   void *buf, size_t len, struct sk_msg *m, bool sw, bool block);

/* Room in rx for need bytes (at most TCPSTREAM_MAX). 0 or -ENOMEM. */
int tcpstream_grow(struct tcpstream_rx *rx, size_t need);

#endif
