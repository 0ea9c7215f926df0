// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --pcap cross-check (see capmatch.h): frames parsed down to rant's
 * header (to UDP by pktparse.h's steps), and a table where captured
 * packets meet rant's stamps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "capmatch.h"
#include "pktparse.h"

#define UDP_HLEN 8
#define PROTO_UDP 17

/* want: MSG_PING or MSG_PONG only; 0 (none): a ping, else a pong. */
static int parse_frame(const uint8_t *frame, size_t caplen, int dlt,
		       const struct msgfmt_ctx *fmt, enum msg_type want,
		       struct capmatch_pkt *pkt)
{
	uint32_t hdr = fmt->f->caps.parse_len;
	struct msg_hdr h;
	struct pkt_l4 l4;
	const uint8_t *u;
	uint16_t udp_len;

	/* a later fragment holds no UDP header */
	if (caplen > UINT32_MAX ||
	    pktparse_l4(dlt, frame, (uint32_t)caplen, (uint32_t)caplen, &l4) != PKT_NOT_TCP ||
	    l4.proto != PROTO_UDP || l4.frag == PKT_FRAG_LATER ||
	    caplen < (size_t)l4.off + UDP_HLEN + hdr)
		return -1;
	u = frame + l4.off;
	udp_len = be_get16(u + 4);
	if (udp_len < UDP_HLEN + hdr)
		return -1;
	/*
	 * The format's parse reads its header only (captured, parse_len
	 * bytes); the length it checks the header against is the
	 * datagram's, from UDP.
	 */
	if ((want == MSG_PONG ||
	     msgfmt_parse(fmt, u + UDP_HLEN, udp_len - UDP_HLEN, MSG_PING, &h)) &&
	    (want == MSG_PING ||
	     msgfmt_parse(fmt, u + UDP_HLEN, udp_len - UDP_HLEN, MSG_PONG, &h)))
		return -1;
	pkt->session = h.session;
	pkt->seq = h.seq;
	pkt->type = h.type;
	pkt->flags = h.flags;
	pkt->sport = be_get16(u);
	pkt->dport = be_get16(u + 2);
	return 0;
}

int capmatch_parse(const uint8_t *frame, size_t caplen, int dlt,
		   const struct msgfmt_ctx *fmt, struct capmatch_pkt *pkt)
{
	return parse_frame(frame, caplen, dlt, fmt, 0, pkt);
}

int capmatch_parse_as(const uint8_t *frame, size_t caplen, int dlt,
		      const struct msgfmt_ctx *fmt, enum msg_type want,
		      struct capmatch_pkt *pkt)
{
	return parse_frame(frame, caplen, dlt, fmt, want, pkt);
}

/* ---- the table ---- */

enum {
	E_USED = 1 << 0,
	E_PING = 1 << 1,	/* ping captured */
	E_PONG = 1 << 2,	/* pong captured */
	E_STAMPS = 1 << 3,	/* rant's stamps in */
	E_SKIP = 1 << 4,	/* left out by rant: not counted */
};

struct entry {
	uint64_t seq;
	uint32_t session;
	uint32_t have;		/* E_* */
	int64_t ping_cap, pong_cap;	/* the capture's stamps */
	int64_t ping_log, pong_log;	/* rant's */
	int64_t born_ns;
};

struct capmatch {
	struct entry *e;
	size_t mask;		/* slots - 1 */
	size_t used, limit;	/* entries now; at most this many */
	uint8_t tx_type;
	struct capmatch_stats st;
};

static void dir_init(struct capmatch_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->min_diff_ns = INT64_MAX;
	d->max_diff_ns = INT64_MIN;
}

struct capmatch *capmatch_create(size_t cap, uint8_t tx_type)
{
	struct capmatch *m = calloc(1, sizeof(*m));
	size_t slots = 16;

	if (!m)
		return NULL;
	while (slots < cap && slots < ((size_t)1 << 30))
		slots <<= 1;
	m->e = calloc(slots, sizeof(*m->e));
	if (!m->e) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->mask = slots - 1;
	m->limit = slots / 4 * 3;
	m->tx_type = tx_type;
	dir_init(&m->st.tx);
	dir_init(&m->st.rx);
	return m;
}

void capmatch_destroy(struct capmatch *m)
{
	if (!m)
		return;
	free(m->e);
	free(m);
}

static size_t slot_of(const struct capmatch *m, uint32_t session, uint64_t seq)
{
	uint64_t x = seq ^ ((uint64_t)session << 32 | session);

	/* splitmix64's finalizer */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (size_t)(x ^ (x >> 31)) & m->mask;
}

/* Remove slot i (linear probing: later entries of the run shift back). */
static void remove_at(struct capmatch *m, size_t i)
{
	size_t j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & m->mask;
		if (!(m->e[j].have & E_USED))
			break;
		home = slot_of(m, m->e[j].session, m->e[j].seq);
		/* j may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->e[i] = m->e[j];
		i = j;
	}
	memset(&m->e[i], 0, sizeof(m->e[i]));
	m->used--;
}

/* One packet's outcome into its direction's counts. */
static void count_packet(struct capmatch_dir *d, bool captured, int64_t cap_ns,
			 int64_t log_ns)
{
	int64_t diff;

	if (captured && log_ns != TS_NONE) {
		diff = ns_sub(log_ns, cap_ns);
		d->matched++;
		d->exact += diff == 0;
		if (diff < d->min_diff_ns)
			d->min_diff_ns = diff;
		if (diff > d->max_diff_ns)
			d->max_diff_ns = diff;
		d->sum_diff_ns += (double)diff;
	} else if (captured) {
		d->only_in_capture++;
	} else if (log_ns != TS_NONE) {
		d->only_in_log++;
	}
}

static struct capmatch_dir *dir_of(struct capmatch *m, uint8_t type)
{
	return type == m->tx_type ? &m->st.tx : &m->st.rx;
}

static void settle_at(struct capmatch *m, size_t i)
{
	const struct entry *e = &m->e[i];

	if (!(e->have & E_SKIP)) {
		int64_t ping_log = e->have & E_STAMPS ? e->ping_log : TS_NONE;
		int64_t pong_log = e->have & E_STAMPS ? e->pong_log : TS_NONE;

		count_packet(dir_of(m, MSG_PING), e->have & E_PING, e->ping_cap, ping_log);
		count_packet(dir_of(m, MSG_PONG), e->have & E_PONG, e->pong_cap, pong_log);
	}
	remove_at(m, i);
}

/* Settle every entry born at or before cut_ns; returns how many. */
static size_t settle_older(struct capmatch *m, int64_t cut_ns)
{
	size_t n = 0;

	for (size_t i = 0; i <= m->mask;) {
		const struct entry *e = &m->e[i];

		if ((e->have & E_USED) && e->born_ns <= cut_ns) {
			settle_at(m, i);
			n++;
			continue;	/* slot i may hold a shifted entry now */
		}
		i++;
	}
	return n;
}

/* The table is full: settle the older half (by birth) early. */
static void make_room(struct capmatch *m)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i <= m->mask; i++) {
		if (!(m->e[i].have & E_USED))
			continue;
		if (m->e[i].born_ns < lo)
			lo = m->e[i].born_ns;
		if (m->e[i].born_ns > hi)
			hi = m->e[i].born_ns;
	}
	m->st.evicted += settle_older(m, lo + (hi - lo) / 2);
}

/* The entry of (session, seq), created when absent. */
static size_t entry_for(struct capmatch *m, uint32_t session, uint64_t seq,
			int64_t now_ns)
{
	size_t i;

	for (;;) {
		for (i = slot_of(m, session, seq); m->e[i].have & E_USED; i = (i + 1) & m->mask)
			if (m->e[i].session == session && m->e[i].seq == seq)
				return i;
		if (m->used < m->limit)
			break;
		make_room(m);
	}
	m->e[i] = (struct entry){ .seq = seq, .session = session, .have = E_USED,
				  .born_ns = now_ns };
	m->used++;
	return i;
}

/* Settle entry i if nothing more can come for it. */
static void settle_if_complete(struct capmatch *m, size_t i)
{
	uint32_t h = m->e[i].have;

	if ((h & (E_STAMPS | E_SKIP)) && (h & E_PING) && (h & E_PONG))
		settle_at(m, i);
}

void capmatch_packet(struct capmatch *m, uint32_t session, uint64_t seq,
		     uint8_t type, int64_t ts_ns, int64_t now_ns)
{
	uint32_t bit = type == MSG_PING ? E_PING : E_PONG;
	size_t i;

	if (type != MSG_PING && type != MSG_PONG)
		return;
	i = entry_for(m, session, seq, now_ns);
	if (m->e[i].have & bit) {
		m->st.duplicates++;
		dir_of(m, type)->only_in_capture++;
		return;
	}
	m->e[i].have |= bit;
	if (bit == E_PING)
		m->e[i].ping_cap = ts_ns;
	else
		m->e[i].pong_cap = ts_ns;
	settle_if_complete(m, i);
}

void capmatch_stamps(struct capmatch *m, uint32_t session, uint64_t seq,
		     int64_t ping_ns, int64_t pong_ns, int64_t now_ns)
{
	size_t i = entry_for(m, session, seq, now_ns);

	m->e[i].have |= E_STAMPS;
	m->e[i].ping_log = ping_ns;
	m->e[i].pong_log = pong_ns;
	settle_if_complete(m, i);
}

void capmatch_skip(struct capmatch *m, uint32_t session, uint64_t seq,
		   int64_t now_ns)
{
	size_t i = entry_for(m, session, seq, now_ns);

	m->e[i].have |= E_SKIP;
	settle_if_complete(m, i);
}

void capmatch_expire(struct capmatch *m, int64_t now_ns, int64_t horizon_ns)
{
	if (m->used)
		settle_older(m, ns_sub(now_ns, horizon_ns));
}

void capmatch_finish(struct capmatch *m)
{
	if (m->used)
		settle_older(m, INT64_MAX);
}

const struct capmatch_stats *capmatch_stats(const struct capmatch *m)
{
	return &m->st;
}

size_t capmatch_pending(const struct capmatch *m)
{
	return m->used;
}
