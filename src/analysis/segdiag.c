// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The connections' packets analysed (segdiag.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "segdiag.h"
#include "tcpwire.h"

#define PORTS 65536
#define NO_SLOT 0u
#define CLOSED UINT32_MAX	/* its connection ended: its last ACKs are not foreign */
#define SPARE 64		/* slots beyond the connections: those made again */
/* A SYN still unanswered when the capture stopped counts as unanswered
 * only this old: younger, its SYN-ACK may just not have come yet. */
#define SYN_LATE_NS 200000000LL

struct dslot {
	struct tcpana *a;
	uint16_t port;
	bool used, fin_c, fin_s;
	int8_t wscale[2];	/* each side's window scale, -1: none offered */
	int64_t syn_ns;		/* the SYN's stamp, 0: not seen */
	int64_t synack_ns;	/* the SYN-ACK's, 0: not seen */
	uint32_t isn;		/* the SYN's sequence number: a SYN sent again */
	bool counted;		/* its handshake in the connect metric */
};

struct segdiag {
	uint32_t *of_port;	/* [PORTS]: slot + 1, NO_SLOT, or CLOSED */
	struct dslot *slot;
	uint32_t nslot, *free, nfree;
	struct tcpana_tally *tally;
	struct tcpana_tally *solo;	/* the server alone (segdiag_solo) */
	struct tcpana_path path;	/* every connection's handshakes */
	struct tcpana_cfg acfg;
	struct hist *connect;
	uint8_t server[16];
	uint16_t server_port;
	uint8_t family;
	_Atomic int64_t since_ns;	/* measuring's start */
	_Atomic int64_t solo_ns;	/* the server alone's start, 0: none */
	uint32_t unknowns;
	uint64_t foreign, syn_retries, syn_unanswered;
};

/* An exchange measured: into the tally, once measuring began; into the
 * server alone's, between its start and measuring's. */
static void on_exchange(void *ctx, const struct tcpana_exchange *x)
{
	struct segdiag *d = ctx;
	int64_t since = atomic_load_explicit(&d->since_ns, memory_order_relaxed);
	int64_t solo = atomic_load_explicit(&d->solo_ns, memory_order_relaxed);

	if (since && x->req_first_ns >= since)
		tcpana_tally_add(d->tally, x);
	else if (solo && x->req_first_ns >= solo)
		tcpana_tally_add(d->solo, x);
}

void segdiag_destroy(struct segdiag *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; d->slot && i < d->nslot; i++)
		tcpana_destroy(d->slot[i].a);
	free(d->slot);
	free(d->free);
	free(d->of_port);
	tcpana_tally_destroy(d->tally);
	tcpana_tally_destroy(d->solo);
	free(d);
}

static void set_server(struct segdiag *d, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		d->family = 6;
		memcpy(d->server, &a->sin6_addr, 16);
		d->server_port = ntohs(a->sin6_port);
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		d->family = 4;
		memcpy(d->server, &a->sin_addr, 4);
		d->server_port = ntohs(a->sin_port);
	}
}

struct segdiag *segdiag_create(uint32_t connections, const struct sockaddr_storage *server,
				   struct hist *connect)
{
	struct segdiag *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	set_server(d, server);
	d->connect = connect;
	d->nslot = connections * 2 + SPARE;
	tcpana_path_init(&d->path);
	/* the capture is this host's: the server's (its address any) or
	 * the client's */
	d->acfg = (struct tcpana_cfg){
		.exchange = on_exchange, .ctx = d, .path = &d->path,
		.received_here = (uint8_t)(1u << (memcmp(d->server, (uint8_t[16]){ 0 }, 16) ?
						  TCPSEG_S2C : TCPSEG_C2S)),
	};
	d->of_port = calloc(PORTS, sizeof(*d->of_port));
	d->slot = calloc(d->nslot, sizeof(*d->slot));
	d->free = calloc(d->nslot, sizeof(*d->free));
	d->tally = tcpana_tally_create();
	d->solo = tcpana_tally_create();
	if (!d->of_port || !d->slot || !d->free || !d->tally || !d->solo)
		goto failed;
	for (uint32_t i = 0; i < d->nslot; i++) {
		d->slot[i].a = tcpana_create(&d->acfg);
		if (!d->slot[i].a)
			goto failed;
		d->free[d->nfree++] = d->nslot - 1 - i;
	}
	return d;
failed:
	segdiag_destroy(d);
	errno = ENOMEM;
	return NULL;
}

void segdiag_solo(struct segdiag *d, int64_t t_ns)
{
	atomic_store_explicit(&d->solo_ns, t_ns, memory_order_relaxed);
}

void segdiag_measuring(struct segdiag *d, int64_t t_ns)
{
	atomic_store_explicit(&d->since_ns, t_ns, memory_order_relaxed);
}

/* A connection's analysis ends: what it could not tell kept, its slot
 * freed. */
static void end_slot(struct segdiag *d, struct dslot *sl, int64_t t_ns)
{
	tcpana_end(sl->a, t_ns);
	/* a SYN unanswered (a path SYN's SYN-ACK lost) is counted, not
	 * a connection whose server was not seen */
	if (!sl->syn_ns || sl->synack_ns)
		d->unknowns |= tcpana_unknowns(sl->a);
	d->syn_retries += tcpana_syn_retries(sl->a);
	d->syn_unanswered += sl->syn_ns && !sl->synack_ns && t_ns - sl->syn_ns >= SYN_LATE_NS;
	sl->used = false;
	d->of_port[sl->port] = CLOSED;
	d->free[d->nfree++] = (uint32_t)(sl - d->slot);
}

/* A client's SYN: a connection begins on its port, or its SYN was sent
 * again (the same sequence number, no SYN-ACK yet: the kernel's connect
 * retrying, a listen queue full or a SYN lost), the same connection. */
static struct dslot *begin_slot(struct segdiag *d, uint16_t port, uint32_t isn, int64_t t_ns)
{
	uint32_t i = d->of_port[port];
	struct dslot *sl;

	if (i != NO_SLOT && i != CLOSED) {
		sl = &d->slot[i - 1];
		if (!sl->synack_ns && sl->isn == isn)
			return sl;
		end_slot(d, sl, t_ns);	/* the port made again */
	}
	if (!d->nfree)
		return NULL;
	sl = &d->slot[d->free[--d->nfree]];
	tcpana_reset(sl->a, &d->acfg);
	*sl = (struct dslot){ .a = sl->a, .port = port, .used = true, .wscale = { -1, -1 } };
	sl->syn_ns = t_ns;
	sl->isn = isn;
	d->of_port[port] = (uint32_t)(sl - d->slot) + 1;
	return sl;
}

static bool from_server(const struct segdiag *d, const struct pkt_tcp *s)
{
	static const uint8_t any[16];

	if (s->sport != d->server_port)
		return false;
	if (!memcmp(d->server, any, 16))	/* this host's port: any address */
		return true;
	return s->family == d->family && !memcmp(s->src, d->server, d->family == 6 ? 16 : 4);
}

/* The segment as the analysis takes it: its direction, its window scaled. */
static void to_tcpseg(const struct dslot *sl, const struct pkt_tcp *s, enum tcpseg_dir dir,
		      struct tcpseg *out)
{
	*out = s->seg;
	out->dir = (uint8_t)dir;
	out->win = tcpwire_window(s->seg.win, sl->wscale[dir], sl->wscale[!dir],
				  s->seg.flags & TCPSEG_F_SYN);
}

void segdiag_seg(void *ctx, const struct pkt_tcp *s)
{
	struct segdiag *d = ctx;
	enum tcpseg_dir dir = from_server(d, s) ? TCPSEG_S2C : TCPSEG_C2S;
	uint16_t port = dir == TCPSEG_S2C ? s->dport : s->sport;
	uint16_t fl = s->seg.flags;
	bool syn = (fl & (TCPSEG_F_SYN | TCPSEG_F_ACK)) == TCPSEG_F_SYN;
	int64_t t_ns = s->seg.t_ns;
	uint32_t i = d->of_port[port];
	struct dslot *sl;
	struct tcpseg seg;

	if (dir == TCPSEG_C2S && syn)
		sl = begin_slot(d, port, s->seg.seq, t_ns);
	else
		sl = i != NO_SLOT && i != CLOSED ? &d->slot[i - 1] : NULL;
	if (!sl) {
		d->foreign += i != CLOSED;
		return;
	}
	if (fl & TCPSEG_F_SYN) {
		sl->wscale[dir] = s->wscale;
		if (dir == TCPSEG_S2C && !sl->synack_ns)
			sl->synack_ns = t_ns;
	}
	/* a connection made (the client's ACK): its handshake timed; the
	 * path's SYNs, answered by an RST, are not the probe's connects */
	if (dir == TCPSEG_C2S && sl->synack_ns && !sl->counted && (fl & TCPSEG_F_ACK) &&
	    !(fl & TCPSEG_F_RST)) {
		sl->counted = true;
		if (sl->syn_ns && d->connect)
			hist_add(d->connect, sl->synack_ns - sl->syn_ns, 0);
	}
	to_tcpseg(sl, s, dir, &seg);
	tcpana_seg(sl->a, &seg);
	sl->fin_c |= dir == TCPSEG_C2S && (fl & TCPSEG_F_FIN);
	sl->fin_s |= dir == TCPSEG_S2C && (fl & TCPSEG_F_FIN);
	if ((fl & TCPSEG_F_RST) || (sl->fin_c && sl->fin_s))
		end_slot(d, sl, t_ns);
}

void segdiag_finish(struct segdiag *d, int64_t end_ns, struct segdiag_result *out)
{
	for (uint32_t i = 0; i < d->nslot; i++)
		if (d->slot[i].used)
			end_slot(d, &d->slot[i], end_ns);
	out->have = true;
	tcpana_tally_solo(d->tally, d->solo);
	out->exchanges = tcpana_tally_exchanges(d->tally);
	out->n = tcpana_tally_diag(d->tally, out->d, TCPANA_KINDS);
	out->unknowns = d->unknowns;
	out->foreign = d->foreign;
	out->syn_retries = d->syn_retries;
	out->syn_unanswered = d->syn_unanswered;
	tcpana_tally_path(d->tally, &out->path);
}
