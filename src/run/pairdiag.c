// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant's own --tcp pair's packets analysed (pairdiag.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pairdiag.h"
#include "run.h"
#include "segcap.h"

/* Segments a second the capture's buffer is sized for: a pair's
 * messages, a few segments each, back to back. */
#define PAIR_CAP_RATE 200000
/* Connections analysed at once: the emitter's (made again after a
 * break), the reflector's --max-sessions. */
#define PAIR_EMIT_CONNS 4

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

int pairdiag_start(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct segcap_params p = {
		.iface = c->iface, .server = &r->pair_server, .hw = !c->no_hw_ts,
		.rate = PAIR_CAP_RATE, .seg = segdiag_seg,
	};
	char err[512];
	int ret;

	if (!c->tcp || cfg_probe(c))
		return 0;
	if (pair_server(c, &r->pair_server)) {
		fprintf(stderr, "rant: --tcp: %s is not an IPv4 or IPv6 address\n", c->addr);
		return -EINVAL;
	}
	r->pair_diag = segdiag_create(c->mode == MODE_EMIT ? PAIR_EMIT_CONNS : c->max_sessions,
				      &r->pair_server, NULL);
	if (!r->pair_diag) {
		fprintf(stderr, "rant: no memory for the analysis of the TCP connections\n");
		return -ENOMEM;
	}
	p.ctx = r->pair_diag;
	ret = segcap_start(&r->pair_cap, &p, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: --tcp: %s\n", err);
	return ret;
}

void pairdiag_measuring(struct run *r)
{
	if (r->pair_diag)
		segdiag_measuring(r->pair_diag, realtime_ns());
}

void pairdiag_stop(struct run *r)
{
	struct segcap_stats st;

	if (!r->pair_cap || r->pair_stopped)
		return;
	segcap_stop(r->pair_cap, &st);
	segdiag_finish(r->pair_diag, realtime_ns(), &r->diag);
	r->diag.packets = st.packets;
	r->diag.dropped = st.dropped;
	r->pair_stopped = true;
}

void pairdiag_destroy(struct run *r)
{
	segcap_destroy(r->pair_cap);
	segdiag_destroy(r->pair_diag);
	r->pair_cap = NULL;
	r->pair_diag = NULL;
}
