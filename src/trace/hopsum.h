/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace summed up after its loop: per (path, hop) the responder, the
 * probes sent and answered, the RTTs (TX stamp of the probe to RX stamp
 * of its answer) in a latstat, the increment over the previous hop that
 * answered, the rate limits and the verdict (analysis/hopdiag.h); how
 * each path ended. The data print/traceout.c renders; it computes
 * nothing itself.
 */
#ifndef RANT_HOPSUM_H
#define RANT_HOPSUM_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "hopdiag.h"
#include "hops.h"
#include "latstat.h"

#define HOPSUM_BITS 8			/* the latstats' precision (0.8%) */

struct hopsum_cell {
	unsigned int ttl;
	uint64_t sent, received;	/* received: answered */
	uint64_t unstamped;		/* answered without a TX or RX stamp */
	bool rate_limited;
	int responder;			/* index into addr[], -1: none (`*`) */
	unsigned int others;		/* answers from another responder */
	enum hop_answer answer;		/* the responder's kind of answer */
	struct latstat rtt;		/* its counts: NULL when no sample */
	bool have_inc;
	int64_t inc_ns;			/* p50 over the previous answering hop's */
};

struct hopsum_path {
	uint16_t sport;			/* icmp: the echo identifier */
	enum hops_end end;
	unsigned int end_ttl;
	uint8_t code;			/* HOPS_UNREACHABLE's ICMP code */
	int by;				/* ... and who (addr[]), -1 */
	unsigned int hops;		/* cell[0] is TTL 1 */
	unsigned int ncell;		/* allocated (hops: up to the path's end) */
	struct hopsum_cell *cell;
	int64_t worst_ns;		/* the largest hop p50: the text's order */
};

struct hopsum {
	const struct hops_cfg *cfg;
	int family;
	bool hw;			/* the NIC's stamps */
	const char *hw_note;
	char dst[INET6_ADDRSTRLEN];
	unsigned int paths;
	struct hopsum_path path[HOPS_MAX_PATHS];
	unsigned int order[HOPS_MAX_PATHS];	/* the paths, worst first */
	char (*addr)[INET6_ADDRSTRLEN];	/* the responders */
	unsigned int naddr;
	struct hopdiag diag[HOPDIAG_MAX];
	unsigned int ndiag;
	uint64_t sent, answered, unmatched;
	const char *error;		/* the loop's failure, or NULL */
};

/* The summary of h (after hops_run): 0, or -ENOMEM. */
int hopsum_build(struct hopsum **out, const struct hops *h);
void hopsum_free(struct hopsum *s);

/* The p50 of a cell with samples. */
int64_t hopsum_p50(const struct hopsum_cell *c);

#endif
