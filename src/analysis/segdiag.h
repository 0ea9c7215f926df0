/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the packets of one server's TCP connections say held the time: the
 * probe's (--http, --request: the server is the service), and rant's own
 * --tcp pair's (the emitter's: the reflector; the reflector's: itself,
 * any address on its port). Each segment the capture hands over (segcap.h,
 * on its thread) goes to the analysis of its connection (tcpana.h: one a
 * connection, found by the client's port, begun at its SYN); each
 * exchange measured goes into one tally, whose diagnosis the summary
 * names; each connection's handshake (its SYN out to the SYN-ACK back, at
 * the interface) is the probe's connect metric, and every handshake
 * (the probe's path SYNs too, which this host answers with an RST) a
 * sample of the path's RTT (tcpana_path). Everything here runs on
 * the capture's thread; the loop reads the result after the capture
 * stopped.
 */
#ifndef RANT_SEGDIAG_H
#define RANT_SEGDIAG_H

#include <stdint.h>
#include <sys/socket.h>

#include "hist.h"
#include "pktparse.h"
#include "tcpana.h"

/* What the packets said (the result of a capture's analysis). */
struct segdiag_result {
	bool have;			/* the capture ran and was analysed */
	uint64_t exchanges;		/* request/response exchanges it saw */
	size_t n;			/* kinds named, the largest share first */
	struct tcpana_diag d[TCPANA_KINDS];
	uint32_t unknowns;		/* TCPANA_U_* of any connection */
	uint64_t packets;		/* segments captured */
	uint64_t dropped;		/* ... the kernel dropped (buffer full) */
	uint64_t foreign;		/* segments of no connection of the server */
	struct tcpana_pathsum path;	/* the path's RTT idle and under the load,
					 * the server's own time (medians) */
	uint64_t syn_retries;		/* SYNs sent again */
	uint64_t syn_unanswered;	/* handshakes whose SYN got no SYN-ACK */
};

struct segdiag;

/* For connections at once at most (more are counted, not analysed), to
 * server (its address unspecified: any of this host's, on its port);
 * handshakes into connect (NULL: none). NULL with errno. */
struct segdiag *segdiag_create(uint32_t connections, const struct sockaddr_storage *server,
				   struct hist *connect);
void segdiag_destroy(struct segdiag *d);

/* The server alone (one request at a time) from t_ns (CLOCK_REALTIME)
 * until measuring began: those exchanges are the reference the load is
 * told from a stall by (tcpana_tally_solo), apart from the diagnosis.
 * Any thread. */
void segdiag_solo(struct segdiag *d, int64_t t_ns);
/* Measuring began at t_ns (CLOCK_REALTIME): earlier exchanges (the
 * warm-up's) are left out of the diagnosis. Any thread. */
void segdiag_measuring(struct segdiag *d, int64_t t_ns);

/* segcap's callback: one segment (ctx: the segdiag). */
void segdiag_seg(void *ctx, const struct pkt_tcp *s);

/* After the capture stopped: every connection ended at end_ns, the
 * diagnosis into out (its capture counts are the caller's). */
void segdiag_finish(struct segdiag *d, int64_t end_ns, struct segdiag_result *out);

#endif
