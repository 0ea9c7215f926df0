/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a probe of a TCP service (src/probe/: --syn, --http, --request)
 * counts beside the run's counts (counts.h: sent, received, lost); what
 * its packets said held the time is segdiag.h's. Written by the probe's
 * loop; read by the summary, and by a live snapshot (64-bit words, as
 * counts.h's).
 */
#ifndef RANT_PROBECOUNT_H
#define RANT_PROBECOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* HTTP status classes counted: 1xx to 5xx, and [0] any other. */
#define PROBE_STATUS_CLASSES 6

struct probe_counts {
	/* --syn (an RST back is the run's counts.refused) */
	uint64_t rst_late;		/* an RST or SYN-ACK after its probe timed out */
	uint64_t icmp_errors;		/* ICMP errors for SYNs (port unreachable,
					 * prohibited): their probes are lost */
	uint64_t rst_no_ack;		/* RSTs without ACK to a probe's port: no
					 * answer to a SYN, ignored */
	/* --icmp: the ICMP errors that answered measured requests, by
	 * icmpwire.h's kind (unreachable, time exceeded, other): not lost */
	uint64_t echo_errors[3];
	uint64_t echo_late_errors;	/* errors after their request timed out */
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
	uint64_t informational;		/* 1xx interim responses skipped (100 Continue,
					 * 103 Early Hints): not answers; a request they
					 * hold past --timeout is timed out */
	uint64_t bytes_received;	/* response bytes, headers and bodies */
	uint64_t fd_limit;		/* the open-file limit rant ran with */
	/* silence: the last whole measured response, ns after measuring
	 * began (-1: none), the requests timed out after it, and how long
	 * the run went on after it (the server stopped answering when those
	 * timed out and it reached the end) */
	int64_t last_answer_ns;
	uint64_t timeouts_after;
	int64_t silent_ns;
};

#endif
