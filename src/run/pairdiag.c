// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant's own --tcp pair's packets analysed (pairdiag.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairdiag.h"
#include "segcap.h"
#include "skpeer.h"
#include "timeutil.h"

/* Segments a second the capture's buffer is sized for: a pair's
 * messages, a few segments each, back to back. */
#define PAIR_CAP_RATE 200000
/* Connections analysed at once: the emitter's (made again after a
 * break), the reflector's --max-sessions. */
#define PAIR_EMIT_CONNS 4

/*
 * --diagnosis auto: the capture is kept when the median of the first
 * PAIR_DECIDE_N measured round trips (responses, reflecting) is
 * PAIR_SLOW_NS or more, as a stall of Nagle against a delayed ACK (40 ms
 * at least) or a retransmission (200 ms at least) makes it. Below, there
 * is no such stall to name, and the capture would be a real part of what
 * is measured: the kernel copies every packet of -i to it, and its thread
 * takes a CPU (on veth, make bench: 1.19 times the round trip spinning).
 */
#define PAIR_DECIDE_N 32
#define PAIR_SLOW_NS NS_PER_MS

struct pairdiag {
	struct segcap *cap;
	struct segdiag *diag;
	struct sockaddr_storage server;
	bool stopped;
	bool deciding;			/* auto: first[] filling */
	uint32_t n;
	int64_t first[PAIR_DECIDE_N];
	struct pairdiag_left left;
};

/* The server the pair's segments go to and come from: the reflector
 * (-a ADDR, read as the transport reads it: skpeer.h), or this
 * reflector's port on any of its addresses. 0, or -errno with one line. */
static int pair_server(const struct rant_cfg *c, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	char err[512];
	socklen_t len;

	memset(ss, 0, sizeof(*ss));
	if (c->mode != MODE_EMIT) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)c->port);
		return 0;
	}
	if (sk_peer_resolve(c->addr, (uint16_t)c->port, if_nametoindex(c->iface), c->iface, ss,
			    &len, err, sizeof(err))) {
		fprintf(stderr, "rant: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

int pairdiag_start(struct pairdiag **pp, const struct rant_cfg *c)
{
	struct segcap_params sp = {
		.iface = c->iface, .hw = !c->no_hw_ts, .rate = PAIR_CAP_RATE, .seg = segdiag_seg,
	};
	struct pairdiag *p;
	char err[512];
	int ret;

	*pp = NULL;
	if (!c->tcp || cfg_probe(c) || c->diagnosis_mode == DIAGNOSIS_OFF)
		return 0;
	p = *pp = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* a sweep's sizes differ: its first ones tell nothing of the rest */
	p->deciding = c->diagnosis_mode == DIAGNOSIS_AUTO && c->nsizes < 2;
	if (pair_server(c, &p->server))
		return -EINVAL;
	p->diag = segdiag_create(c->mode == MODE_EMIT ? PAIR_EMIT_CONNS : c->max_sessions,
				 &p->server, NULL);
	if (!p->diag) {
		fprintf(stderr, "rant: no memory for the analysis of the TCP connections\n");
		return -ENOMEM;
	}
	sp.server = &p->server;
	sp.ctx = p->diag;
	ret = segcap_start(&p->cap, &sp, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: --tcp: %s\n", err);
	return ret;
}

void pairdiag_measuring(struct pairdiag *p)
{
	if (p)
		segdiag_measuring(p->diag, realtime_ns());
}

void pairdiag_sample(struct pairdiag *p, int64_t v_ns)
{
	if (!p || !p->deciding)
		return;
	p->first[p->n++] = v_ns;
	if (p->n < PAIR_DECIDE_N)
		return;
	p->deciding = false;
	ns_sort(p->first, p->n);
	if (p->first[p->n / 2] >= PAIR_SLOW_NS)
		return;
	segcap_abandon(p->cap);
	p->left = (struct pairdiag_left){
		.left_out = true, .after = p->n, .median_ns = p->first[p->n / 2],
		.below_ns = PAIR_SLOW_NS,
	};
}

const struct pairdiag_left *pairdiag_left(const struct pairdiag *p)
{
	return p && p->left.left_out ? &p->left : NULL;
}

void pairdiag_stop(struct pairdiag *p, struct segdiag_result *out)
{
	struct segcap_stats st;

	if (!p || !p->cap || p->stopped)
		return;
	segcap_stop(p->cap, &st);
	p->stopped = true;
	if (p->left.left_out)
		return;		/* nothing analysed is the run's */
	segdiag_finish(p->diag, realtime_ns(), out);
	out->packets = st.packets;
	out->dropped = st.dropped;
}

void pairdiag_destroy(struct pairdiag *p)
{
	if (!p)
		return;
	segcap_destroy(p->cap);
	segdiag_destroy(p->diag);
	free(p);
}
