// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant's own --tcp pair's packets analysed (pairdiag.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "pairdiag.h"
#include "segcap.h"
#include "timeutil.h"

/* Segments a second the capture's buffer is sized for: a pair's
 * messages, a few segments each, back to back. */
#define PAIR_CAP_RATE 200000
/* Connections analysed at once: the emitter's (made again after a
 * break), the reflector's --max-sessions. */
#define PAIR_EMIT_CONNS 4

struct pairdiag {
	struct segcap *cap;
	struct segdiag *diag;
	struct sockaddr_storage server;
	bool stopped;
};

/* The server the pair's segments go to and come from: the reflector
 * (-a ADDR), or this reflector's port on any of its addresses. */
static int pair_server(const struct rant_cfg *c, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (c->mode != MODE_EMIT) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)c->port);
		return 0;
	}
	if (inet_pton(AF_INET, c->addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)c->port);
		return 0;
	}
	if (inet_pton(AF_INET6, c->addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)c->port);
		return 0;
	}
	return -EINVAL;
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
	if (!c->tcp || cfg_probe(c) || c->no_diagnosis)
		return 0;
	p = *pp = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (pair_server(c, &p->server)) {
		fprintf(stderr, "rant: --tcp: %s is not an IPv4 or IPv6 address\n", c->addr);
		return -EINVAL;
	}
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

void pairdiag_stop(struct pairdiag *p, struct segdiag_result *out)
{
	struct segcap_stats st;

	if (!p || !p->cap || p->stopped)
		return;
	segcap_stop(p->cap, &st);
	segdiag_finish(p->diag, realtime_ns(), out);
	out->packets = st.packets;
	out->dropped = st.dropped;
	p->stopped = true;
}

void pairdiag_destroy(struct pairdiag *p)
{
	if (!p)
		return;
	segcap_destroy(p->cap);
	segdiag_destroy(p->diag);
	free(p);
}
