/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a probe of a TCP service (src/probe/: --syn, --http, --request)
 * counts beside the run's counts (counts.h: sent, received, lost), and
 * what its packets said held the time (tcpana.h's diagnosis). Written by
 * the probe's loop (the counts) and its capture thread (the handshakes,
 * the diagnosis, after it stopped); read by the summary, and the counts
 * by a live snapshot (64-bit words, as counts.h's).
 */
#ifndef RANT_PROBECOUNT_H
#define RANT_PROBECOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcpana.h"

/* HTTP status classes counted: 1xx to 5xx, and [0] any other. */
#define PROBE_STATUS_CLASSES 6

struct probe_counts {
	/* --syn (an RST back is the run's counts.refused) */
	uint64_t rst_late;		/* an RST or SYN-ACK after its probe timed out */
	/* --http, --request */
	uint64_t connections;		/* connections made, the first ones and again */
	uint64_t connect_failures;	/* connections that failed (refused, timed out) */
	uint64_t reopened;		/* connections the server closed, made again */
	uint64_t timeouts;		/* requests without their whole response within
					 * --timeout (counts.lost too): the connection
					 * is closed and made again */
	uint64_t bad_responses;		/* responses that did not parse (a garbage status
					 * line, a bad or huge Content-Length, longer
					 * than allowed): the connection closed */
	uint64_t status[PROBE_STATUS_CLASSES];	/* responses by status class */
	uint64_t non_2xx;		/* responses of another status than 2xx (in the
					 * samples too: a 404 is answered) */
	uint64_t bytes_received;	/* response bytes, headers and bodies */
	uint64_t fd_limit;		/* the open-file limit rant ran with */
};

/* What the packets said (the probe's capture, src/probe/segcap.c). */
struct probe_diag {
	bool have;			/* the capture ran and was analysed */
	uint64_t exchanges;		/* request/response exchanges it saw */
	size_t n;			/* kinds named, the largest share first */
	struct tcpana_diag d[TCPANA_KINDS];
	uint32_t unknowns;		/* TCPANA_U_* of any connection */
	uint64_t packets;		/* segments captured */
	uint64_t dropped;		/* ... the kernel dropped (buffer full) */
	uint64_t foreign;		/* segments of no connection of the probe */
};

#endif
