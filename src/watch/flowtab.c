// SPDX-License-Identifier: GPL-2.0-or-later
/* The flows of a capture (flowtab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "flowtab.h"
#include "tcpwire.h"

#define CHUNK_SHIFT 10
#define CHUNK (1u << CHUNK_SHIFT)	/* slots allocated at once */
#define RING 16				/* segments kept for the timeline */
#define EXPIRY_STEP_NS 10000000LL	/* the idle and closed flows looked at */

enum { F_FREE, F_OPEN, F_CLOSED };

struct flow {
	uint32_t hnext;			/* hash chain: slot + 1, 0 ends it */
	uint32_t prev, next;		/* its list (open or closed): slot + 1 */
	uint8_t state;
	uint8_t family;
	uint8_t fins;			/* 1 << dir of each FIN seen */
	uint8_t syns;			/* 1 << dir of each SYN seen */
	uint8_t have_isn;		/* 1 << dir */
	bool by_syn, hs_taken;
	int8_t ws[2];			/* each side's window scale, -1 none */
	uint8_t ring_n, ring_pos;
	uint8_t addr[2][16];		/* by enum tcpseg_dir: the client's, the server's */
	uint16_t port[2];
	uint32_t isn[2];
	uint32_t syn_seq;		/* the client's SYN */
	bool had_data;
	int64_t first_ns, last_ns;
	uint64_t packets[2], bytes[2], rexmits, cut, nrtt;
	int64_t held_ns;
	uint64_t exchanges;
	struct flowtab *t;
	struct watch_port *sums;
	struct tcpana *ana;
	struct tcpana_tally *tally;	/* from its first exchange */
	struct watch_timeline *tl;	/* from its first held exchange */
	struct flowstat m[WM_FLOW_COUNT];
	struct watch_seg ring[RING];
};

struct list {
	uint32_t head, tail;		/* slot + 1 */
};

struct flowtab {
	struct flowtab_params p;
	struct watchagg *g;
	struct watch_report *r;
	struct flowstat_pool *pool;
	uint64_t seed;
	uint32_t *heads;		/* hash buckets: slot + 1 */
	uint32_t mask;
	struct flow **chunk;
	uint32_t nslots;		/* allocated */
	uint32_t free;			/* free slots, chained by hnext */
	struct list open, closed;
	int64_t now;
	int64_t next_expiry;		/* flowtab_expire() from this time on */
};

static inline struct flow *slot(const struct flowtab *t, uint32_t i)
{
	return &t->chunk[i >> CHUNK_SHIFT][i & (CHUNK - 1)];
}

/* ---- lists ---- */

static void list_append(struct flowtab *t, struct list *l, struct flow *f, uint32_t id)
{
	f->next = 0;
	f->prev = l->tail;
	if (l->tail)
		slot(t, l->tail - 1)->next = id + 1;
	else
		l->head = id + 1;
	l->tail = id + 1;
}

static void list_unlink(struct flowtab *t, struct list *l, struct flow *f)
{
	if (f->prev)
		slot(t, f->prev - 1)->next = f->next;
	else
		l->head = f->next;
	if (f->next)
		slot(t, f->next - 1)->prev = f->prev;
	else
		l->tail = f->prev;
	f->prev = f->next = 0;
}

/* ---- the hash ---- */

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* Both directions hash alike: the two ends in a fixed order. */
static uint32_t key_hash(const struct flowtab *t, const uint8_t *a, uint16_t pa,
			 const uint8_t *b, uint16_t pb)
{
	int c = memcmp(a, b, 16);
	uint64_t h;

	if (c > 0 || (c == 0 && pa > pb)) {
		const uint8_t *x = a;
		uint16_t px = pa;

		a = b, pa = pb, b = x, pb = px;
	}
	h = t->seed ^ load64(a) * 0x9e3779b97f4a7c15ULL ^ load64(a + 8) * 0xbf58476d1ce4e5b9ULL ^
	    load64(b) * 0x94d049bb133111ebULL ^ load64(b + 8) * 0x2545f4914f6cdd1dULL ^
	    ((uint64_t)pa << 16 | pb) * 0xd6e8feb86659fd93ULL;
	return (uint32_t)mix(h) & t->mask;
}

static bool is_end(const struct flow *f, int d, const uint8_t *a, uint16_t p)
{
	return f->port[d] == p && !memcmp(f->addr[d], a, 16);
}

/* The flow of pk, or NULL; *id its slot. */
static struct flow *lookup(struct flowtab *t, const struct pkt_tcp *pk, uint32_t h, uint32_t *id)
{
	for (uint32_t i = t->heads[h]; i; i = slot(t, i - 1)->hnext) {
		struct flow *f = slot(t, i - 1);

		if (f->family == pk->family &&
		    ((is_end(f, 0, pk->src, pk->sport) && is_end(f, 1, pk->dst, pk->dport)) ||
		     (is_end(f, 1, pk->src, pk->sport) && is_end(f, 0, pk->dst, pk->dport)))) {
			*id = i - 1;
			return f;
		}
	}
	return NULL;
}

static void unhash(struct flowtab *t, struct flow *f, uint32_t id)
{
	uint32_t h = key_hash(t, f->addr[0], f->port[0], f->addr[1], f->port[1]);
	uint32_t *pp = &t->heads[h];

	while (*pp && *pp != id + 1)
		pp = &slot(t, *pp - 1)->hnext;
	if (*pp)
		*pp = f->hnext;
}

/* ---- slots ---- */

/* CHUNK more slots, of which those within max_flows are free to take. */
static int add_chunk(struct flowtab *t)
{
	uint32_t c = t->nslots >> CHUNK_SHIFT, n = t->p.max_flows - t->nslots;
	struct flow *v = calloc(CHUNK, sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->chunk[c] = v;
	for (uint32_t i = n < CHUNK ? n : CHUNK; i-- > 0;) {
		v[i].hnext = t->free;
		t->free = t->nslots + i + 1;
	}
	t->nslots += CHUNK;
	return 0;
}

static void slot_free(struct flowtab *t, struct flow *f, uint32_t id)
{
	unhash(t, f, id);
	list_unlink(t, f->state == F_OPEN ? &t->open : &t->closed, f);
	f->state = F_FREE;
	f->hnext = t->free;
	t->free = id + 1;
}

/* ---- a flow's end ---- */

static void flow_report(const struct flow *f, struct watch_flow *w)
{
	memset(w, 0, offsetof(struct watch_flow, tl));
	w->client.family = w->server.family = f->family;
	memcpy(w->client.a, f->addr[TCPSEG_C2S], 16);
	memcpy(w->server.a, f->addr[TCPSEG_S2C], 16);
	w->client.port = f->port[TCPSEG_C2S];
	w->server.port = f->port[TCPSEG_S2C];
	w->by_syn = f->by_syn;
	w->first_ns = f->first_ns;
	w->last_ns = f->last_ns;
	memcpy(w->packets, f->packets, sizeof(w->packets));
	memcpy(w->bytes, f->bytes, sizeof(w->bytes));
	w->retransmits = tcpana_retransmits(f->ana);
	w->exchanges = f->exchanges;
	w->handshake_ns = tcpana_handshake_ns(f->ana);
	w->unknowns = tcpana_unknowns(f->ana) | (f->cut ? TCPANA_U_CUT : 0);
	w->cut_segments = f->cut;
	for (int m = 0; m < WM_FLOW_COUNT; m++)
		flowstat_sum(&f->m[m], watch_pcts, WATCH_NPCT, &w->m[m]);
	if (f->tally)
		w->ndiag = tcpana_tally_diag(f->tally, w->diag, TCPANA_KINDS);
	w->held_ns = f->held_ns;
	w->have_timeline = f->tl != NULL;
	if (f->tl)
		w->tl = *f->tl;
}

/* Report f (ended by why at now) and free what it held; it lingers
 * after its FINs or RST, else its slot is free. */
static void flow_end(struct flowtab *t, struct flow *f, uint32_t id, enum watch_end why)
{
	struct watch_flow w;
	int64_t hs;

	tcpana_end(f->ana, f->last_ns);
	hs = tcpana_handshake_ns(f->ana);
	if (!f->hs_taken && hs >= 0)
		watchagg_sample(t->g, f->sums, WM_HANDSHAKE, hs, t->r->all.flows);
	flow_report(f, &w);
	w.end = why;
	t->r->cnt.ends[why]++;
	t->r->cnt.flows_active--;
	watchagg_flow(t->g, f->sums, &w);
	for (int m = 0; m < WM_FLOW_COUNT; m++)
		flowstat_release(&f->m[m], t->pool);
	tcpana_tally_destroy(f->tally);
	f->tally = NULL;
	free(f->tl);
	f->tl = NULL;
	if (why == WE_FIN || why == WE_RST) {
		list_unlink(t, &t->open, f);
		f->state = F_CLOSED;
		list_append(t, &t->closed, f, id);
	} else {
		slot_free(t, f, id);
	}
}

/* ---- the analysis' callbacks ---- */

/* The ring's segments from x's request on, as x's timeline. */
static void timeline_take(struct flow *f, const struct tcpana_exchange *x)
{
	struct watch_timeline *tl = f->tl;
	unsigned int first = (f->ring_pos + RING - f->ring_n) % RING;

	if (!tl) {
		tl = f->tl = malloc(sizeof(*tl));
		if (!tl)
			return;
	} else if (x->held_ns <= tl->x.held_ns) {
		return;
	}
	tl->x = *x;
	tl->n = 0;
	tl->partial = f->ring_n == RING && f->ring[first].t_ns > x->req_first_ns;
	for (unsigned int i = 0; i < f->ring_n; i++) {
		const struct watch_seg *s = &f->ring[(first + i) % RING];

		if (s->t_ns >= x->req_first_ns)
			tl->seg[tl->n++] = *s;
	}
}

static void on_exchange(void *ctx, const struct tcpana_exchange *x)
{
	struct flow *f = ctx;
	struct flowtab *t = f->t;

	f->exchanges++;
	flowstat_add(&f->m[WM_EXCHANGE], t->pool, x->latency_ns, x->n);
	flowstat_add(&f->m[WM_FIRST_BYTE], t->pool, x->first_byte_ns, x->n);
	if (!f->tally)
		f->tally = tcpana_tally_create();
	if (f->tally)
		tcpana_tally_add(f->tally, x);
	watchagg_exchange(t->g, f->sums, x);
	if (x->held != TCPANA_NONE) {
		f->held_ns += x->held_ns;
		timeline_take(f, x);
	}
}

static void on_rtt(void *ctx, enum tcpseg_dir dir, int64_t rtt_ns)
{
	struct flow *f = ctx;
	enum watch_metric m = dir == TCPSEG_S2C ? WM_RTT_CLIENT : WM_RTT_SERVER;

	flowstat_add(&f->m[m], f->t->pool, rtt_ns, ++f->nrtt);
	watchagg_sample(f->t->g, f->sums, m, rtt_ns, f->nrtt);
}

/* ---- a new flow ---- */

/* A free slot: a new one, or the oldest closed flow's, or the least
 * recently active open flow's (reported, evicted). */
static int take_slot(struct flowtab *t, uint32_t *id)
{
	if (!t->free && t->nslots < t->p.max_flows)
		add_chunk(t);	/* without memory: the eviction below */
	if (!t->free && t->closed.head)
		slot_free(t, slot(t, t->closed.head - 1), t->closed.head - 1);
	if (!t->free && t->open.head)
		flow_end(t, slot(t, t->open.head - 1), t->open.head - 1, WE_EVICTED);
	if (!t->free)
		return -ENOMEM;
	*id = t->free - 1;
	t->free = slot(t, *id)->hnext;
	return 0;
}

/* Which end of pk is the client: the SYN's sender, the SYN-ACK's
 * receiver, else the higher port (or, ports alike, the higher address). */
static bool src_is_client(const struct pkt_tcp *pk, bool *by_syn)
{
	uint16_t fl = pk->noflags ? 0 : pk->seg.flags;

	*by_syn = fl & TCPSEG_F_SYN;
	if (fl & TCPSEG_F_SYN)
		return !(fl & TCPSEG_F_ACK);
	if (pk->sport != pk->dport)
		return pk->sport > pk->dport;
	return memcmp(pk->src, pk->dst, 16) > 0;
}

static struct flow *flow_new(struct flowtab *t, const struct pkt_tcp *pk, uint32_t h,
			     uint32_t *idp)
{
	struct tcpana_cfg cfg = { .exchange = on_exchange, .rtt = on_rtt };
	struct flow *f;
	bool by_syn, c = src_is_client(pk, &by_syn);
	int d = c ? TCPSEG_C2S : TCPSEG_S2C;
	uint32_t id;

	if (take_slot(t, &id))
		return NULL;
	f = slot(t, id);
	if (!f->ana) {
		cfg.ctx = f;
		f->ana = tcpana_create(&cfg);
		if (!f->ana) {
			f->hnext = t->free;
			t->free = id + 1;
			return NULL;
		}
	}
	{
		struct tcpana *ana = f->ana;

		memset(f, 0, offsetof(struct flow, ring));
		f->ana = ana;
	}
	f->sums = watchagg_port(t->g, c ? pk->dport : pk->sport);	/* the server's */
	cfg.ctx = f;
	cfg.path = f->sums ? &f->sums->path : NULL;	/* the server port's path */
	tcpana_reset(f->ana, &cfg);
	f->t = t;
	f->state = F_OPEN;
	f->family = pk->family;
	f->by_syn = by_syn;
	f->ws[0] = f->ws[1] = -1;
	memcpy(f->addr[d], pk->src, 16);
	memcpy(f->addr[!d], pk->dst, 16);
	f->port[d] = pk->sport;
	f->port[!d] = pk->dport;
	f->first_ns = t->now;
	for (int m = 0; m < WM_FLOW_COUNT; m++)
		flowstat_init(&f->m[m]);
	f->hnext = t->heads[h];
	t->heads[h] = id + 1;
	list_append(t, &t->open, f, id);
	watchagg_flow_start(t->g, f->sums);
	if (++t->r->cnt.flows_active > t->r->cnt.flows_active_peak)
		t->r->cnt.flows_active_peak = t->r->cnt.flows_active;
	*idp = id;
	return f;
}

/* ---- a segment ---- */

static void ring_push(struct flow *f, const struct tcpseg *s)
{
	struct watch_seg *w = &f->ring[f->ring_pos];
	int d = s->dir;

	*w = (struct watch_seg){
		.t_ns = s->t_ns, .seq = s->seq - f->isn[d], .len = s->len, .win = s->win,
		.flags = s->flags, .dir = s->dir,
		.ack = (f->have_isn & (1u << !d)) ? s->ack - f->isn[!d] : 0,
	};
	f->ring_pos = (uint8_t)((f->ring_pos + 1) % RING);
	if (f->ring_n < RING)
		f->ring_n++;
}

/* The handshake's options: window scale in effect when both SYNs had it
 * (each side's is set at its SYN only). */
static void handshake_opts(struct flow *f, const struct pkt_tcp *pk, struct tcpseg *s)
{
	int d = s->dir;

	if (s->flags & TCPSEG_F_SYN) {
		f->syns |= (uint8_t)(1u << d);
		f->ws[d] = pk->wscale;
		if (d == TCPSEG_C2S)
			f->syn_seq = s->seq;
	}
	s->win = tcpwire_window(s->win, f->ws[d], f->ws[!d], s->flags & TCPSEG_F_SYN);
}

static void flow_seg(struct flowtab *t, struct flow *f, uint32_t id, const struct pkt_tcp *pk)
{
	int d = is_end(f, TCPSEG_C2S, pk->src, pk->sport) ? TCPSEG_C2S : TCPSEG_S2C;
	struct tcpseg s = pk->seg;
	uint64_t rx;

	f->packets[d]++;
	f->bytes[d] += s.len;
	f->last_ns = t->now;
	list_unlink(t, &t->open, f);
	list_append(t, &t->open, f, id);
	if (pk->noflags) {
		f->cut++;
		t->r->cnt.unreadable++;
		return;
	}
	if (s.flags & TCPSEG_F_CUT) {
		f->cut++;
		t->r->cnt.cut++;
	}
	s.dir = (uint8_t)d;
	s.t_ns = t->now;
	handshake_opts(f, pk, &s);
	if (!(f->have_isn & (1u << d))) {
		f->isn[d] = s.seq;
		f->have_isn |= (uint8_t)(1u << d);
	}
	f->had_data |= s.len > 0;
	ring_push(f, &s);
	tcpana_seg(f->ana, &s);
	rx = tcpana_retransmits(f->ana);
	if (rx != f->rexmits) {
		watchagg_retransmits(t->g, f->sums, rx - f->rexmits);
		f->rexmits = rx;
	}
	if (!f->hs_taken && f->packets[0] + f->packets[1] <= 8) {
		int64_t hs = tcpana_handshake_ns(f->ana);

		if (hs >= 0) {
			f->hs_taken = true;
			watchagg_sample(t->g, f->sums, WM_HANDSHAKE, hs, t->r->all.flows);
		}
	}
	if (s.flags & TCPSEG_F_FIN)
		f->fins |= (uint8_t)(1u << d);
	if (s.flags & TCPSEG_F_RST)
		flow_end(t, f, id, WE_RST);
	else if (f->fins == 3)
		flow_end(t, f, id, WE_FIN);
}

/* A SYN on an existing flow's addresses: a new connection? */
static bool new_conn(const struct flow *f, const struct pkt_tcp *pk)
{
	uint16_t fl = pk->seg.flags;

	if (pk->noflags || !(fl & TCPSEG_F_SYN) || (fl & TCPSEG_F_ACK))
		return false;
	if (f->state == F_CLOSED)
		return true;
	return f->had_data || !(f->syns & 1) || pk->seg.seq != f->syn_seq;
}

void flowtab_packet(struct flowtab *t, const struct pkt_tcp *pk)
{
	uint32_t h = key_hash(t, pk->src, pk->sport, pk->dst, pk->dport), id;
	struct flow *f;

	if (pk->seg.t_ns < t->now)
		t->r->cnt.backwards++;
	else
		t->now = pk->seg.t_ns;
	if (t->now >= t->next_expiry)
		flowtab_expire(t, t->now);
	f = lookup(t, pk, h, &id);
	if (f && new_conn(f, pk)) {
		if (f->state == F_OPEN)
			flow_end(t, f, id, WE_REUSED);
		if (f->state != F_FREE)
			slot_free(t, f, id);
		f = NULL;
	}
	if (f && f->state == F_CLOSED) {
		t->r->cnt.after_close++;
		/* the ACK of the last FIN: the close is complete */
		if (f->fins == 3 && !pk->noflags && !pk->seg.len &&
		    (pk->seg.flags & (TCPSEG_F_ACK | TCPSEG_F_FIN)) == TCPSEG_F_ACK)
			slot_free(t, f, id);
		return;
	}
	if (!f)
		f = flow_new(t, pk, h, &id);
	if (f)
		flow_seg(t, f, id, pk);
}

void flowtab_expire(struct flowtab *t, int64_t now)
{
	t->next_expiry = now + EXPIRY_STEP_NS;
	while (t->open.head) {
		struct flow *f = slot(t, t->open.head - 1);

		if (now - f->last_ns <= t->p.idle_ns)
			break;
		flow_end(t, f, t->open.head - 1, WE_IDLE);
	}
	while (t->closed.head) {
		struct flow *f = slot(t, t->closed.head - 1);

		if (now - f->last_ns <= t->p.linger_ns)
			break;
		slot_free(t, f, t->closed.head - 1);
	}
}

void flowtab_end_all(struct flowtab *t, int64_t t_ns)
{
	if (t_ns > t->now)
		t->now = t_ns;
	while (t->open.head)
		flow_end(t, slot(t, t->open.head - 1), t->open.head - 1, WE_CAPTURE_END);
	while (t->closed.head)
		slot_free(t, slot(t, t->closed.head - 1), t->closed.head - 1);
	t->r->cnt.counters_peak = flowstat_pool_peak(t->pool);
}

int64_t flowtab_now(const struct flowtab *t)
{
	return t->now;
}

size_t flowtab_bytes(const struct flowtab *t)
{
	return (size_t)t->nslots * (sizeof(struct flow) + tcpana_size()) +
	       ((size_t)t->mask + 1) * sizeof(*t->heads) +
	       flowstat_pool_peak(t->pool) * HIST_SMALL_COUNTS * sizeof(uint32_t);
}

struct flowtab *flowtab_create(const struct flowtab_params *p, struct watchagg *g,
			       struct watch_report *r)
{
	struct flowtab *t = calloc(1, sizeof(*t));
	uint32_t nb = 1024;

	if (!t)
		return NULL;
	t->p = *p;
	t->g = g;
	t->r = r;
	while (nb < 2 * (uint64_t)p->max_flows && nb < (1u << 30))
		nb <<= 1;
	t->mask = nb - 1;
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != sizeof(t->seed))
		t->seed = 0x5851f42d4c957f2dULL;
	t->heads = calloc(nb, sizeof(*t->heads));
	t->chunk = calloc(((size_t)p->max_flows + CHUNK - 1) / CHUNK, sizeof(*t->chunk));
	t->pool = flowstat_pool_create(p->counters_max);
	if (!t->heads || !t->chunk || !t->pool) {
		flowtab_destroy(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void flowtab_destroy(struct flowtab *t)
{
	if (!t)
		return;
	for (uint32_t c = 0; c < t->nslots >> CHUNK_SHIFT; c++) {
		for (uint32_t i = 0; i < CHUNK; i++) {
			struct flow *f = &t->chunk[c][i];

			tcpana_destroy(f->ana);
			tcpana_tally_destroy(f->tally);
			free(f->tl);
			for (int m = 0; m < WM_FLOW_COUNT; m++)
				if (f->m[m].counts)
					flowstat_release(&f->m[m], t->pool);
		}
		free(t->chunk[c]);
	}
	free(t->chunk);
	free(t->heads);
	flowstat_pool_destroy(t->pool);
	free(t);
}
