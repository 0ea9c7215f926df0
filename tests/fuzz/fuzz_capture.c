// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: --pcap's cross-check (capmatch.h), as a capture full
 * of other traffic, corrupt frames and replayed messages may drive it.
 * Frames are parsed down to the run's message header in every format of
 * the table, and what parses meets rant's stamps in the matching table.
 *
 * The first byte picks the link type (low 3 bits), the format (next 3)
 * and the side (bit 6: the reflector, whose packets out are pongs). The
 * rest is records of [length: 2 bytes][op: 1 byte][bytes]:
 *   op 0  a frame as captured: parsed as the capture parses it (a ping,
 *         or, from the reflector's port, as a pong)
 *   op 1  a message the format encodes itself (session, seq and type
 *         from the record's first bytes) behind Ethernet, IPv4 and UDP,
 *         one byte then overwritten by the record's next two (offset,
 *         value): most of them parse, and the table sees the same keys
 *   op 2  rant's stamps of a transaction, op 3 one left out (the key
 *         from the record's bytes; stamps may be missing, TS_NONE)
 *   op 4  time goes on by the record's first byte in ms (expiry)
 * Two tables see the same events: one too small to hold them, with
 * expiry (its eviction and settling must hold); one big enough that
 * nothing settles early, checked against a model of the table written
 * here from capmatch.h's rules: every count must agree.
 */
#include <pcap/dlt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capmatch.h"
#include "msgfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PORT 4791
#define MODEL_MAX 2048

static const int dlts[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW, DLT_IPV4,
			    DLT_IPV6, DLT_NULL, DLT_EN10MB };

/* Each format set up for either side, once. */
static struct msgfmt_ctx ctxs[2][8];
static size_t nfmt;

static void init_ctxs(void)
{
	const struct msgfmt *f;
	char err[128];

	for (size_t i = 0; (f = msgfmt_nth(i)) && i < 8; i++, nfmt++)
		for (int emit = 0; emit < 2; emit++) {
			struct msgfmt_side side = { .emit = emit };

			if (msgfmt_init(&ctxs[emit][i], f, &side, err, sizeof(err)))
				abort();
		}
}

/* ---- the model: capmatch.h's rules over a plain list ---- */

struct mentry {
	uint32_t session;
	uint64_t seq;
	bool ping, pong, stamps, skip;
	int64_t ping_cap, pong_cap, ping_log, pong_log;
};

struct model {
	struct mentry e[MODEL_MAX];
	size_t n;
	uint8_t tx_type;
	struct capmatch_stats st;
};

static void model_count(struct capmatch_dir *d, bool captured, int64_t cap, int64_t log)
{
	if (captured && log != TS_NONE) {
		int64_t diff = ns_sub(log, cap);

		d->matched++;
		d->exact += diff == 0;
		d->min_diff_ns = diff < d->min_diff_ns ? diff : d->min_diff_ns;
		d->max_diff_ns = diff > d->max_diff_ns ? diff : d->max_diff_ns;
	} else if (captured) {
		d->only_in_capture++;
	} else if (log != TS_NONE) {
		d->only_in_log++;
	}
}

static struct capmatch_dir *model_dir(struct model *m, uint8_t type)
{
	return type == m->tx_type ? &m->st.tx : &m->st.rx;
}

static void model_settle(struct model *m, size_t i)
{
	const struct mentry *e = &m->e[i];

	if (!e->skip) {
		model_count(model_dir(m, MSG_PING), e->ping, e->ping_cap,
			    e->stamps ? e->ping_log : TS_NONE);
		model_count(model_dir(m, MSG_PONG), e->pong, e->pong_cap,
			    e->stamps ? e->pong_log : TS_NONE);
	}
	m->e[i] = m->e[--m->n];
}

/* The entry of (session, seq), made when absent; -1: the model is full. */
static long model_entry(struct model *m, uint32_t session, uint64_t seq)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].session == session && m->e[i].seq == seq)
			return (long)i;
	if (m->n == MODEL_MAX)
		return -1;
	m->e[m->n] = (struct mentry){ .session = session, .seq = seq };
	return (long)m->n++;
}

static void model_settle_if_complete(struct model *m, size_t i)
{
	const struct mentry *e = &m->e[i];

	if ((e->stamps || e->skip) && e->ping && e->pong)
		model_settle(m, i);
}

/* ---- one input ---- */

struct run {
	struct capmatch *small, *big;
	struct model *model;
	bool checked;		/* every event went to the model too */
	int64_t now;
};

/* The model's entry of (session, seq) for an event, or -1: the model is
 * not checked (any more: an input too long for it stops the check). */
static long run_entry(struct run *r, uint32_t session, uint64_t seq)
{
	long i = r->checked ? model_entry(r->model, session, seq) : -1;

	r->checked = i >= 0;
	return i;
}

static void ev_packet(struct run *r, uint32_t session, uint64_t seq, uint8_t type, int64_t ts)
{
	struct mentry *e;
	bool *have;
	long i;

	capmatch_packet(r->small, session, seq, type, ts, r->now);
	capmatch_packet(r->big, session, seq, type, ts, r->now);
	if ((i = run_entry(r, session, seq)) < 0)
		return;
	e = &r->model->e[i];
	have = type == MSG_PING ? &e->ping : &e->pong;
	if (*have) {
		r->model->st.duplicates++;
		model_dir(r->model, type)->only_in_capture++;
		return;
	}
	*have = true;
	*(type == MSG_PING ? &e->ping_cap : &e->pong_cap) = ts;
	model_settle_if_complete(r->model, (size_t)i);
}

static void ev_stamps(struct run *r, uint32_t session, uint64_t seq, bool skip,
		      int64_t ping_ns, int64_t pong_ns)
{
	struct mentry *e;
	long i;

	if (skip) {
		capmatch_skip(r->small, session, seq, r->now);
		capmatch_skip(r->big, session, seq, r->now);
	} else {
		capmatch_stamps(r->small, session, seq, ping_ns, pong_ns, r->now);
		capmatch_stamps(r->big, session, seq, ping_ns, pong_ns, r->now);
	}
	if ((i = run_entry(r, session, seq)) < 0)
		return;
	e = &r->model->e[i];
	if (skip) {
		e->skip = true;
	} else {
		e->stamps = true;
		e->ping_log = ping_ns;
		e->pong_log = pong_ns;
	}
	model_settle_if_complete(r->model, (size_t)i);
}

/* A frame as the capture reads it (capture.c's order of checks). */
static void ev_frame(struct run *r, const uint8_t *f, size_t len, int dlt,
		     const struct msgfmt_ctx *fmt, int64_t ts)
{
	struct capmatch_pkt pkt;

	if (capmatch_parse(f, len, dlt, fmt, &pkt))
		return;
	if (pkt.type == MSG_PING && pkt.sport == PORT && pkt.dport != PORT &&
	    capmatch_parse_as(f, len, dlt, fmt, MSG_PONG, &pkt))
		return;
	if (pkt.type != MSG_PING && pkt.type != MSG_PONG)
		abort();
	if (pkt.flags & MSG_F_WARMUP)
		return;
	ev_packet(r, pkt.session, pkt.seq, pkt.type, ts);
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A message of the format's own making behind Ethernet, IPv4 and UDP,
 * then one byte of it overwritten. */
static void ev_built(struct run *r, const uint8_t *b, size_t len, struct msgfmt_ctx *fmt,
		     int64_t ts)
{
	static uint8_t f[14 + 20 + 8 + 2048];
	const size_t off = 14 + 20 + 8;
	struct msg_hdr h = { 0 };
	uint32_t wire;
	bool pong;

	if (len < 6)
		return;
	pong = b[0] & 1;
	h.type = MSG_PING;
	h.session = b[1] & 3;
	h.flags = b[0] & 2 ? MSG_F_WARMUP : 0;
	wire = msgfmt_wire_len(fmt, 72);
	if (wire > sizeof(f) - off)
		return;
	h.len = wire;
	memset(f, 0, sizeof(f));
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 14 + 2, (uint16_t)(20 + 8 + wire));
	f[14 + 8] = 64;
	f[14 + 9] = 17;
	put16(f + 14 + 20, pong ? PORT : 40000);
	put16(f + 14 + 20 + 2, pong ? 40000 : PORT);
	put16(f + 14 + 20 + 4, (uint16_t)(8 + wire));
	msgfmt_put_ping(fmt, f + off, &h);
	msgfmt_set_seq(fmt, f + off, b[2], ts);
	if (pong) {
		const struct msg_body body = { .t2_wire = ts, .t3_sw = ts };
		struct msg_hdr ping;

		if (msgfmt_parse(fmt, f + off, wire, MSG_PING, &ping))
			abort();	/* the format will not take its own ping back */
		msgfmt_put_pong(fmt, f + off, &ping, 0, &body);
	}
	if (b[3] < 14 + 20 + 8 + wire && b[5] & 1)
		f[b[3]] = b[4];
	ev_frame(r, f, off + wire, DLT_EN10MB, fmt, ts);
}

static void check(const struct run *r)
{
	const struct capmatch_stats *s = capmatch_stats(r->big);
	const struct capmatch_stats *m = &r->model->st;

	if (capmatch_pending(r->small) || capmatch_pending(r->big))
		abort();
	if (s->evicted)
		abort();	/* the big table never needs room */
	if (!r->checked)
		return;
	if (s->duplicates != m->duplicates)
		abort();
	for (int d = 0; d < 2; d++) {
		const struct capmatch_dir *a = d ? &s->rx : &s->tx;
		const struct capmatch_dir *b = d ? &m->rx : &m->tx;

		if (a->matched != b->matched || a->exact != b->exact ||
		    a->only_in_log != b->only_in_log || a->only_in_capture != b->only_in_capture ||
		    (a->matched && (a->min_diff_ns != b->min_diff_ns ||
				    a->max_diff_ns != b->max_diff_ns)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model model;
	struct run r = { .model = &model, .checked = true, .now = 1000000000LL };
	struct msgfmt_ctx *fmt;
	size_t off = 1;
	uint8_t tx_type;
	int dlt;

	if (size < 1)
		return 0;
	if (!nfmt)
		init_ctxs();
	dlt = dlts[data[0] & 7];
	fmt = &ctxs[!(data[0] & 0x40)][(data[0] >> 3 & 7) % nfmt];
	tx_type = data[0] & 0x40 ? MSG_PONG : MSG_PING;
	memset(&model, 0, sizeof(model));
	model.tx_type = tx_type;
	model.st.tx.min_diff_ns = model.st.rx.min_diff_ns = INT64_MAX;
	model.st.tx.max_diff_ns = model.st.rx.max_diff_ns = INT64_MIN;
	r.small = capmatch_create(4, tx_type);
	r.big = capmatch_create(4 * MODEL_MAX, tx_type);
	if (!r.small || !r.big)
		abort();
	while (off + 3 <= size) {
		size_t len = be16(data + off);
		uint8_t op = data[off + 2];
		const uint8_t *b = data + off + 3;
		int64_t ts = r.now + (int64_t)(op >> 4) * 1000;

		off += 3;
		if (len > size - off)
			len = size - off;
		switch (op & 7) {
		case 0:
			ev_frame(&r, b, len, dlt, fmt, ts);
			break;
		case 1:
			ev_built(&r, b, len, fmt, ts);
			break;
		case 2:
		case 3:
			if (len >= 4)
				ev_stamps(&r, b[0] & 3, b[1], (op & 7) == 3,
					  b[2] & 1 ? TS_NONE : ts + (b[2] >> 1),
					  b[3] & 1 ? TS_NONE : ts + (b[3] >> 1));
			break;
		case 4:
			r.now += (int64_t)(len ? b[0] : 1) * 1000000;
			capmatch_expire(r.small, r.now, 50 * 1000000LL);
			break;
		default:
			break;
		}
		off += len;
	}
	capmatch_finish(r.small);
	capmatch_finish(r.big);
	while (model.n)
		model_settle(&model, 0);
	check(&r);
	capmatch_destroy(r.small);
	capmatch_destroy(r.big);
	return 0;
}
