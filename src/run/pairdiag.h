/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant's own --tcp pair: what held its exchanges, named from the packets
 * as a probe's are (segdiag.h, tcpana.h), on whichever side runs it: the
 * emitter captures its connection to the reflector (the client's view),
 * the reflector every connection to its port (the server's). A stall of
 * the reflector's Nagle (--writes 2 on it) against the emitter's delayed
 * ACK is nagle_delayed_ack, the emitter's own client_nagle. The capture
 * (segcap.h: libpcap on -i, headers only, a thread off the measuring
 * CPU) starts before the connection, so that it sees the handshake, and
 * stops before the summary.
 */
#ifndef RANT_PAIRDIAG_H
#define RANT_PAIRDIAG_H

#include "cfg.h"
#include "segdiag.h"

struct pairdiag;

/* With --tcp (not a probe, not --diagnosis off): the capture and its
 * analysis started, in *pp (NULL without them), before the transport
 * opens. 0, or -errno with one line on stderr. */
int pairdiag_start(struct pairdiag **pp, const struct rant_cfg *c);

/* Measuring starts: the exchanges from now on are diagnosed. NULL: none. */
void pairdiag_measuring(struct pairdiag *p);

/* --diagnosis auto gave the capture up: after the first `after` measured
 * round trips (responses), whose median was under below_ns. */
struct pairdiag_left {
	bool left_out;
	uint32_t after;
	int64_t median_ns, below_ns;
};

/* A measured transaction's main metric (the round trip; reflecting, the
 * response), from the loop: --diagnosis auto decides on the first ones
 * (a store into an array, then, once, a sort; giving the capture up does
 * not wait for its thread). NULL: nothing. */
void pairdiag_sample(struct pairdiag *p, int64_t v_ns);

/* The capture given up (and why), or NULL. */
const struct pairdiag_left *pairdiag_left(const struct pairdiag *p);

/* The run is over: the capture stopped, its diagnosis into out (once;
 * NULL: nothing). */
void pairdiag_stop(struct pairdiag *p, struct segdiag_result *out);

/* Freed (the capture stopped first if it still runs); NULL: nothing. */
void pairdiag_destroy(struct pairdiag *p);

#endif
