/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RANT_TCPPATH_H
#define RANT_TCPPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "tcpseg.h"

/*
 * The path's round trip as it was at each moment, shared by the
 * connections of one server (they cross one path): each handshake at
 * the capture point is a sample of the leg to the server (SYN to
 * SYN-ACK: leg TCPSEG_C2S) and of the leg to the client (SYN-ACK to the
 * client's ACK or RST: leg TCPSEG_S2C). Both are answered by a kernel at
 * once, so they hold no server's work: the probe sends SYNs beside its
 * requests for that (doc/services.md), and a capture of that traffic
 * holds them too. The samples of one leg come in time order.
 */
#define TCPANA_PATH_RECENT 32		/* samples a leg keeps */
#define TCPANA_PATH_WINDOW_NS 200000000LL	/* "at that moment": samples this recent */

struct tcpana_path_leg {
	int64_t idle_ns;		/* its least sample: the path idle, -1: none */
	uint64_t samples;
	unsigned int head, n;
	struct { int64_t t_ns, rtt_ns; } recent[TCPANA_PATH_RECENT];
};

struct tcpana_path {
	struct tcpana_path_leg leg[2];	/* by enum tcpseg_dir */
};

void tcpana_path_init(struct tcpana_path *p);
void tcpana_path_sample(struct tcpana_path *p, enum tcpseg_dir leg, int64_t t_ns, int64_t rtt_ns);
/* The leg's round trip at t_ns: the median and the largest of its
 * samples of the TCPANA_PATH_WINDOW_NS before it; false when it has none
 * that recent. */
bool tcpana_path_at(const struct tcpana_path *p, enum tcpseg_dir leg, int64_t t_ns,
		    int64_t *median_ns, int64_t *max_ns);

#endif
