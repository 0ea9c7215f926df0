// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant wire format: encoding and validation (layout in wire.h), and its
 * row of the message-format interface (msgfmt.h).
 */
#include <string.h>

#include "be.h"
#include "hostid.h"
#include "wire.h"

enum {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_TYPE = 5,
	OFF_FLAGS = 6,
	OFF_SESSION = 8,
	OFF_LEN = 12,
	OFF_SEQ = 16,
	OFF_T1_SW = 24,
	OFF_T2_WIRE = 32,
	OFF_T2_SW = 40,
	OFF_T3_SW = 48,
	OFF_FU_SEQ = 56,
	OFF_FU_T3_WIRE = 64,
	OFF_REPORT_VERSION = 72,
	OFF_REPORT_SEND_ERRORS = 80,
	OFF_REPORT_QDISC_DROPS = 88,
	OFF_REPORT_QUEUE_MAX = 96,
};

_Static_assert(MSG_PING == 1 && MSG_PONG == 2, "the type octet carries enum msg_type");
_Static_assert(!((MSG_F_WARMUP | MSG_F_WANT_SW | MSG_F_MAC | MSG_F_WANT_REPORT | MSG_F_FETCH |
		  MSG_F_HOST | MSG_F_REPORT) & ~WIRE_F_PING_MASK) &&
	       !((MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW | MSG_F_FU | MSG_F_FU_HW |
		  MSG_F_CLOCK_BAD) & WIRE_F_PING_MASK),
	       "ping flags in the low octet, pong flags in the high one");

void wire_put_hdr(void *buf, const struct msg_hdr *h)
{
	uint8_t *p = buf;

	memcpy(p + OFF_MAGIC, WIRE_MAGIC, 4);
	p[OFF_VERSION] = WIRE_VERSION;
	p[OFF_TYPE] = h->type;
	be_put16(p + OFF_FLAGS, h->flags);
	be_put32(p + OFF_SESSION, h->session);
	be_put32(p + OFF_LEN, h->len);
	be_put64(p + OFF_SEQ, h->seq);
	be_put64(p + OFF_T1_SW, (uint64_t)h->t1_sw);
}

void wire_put_body(void *buf, const struct msg_body *b)
{
	uint8_t *p = buf;

	be_put64(p + OFF_T2_WIRE, (uint64_t)b->t2_wire);
	be_put64(p + OFF_T2_SW, (uint64_t)b->t2_sw);
	be_put64(p + OFF_T3_SW, (uint64_t)b->t3_sw);
	be_put64(p + OFF_FU_SEQ, b->fu_seq);
	be_put64(p + OFF_FU_T3_WIRE, (uint64_t)b->fu_t3_wire);
}

void wire_set_seq(void *buf, uint64_t seq, int64_t t1_sw)
{
	uint8_t *p = buf;

	be_put64(p + OFF_SEQ, seq);
	be_put64(p + OFF_T1_SW, (uint64_t)t1_sw);
}

uint64_t wire_get_seq(const void *buf, size_t len)
{
	return len < WIRE_HDR_LEN ? 0 : be_get64((const uint8_t *)buf + OFF_SEQ);
}

int wire_parse(const void *buf, size_t n, enum msg_type want,
	       struct msg_hdr *h)
{
	const uint8_t *p = buf;

	if (n < WIRE_HDR_LEN)
		return -MSG_ESHORT;
	if (memcmp(p + OFF_MAGIC, WIRE_MAGIC, 4))
		return -MSG_EMAGIC;
	if (p[OFF_VERSION] != WIRE_VERSION)
		return -MSG_EVERSION;
	if (p[OFF_TYPE] != want)
		return -MSG_ETYPE;
	if (be_get32(p + OFF_LEN) != n)
		return -MSG_ELEN;

	h->type = p[OFF_TYPE];
	h->flags = be_get16(p + OFF_FLAGS);
	h->session = be_get32(p + OFF_SESSION);
	h->len = (uint32_t)n;
	h->seq = be_get64(p + OFF_SEQ);
	h->t1_sw = (int64_t)be_get64(p + OFF_T1_SW);
	return 0;
}

int wire_parse_body(const void *buf, size_t n, struct msg_body *b)
{
	const uint8_t *p = buf;

	if (n < WIRE_PONG_LEN)
		return -MSG_ESHORT;
	b->t2_wire = (int64_t)be_get64(p + OFF_T2_WIRE);
	b->t2_sw = (int64_t)be_get64(p + OFF_T2_SW);
	b->t3_sw = (int64_t)be_get64(p + OFF_T3_SW);
	b->fu_seq = be_get64(p + OFF_FU_SEQ);
	b->fu_t3_wire = (int64_t)be_get64(p + OFF_FU_T3_WIRE);
	return 0;
}

void wire_put_report(void *buf, const struct msg_report *r)
{
	uint8_t *p = buf;

	memset(p + OFF_REPORT_VERSION, 0, OFF_REPORT_SEND_ERRORS - OFF_REPORT_VERSION);
	p[OFF_REPORT_VERSION] = WIRE_REPORT_VERSION;
	be_put64(p + OFF_REPORT_SEND_ERRORS, r->send_errors);
	be_put64(p + OFF_REPORT_QDISC_DROPS, r->qdisc_drops);
	be_put64(p + OFF_REPORT_QUEUE_MAX, (uint64_t)r->queue_max_ns);
}

int wire_parse_report(const void *buf, size_t n, struct msg_report *r)
{
	const uint8_t *p = buf;

	if (n < WIRE_REPORT_LEN)
		return -MSG_ESHORT;
	if (p[OFF_REPORT_VERSION] != WIRE_REPORT_VERSION)
		return -MSG_EVERSION;
	r->send_errors = be_get64(p + OFF_REPORT_SEND_ERRORS);
	r->qdisc_drops = be_get64(p + OFF_REPORT_QDISC_DROPS);
	r->queue_max_ns = (int64_t)be_get64(p + OFF_REPORT_QUEUE_MAX);
	return 0;
}

/* ---- msgfmt_rant: the interface's ops ---- */

/* The bytes before the MAC, where the body must fit. */
static size_t room(const struct msgfmt_ctx *ctx, size_t len)
{
	return ctx->mac && len >= WIRE_MAC_LEN ? len - WIRE_MAC_LEN : len;
}

static void rant_put_ping(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *h)
{
	(void)ctx;
	wire_put_hdr(buf, h);
}

static void rant_set_seq(struct msgfmt_ctx *ctx, void *buf, uint64_t seq, int64_t t1_sw)
{
	(void)ctx;
	wire_set_seq(buf, seq, t1_sw);
}

static uint64_t rant_get_seq(const struct msgfmt_ctx *ctx, const void *buf, size_t len,
			     int64_t *t1_sw)
{
	(void)ctx;
	*t1_sw = len < WIRE_HDR_LEN ? 0 :
		 (int64_t)be_get64((const uint8_t *)buf + OFF_T1_SW);
	return wire_get_seq(buf, len);
}

static int rant_parse(const struct msgfmt_ctx *ctx, const void *buf, size_t n,
		      enum msg_type want, struct msg_hdr *h)
{
	(void)ctx;
	return wire_parse(buf, n, want, h);
}

/* The ping's flags echoed (the MAC's only with --key: without, the
 * emitter can tell), the pong's added. A warm-up pong with a body
 * carries the reflector's host tag in T2_SW's place (wire.h). In place:
 * the ping's bytes (checked by rant_parse) keep its magic, version,
 * session, length, seq and T1_SW; only the type and the flags change
 * in the header, between the reflector's receive and its send. */
/* A warm-up pong's body with the host tag in T2_SW's place (no call of
 * it on a measured ping's path: its copy of the body stays here). */
static __attribute__((noinline)) void put_tagged_body(const struct msgfmt_ctx *ctx,
						      void *buf, uint32_t session,
						      const struct msg_body *b)
{
	struct msg_body t = *b;

	t.t2_sw = (int64_t)hostid_tag(ctx->host_key, session);
	t.t3_sw = 0;
	wire_put_body(buf, &t);
}

static void rant_put_pong(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *ping,
			  uint16_t flags, const struct msg_body *b)
{
	uint8_t *p = buf;
	bool body = room(ctx, ping->len) >= WIRE_PONG_LEN;
	bool tag = body && ctx->host_known && (ping->flags & MSG_F_WARMUP);
	bool report = (flags & MSG_F_REPORT) && (ping->flags & MSG_F_WANT_REPORT) &&
		      room(ctx, ping->len) >= WIRE_REPORT_LEN;
	uint16_t f = (uint16_t)((ping->flags & WIRE_F_PING_MASK & ~(ctx->mac ? 0 : MSG_F_MAC) &
				 ~(MSG_F_HOST | MSG_F_REPORT)) | (flags & ~WIRE_F_PING_MASK));

	if (tag)
		f = (uint16_t)((f & ~MSG_F_SW) | MSG_F_HOST);
	if (report) {
		f |= MSG_F_REPORT;
		wire_put_report(buf, &b->report);
	}
	p[OFF_TYPE] = MSG_PONG;
	be_put16(p + OFF_FLAGS, f);
	if (tag)
		put_tagged_body(ctx, buf, ping->session, b);
	else if (body)
		wire_put_body(buf, b);
}

static int rant_parse_body(const struct msgfmt_ctx *ctx, const void *buf,
			   const struct msg_hdr *h, struct msg_body *b)
{
	int ret = wire_parse_body(buf, room(ctx, h->len), b);

	memset(&b->report, 0, sizeof(b->report));
	if (!ret && (h->flags & MSG_F_REPORT))
		b->report.have = !wire_parse_report(buf, room(ctx, h->len), &b->report);
	b->host_tag = 0;
	if (!ret && (h->flags & MSG_F_HOST)) {
		b->host_tag = (uint64_t)b->t2_sw;
		b->t2_sw = b->t3_sw = 0;
	}
	return ret;
}

static struct msgfmt_span rant_mac_span(const struct msgfmt_ctx *ctx, size_t len)
{
	(void)ctx;
	return (struct msgfmt_span){ .off = 0, .len = len };
}

const struct msgfmt msgfmt_rant = {
	.name = "rant",
	.caps = {
		.overhead = 0,
		.min_len = WIRE_HDR_LEN,
		.body_len = WIRE_PONG_LEN,
		.auth_min_len = WIRE_AUTH_MIN_LEN,
		.auth_body_len = WIRE_AUTH_PONG_LEN,
		.report_len = WIRE_REPORT_LEN,
		.auth_report_len = WIRE_AUTH_REPORT_LEN,
		.parse_len = WIRE_HDR_LEN,
		.seq_mask = UINT64_MAX,
		.reflector_stamps = true,
		.follow_up = true,
		.refusal = true,
		.ts = MSGFMT_TS_NS64,
	},
	.put_ping = rant_put_ping,
	.set_seq = rant_set_seq,
	.get_seq = rant_get_seq,
	.parse = rant_parse,
	.put_pong = rant_put_pong,
	.parse_body = rant_parse_body,
	.mac_span = rant_mac_span,
};
