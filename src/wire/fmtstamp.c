// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --stamp: the message format (msgfmt.h: msgfmt_stamp) that speaks STAMP
 * (RFC 8762, RFC 8972) through the codec of stamp.c. What maps onto what:
 *
 *   msg_hdr.seq      the Session-Sender's Sequence Number (32 bits); in a
 *                    pong the echoed one, so pongs match pings as in
 *                    rant's own format
 *   msg_hdr.session  the SSID (--ssid, else a random non-zero one); a
 *                    reply with SSID 0 (a reflector that does not know
 *                    RFC 8972) counts as this run's
 *   msg_hdr.t1_sw    the sender's Timestamp (T1 as it was sent)
 *   msg_body.t2_wire the reflector's Receive Timestamp (T2); MSG_F_T2_HW
 *                    (in msg_body.flags: a TLV tells) when its Timestamp
 *                    Information TLV says HW assist
 *   msg_body.fu_*    the Follow-Up Telemetry TLV (MSG_F_FU in
 *                    msg_body.flags): the wire T3 of the reflector's
 *                    previous reply (a stateful reflector's)
 *   msg_body.t3_wire the reply's own Timestamp (T3), always; MSG_F_T3
 *                    in msg_body.flags: from a reflector that sends no
 *                    follow-up
 *
 * A STAMP reflector reports no SW stamps (T2_SW, T3_SW): pongs never
 * carry MSG_F_SW, so they stay unknown. The reply's own Timestamp is the
 * best T3 its reflector had before the packet left (rant's: a SW stamp;
 * a router's may be its NIC's, its Timestamp Information tells). Which
 * T3 the emitter takes:
 *   - the reflector understood Follow-Up Telemetry (a reflector of RFC
 *     8972, rant's own): the wire T3 of the follow-up, which comes with
 *     the next reply; the reply's own is not taken, so that it never
 *     stands in for the follow-up; but a reflector that zeroed the TLV
 *     in every reply of the warm-up is stateless (RFC 8972 §4.7) and
 *     will send none: the emitter takes the reply's own then
 *     (stamppeer_stateless(), emitpong.c), named as what it is;
 *   - it did not (a reflector that knows no TLVs: TWAMP-Light, a router's
 *     STAMP; TLVs returned with U; a ping too short for TLVs; TLVs failing
 *     their HMAC): no follow-up will come, and the reply's own Timestamp
 *     is this pong's T3 (MSG_F_T3).
 *
 * Sequence numbers of the follow-up: the TLV names the reflector's
 * previous reply by the reflector's own sequence number (RFC 8972 §4.7),
 * which no arithmetic on the sender's numbers gives back once a ping is
 * lost or repeated. The reflector keeps that number with each follow-up
 * (msg_body.fu_pong_no); the emitter learns each reply's number from the
 * reply itself (msg_body.pong_no) and finds the ping a follow-up names
 * by it (caps.fu_by_pong_no; emitpong.c).
 *
 * The message is the whole datagram (no overhead). --key: mac_span is
 * the base packet's HMAC (octets 0-95, HMAC at 96); the HMAC TLV, when
 * TLVs travel, is signed and checked here with msgfmt_side.key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

#include "be.h"
#include "msgfmt.h"
#include "stamp.h"
#include "timeutil.h"

/* rant's loops number pings from 1 (0: none yet); STAMP's Sequence
 * Number starts at 0 (RFC 8762 §4.2.1): the wire carries seq - SEQ_BIAS. */
#define SEQ_BIAS 1

/*
 * The open reflector's kept answer. A sender sends the same TLVs in
 * every request of a run (their values zeros or padding until the
 * reflector fills them), so the TLVs of the reply to a request like the
 * last one are the octets of the last reply. A request is like it when
 * it is as long and its octets after the base are the same, and its
 * reply is made with the same stamp method for T2 and the same clock
 * sources (which Timestamp Information tells). Such a reply is its base
 * (stamp_reflect_base()), the kept octets, and a stateful reflector's
 * Follow-Up Telemetry value: none of the reflection's TLV walks. Every
 * other request is answered by stamp_reflect() and its answer kept for
 * the next. Not under a key: the HMAC TLV covers the sequence number.
 */
#define MEMO_MAX 128	/* octets of TLVs kept at most */

struct stamp_memo {
	uint32_t len;		/* of the request answered, 0: nothing kept */
	uint32_t fu_off;	/* stateful: the value of the understood Follow-Up
				 * Telemetry TLV in the reply, 0: none */
	uint32_t dm_off;	/* the understood Direct Measurement TLV's (its
				 * S_TxC differs from request to request) */
	uint32_t cos_off;	/* the understood Class of Service TLV's */
	enum stamp_method t2_method;
	enum stamp_sync sync_sw, sync_hw;
	bool tos_known;		/* its request's TOS was (Class of Service) */
	uint8_t req[MEMO_MAX];	/* the request's octets after the base */
	uint8_t rep[MEMO_MAX];	/* the reply's */
};

struct stamp_priv {
	/* the codec's set-up, kept for every reply: rf.key --key (NULL:
	 * open mode), rf.stateful a reflector's own sequence numbers,
	 * rf.sync_* the system clock's source; rf.ee set per reply */
	struct stamp_reflector rf;
	enum stamp_tsfmt fmt;		/* this side's timestamps */
	uint16_t ee;			/* the system clock's Error Estimate */
	uint16_t ee_hw;			/* the NIC clock's, while its check passes */
	uint16_t ssid;			/* emitter: --ssid, 0: random */
	uint16_t session;		/* emitter: the SSID put_ping wrote */
	unsigned int want;		/* emitter: STAMP_WANT_* of the ping */
	uint32_t len;			/* emitter: the ping's length */
	uint16_t dm_off;		/* emitter: its Direct Measurement value, 0: none */
	uint8_t dscp;			/* emitter: the ping's (Class of Service's DSCP1) */
	int64_t phc_bound_ns;		/* --max-clock-offset */
	int64_t ee_due_ns;		/* when to read the clock's state again */
	struct stamp_memo *memo;	/* reflector, open mode: the kept answer */
};

_Static_assert(sizeof(struct stamp_priv) <= MSGFMT_PRIV_LEN, "fits struct msgfmt_ctx");

static struct stamp_priv *priv_rw(struct msgfmt_ctx *ctx)
{
	return (struct stamp_priv *)ctx->priv.b;
}

static const struct stamp_priv *priv(const struct msgfmt_ctx *ctx)
{
	return (const struct stamp_priv *)ctx->priv.b;
}

/* Where the sender's Timestamp and Error Estimate are. */
static size_t off_t1(bool mac)
{
	return mac ? 16 : 4;
}

/* How often the clock's state is read again (a reflector runs for days,
 * and a clock gains or loses its synchronization). */
#define EE_EVERY_NS NS_PER_SEC

/*
 * The Error Estimates, honestly (stamp_ee_clock()): from what adjtimex
 * says of the system clock now, for stamps of the system clock and for a
 * NIC's (whose clock may be --max-clock-offset from it while the checks
 * of clock.c pass; a pong whose PHC fails them says so, put_pong()).
 * Read at set-up and then once a second from the loop, at a packet: one
 * system call that reads, nothing more.
 */
static void stamp_clock(struct stamp_priv *p, int64_t now_ns)
{
	struct timex tx = { 0 };
	int state = adjtimex(&tx);

	p->ee = stamp_ee_clock(state, tx.status, tx.maxerror, 0, p->fmt);
	p->ee_hw = stamp_ee_clock(state, tx.status, tx.maxerror, p->phc_bound_ns, p->fmt);
	p->rf.sync_sw = stamp_ee_synced(p->ee) ? STAMP_SYNC_NTP : STAMP_SYNC_LOCAL;
	p->rf.sync_hw = p->rf.sync_sw;
	p->ee_due_ns = now_ns + EE_EVERY_NS;
}

/* Whether the clock's state is to be read again (its second is over, or
 * the clock stepped back). */
static inline bool stamp_clock_stale(const struct stamp_priv *p, int64_t now_ns)
{
	return now_ns >= p->ee_due_ns || now_ns < p->ee_due_ns - EE_EVERY_NS;
}

static inline void stamp_clock_due(struct stamp_priv *p, int64_t now_ns)
{
	if (stamp_clock_stale(p, now_ns))
		stamp_clock(p, now_ns);
}

static int stamp_init(struct msgfmt_ctx *ctx, const struct msgfmt_side *side, char *err,
		      size_t len)
{
	struct stamp_priv *p = priv_rw(ctx);

	memset(p, 0, sizeof(*p));
	if (side->mac && !side->key) {
		snprintf(err, len, "--stamp --key: the format was set up before the key was loaded (a bug in rant)");
		return -EINVAL;
	}
	p->rf.key = side->mac ? side->key : NULL;
	p->fmt = side->stamp_ptp ? STAMP_PTP : STAMP_NTP;
	p->rf.stateful = side->stamp_stateful;
	p->rf.cos_apply = true;	/* the loop sends the pong with its reply_tos */
	p->ssid = side->stamp_ssid;
	p->phc_bound_ns = side->stamp_phc_bound_ns;
	stamp_clock(p, realtime_ns());
	if (!side->emit && !side->mac) {
		p->memo = calloc(1, sizeof(*p->memo));
		if (!p->memo) {
			snprintf(err, len, "--stamp: no memory for the reflector's %zu bytes",
				 sizeof(*p->memo));
			return -ENOMEM;
		}
	}
	return 0;
}

static void stamp_fini(struct msgfmt_ctx *ctx)
{
	free(priv_rw(ctx)->memo);
	priv_rw(ctx)->memo = NULL;
}

/* --ssid, or a random non-zero SSID (RFC 8972 §3: 0 is not one). */
static uint32_t stamp_session_key(const struct msgfmt_ctx *ctx, uint32_t random)
{
	return priv(ctx)->ssid ? priv(ctx)->ssid : random % 0xffffu + 1;
}

/* The TLVs a ping of len octets has room for: Timestamp Information and
 * Follow-Up Telemetry (72 octets open, 160 authenticated), Direct
 * Measurement (88, 176), Class of Service (96, 184), in that order, then
 * Extra Padding for the rest. */
static unsigned int stamp_want(bool mac, uint32_t len)
{
	static const unsigned int steps[] = {
		STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP, STAMP_WANT_DIRECT, STAMP_WANT_COS,
		STAMP_WANT_PADDING,
	};
	unsigned int want = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (len < stamp_request_min_len(mac, want | steps[i]))
			break;
		want |= steps[i];
	}
	return want;
}

/* The whole request: the HMAC TLV covers the sequence number, so a new
 * seq rebuilds it. Not inlined into stamp_set_seq(), whose open path
 * (between T1_SW and the send) would set up its frame. */
static __attribute__((noinline)) void stamp_write(const struct stamp_priv *p, void *buf,
						  uint64_t seq, int64_t t1)
{
	struct stamp_request q = {
		.key = p->rf.key, .seq = (uint32_t)(seq - SEQ_BIAS), .t1_ns = t1, .ee = p->ee,
		.ssid = p->session, .want = p->want, .tx_count = (uint32_t)seq, .len = p->len,
		.dscp = p->dscp,
	};

	/* Cannot fail: opts.c keeps -m at the base or more, and want fits. */
	(void)stamp_build(&q, buf, p->len);
}

static void stamp_put_ping(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *h)
{
	struct stamp_priv *p = priv_rw(ctx);

	p->len = h->len;
	p->session = (uint16_t)h->session;
	p->dscp = h->dscp;
	p->want = stamp_want(p->rf.key, h->len);
	p->dm_off = (uint16_t)stamp_request_value_off(p->rf.key, p->want, STAMP_WANT_DIRECT);
	stamp_write(p, buf, h->seq, h->t1_sw);
}

/* Per ping: in open mode only the Sequence Number, the Timestamp and the
 * Error Estimate differ from what put_ping() wrote (the TLVs' headers and
 * zero values stay), and Direct Measurement's count of pings sent (the
 * seq: rant numbers them from 1, each sent once); under a key the HMAC
 * TLV covers the sequence number, so the whole request is written
 * again. */
static inline void put_seq_t1(const struct stamp_priv *p, uint8_t *b, uint64_t seq,
			      int64_t t1_sw)
{
	be_put32(b, (uint32_t)(seq - SEQ_BIAS));
	be_put64(b + off_t1(false), stamp_ts_encode(t1_sw, stamp_ee_fmt(p->ee)));
	be_put16(b + off_t1(false) + 8, p->ee);
	if (p->dm_off)
		be_put32(b + p->dm_off, (uint32_t)seq);
}

/* stamp_set_seq() under a key, or when the clock's state is read again:
 * out of its line, which calls nothing (and saves no registers) between
 * T1_SW and the send. */
static __attribute__((noinline)) void set_seq_slow(struct stamp_priv *p, void *buf,
						   uint64_t seq, int64_t t1_sw)
{
	stamp_clock_due(p, t1_sw);
	if (p->rf.key)
		stamp_write(p, buf, seq, t1_sw);
	else
		put_seq_t1(p, buf, seq, t1_sw);
}

static void stamp_set_seq(struct msgfmt_ctx *ctx, void *buf, uint64_t seq, int64_t t1_sw)
{
	struct stamp_priv *p = priv_rw(ctx);

	if (p->rf.key || stamp_clock_stale(p, t1_sw)) {
		set_seq_slow(p, buf, seq, t1_sw);
		return;
	}
	put_seq_t1(p, buf, seq, t1_sw);
}

/* T1 of a request by its own Error Estimate's Z bit. */
static int64_t stamp_t1(const uint8_t *p, bool mac)
{
	size_t o = off_t1(mac);

	return stamp_ts_decode(be_get64(p + o), stamp_ee_fmt(be_get16(p + o + 8)), TS_NONE);
}

static uint64_t stamp_get_seq(const struct msgfmt_ctx *ctx, const void *buf, size_t len,
			      int64_t *t1_sw)
{
	*t1_sw = 0;
	if (len < (ctx->mac ? STAMP_AUTH_BASE_LEN : STAMP_TWAMP_MIN_LEN))
		return 0;	/* as parse(): a TWAMP-Light request from 41 octets */
	*t1_sw = stamp_t1(buf, ctx->mac);
	return (uint64_t)be_get32(buf) + SEQ_BIAS;
}

static int stamp_parse_ping(const struct msgfmt_ctx *ctx, const void *buf, size_t n,
			    struct msg_hdr *h)
{
	uint32_t seq;
	uint16_t ssid;
	int64_t t1;

	if (stamp_peek(buf, n, ctx->mac, &seq, &ssid, &t1))
		return -MSG_ESHORT;
	h->type = MSG_PING;
	h->flags = ctx->mac ? MSG_F_MAC : 0;
	h->session = ssid;
	h->len = (uint32_t)n;
	h->seq = (uint64_t)seq + SEQ_BIAS;
	h->t1_sw = t1;
	return 0;
}

/* The pong's base (parse reads no TLV: a capture holds the header only).
 * Not inlined: its struct stamp_reply would make every ping's parse set
 * up a large stack frame. */
static __attribute__((noinline)) int stamp_parse_pong(const struct msgfmt_ctx *ctx,
						      const void *buf, size_t n, struct msg_hdr *h)
{
	size_t base = ctx->mac ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN;
	struct stamp_reply rep;
	enum stamp_drop why;

	if (n < (ctx->mac ? STAMP_AUTH_BASE_LEN : STAMP_TWAMP_MIN_LEN))
		return -MSG_ESHORT;
	if (n < base)
		base = n;	/* a TWAMP-Light reply: its fields end at 41 */
	why = stamp_parse_reply(buf, base, priv(ctx)->rf.key, TS_NONE, &rep);
	if (why == STAMP_DROP_HMAC)
		return -MSG_EMAGIC;	/* not this key's */
	if (why)
		return -MSG_ESHORT;
	h->type = MSG_PONG;
	h->flags = ctx->mac ? MSG_F_MAC : 0;
	if (rep.t2_ns != TS_NONE)
		h->flags |= MSG_F_T2;
	h->session = rep.ssid ? rep.ssid : priv(ctx)->session;
	h->len = (uint32_t)n;
	h->seq = (uint64_t)rep.sender_seq + SEQ_BIAS;
	h->t1_sw = rep.t1_ns;
	return 0;
}

static int stamp_parse(const struct msgfmt_ctx *ctx, const void *buf, size_t n,
		       enum msg_type want, struct msg_hdr *h)
{
	if (want == MSG_PING)
		return stamp_parse_ping(ctx, buf, n, h);
	return stamp_parse_pong(ctx, buf, n, h);
}

static enum stamp_method method_of(uint16_t flags, uint16_t hw)
{
	return flags & hw ? STAMP_METHOD_HW : STAMP_METHOD_SW;
}

/*
 * The Error Estimate of a reply whose T2 is a stamp of the kind flags
 * say: a NIC's (MSG_F_T2_HW) adds the PHC's bound to the system clock's
 * error, and a PHC that failed its last check (MSG_F_CLOCK_BAD) makes
 * the error unknown. T3 is the system clock's, never better.
 */
static uint16_t stamp_reply_ee(const struct stamp_priv *p, uint16_t flags)
{
	if (!(flags & MSG_F_T2_HW))
		return p->ee;
	if (flags & MSG_F_CLOCK_BAD)
		return stamp_ee_clock(-1, 0, 0, 0, p->fmt);
	return p->ee_hw;
}

/* Whether the kept answer is this request's (struct stamp_memo): its
 * octets after the base the same, but for Direct Measurement's S_TxC. */
static inline bool memo_fits(const struct stamp_memo *m, const struct stamp_reflector *rf,
			     const struct stamp_reflect_in *in, const uint8_t *req, uint32_t len)
{
	const uint8_t *tlvs = req + STAMP_BASE_LEN;
	size_t cut = m && m->dm_off ? m->dm_off - STAMP_BASE_LEN : len - STAMP_BASE_LEN;

	if (!m || m->len != len || m->t2_method != in->t2_method || m->sync_sw != rf->sync_sw ||
	    m->sync_hw != rf->sync_hw || m->tos_known != (in->tos >= 0) ||
	    memcmp(tlvs, m->req, cut))
		return false;
	return !m->dm_off ||
	       !memcmp(tlvs + cut + 4, m->req + cut + 4, len - STAMP_BASE_LEN - cut - 4);
}

/* Where the understood Follow-Up Telemetry, Direct Measurement and Class
 * of Service TLVs' values are in a reply (flags clear: filled; the TLVs
 * after a malformed one stay as they came), 0 for none: false when one
 * comes twice (not kept). */
static bool memo_offs(const uint8_t *reply, size_t len, struct stamp_memo *m)
{
	struct stamp_tlv_iter it;
	struct stamp_tlv t;

	m->fu_off = m->dm_off = m->cos_off = 0;
	stamp_tlv_begin(&it, reply, len, STAMP_BASE_LEN);
	while (stamp_tlv_next(&it, &t) > 0 && !(t.flags & STAMP_TLV_M)) {
		uint32_t *off = t.type == STAMP_TLV_FOLLOWUP ? &m->fu_off :
				t.type == STAMP_TLV_DIRECT ? &m->dm_off :
				t.type == STAMP_TLV_COS ? &m->cos_off : NULL;

		if (t.flags || !off)
			continue;
		if (*off)
			return false;
		*off = (uint32_t)(t.off + STAMP_TLV_HDR_LEN);
	}
	return true;
}

/* The request answered by stamp_reflect(), and its answer kept when the
 * next request may take it. */
static __attribute__((noinline)) void memo_reflect(struct msgfmt_ctx *ctx,
						   const struct stamp_reflect_in *in,
						   uint8_t *buf, uint32_t len)
{
	struct stamp_priv *p = priv_rw(ctx);
	struct stamp_memo *m = p->memo;
	size_t tlvs = len - STAMP_BASE_LEN;
	struct stamp_reflect_out out;
	bool keep = m && !p->rf.strict && len >= STAMP_BASE_LEN && tlvs <= MEMO_MAX;

	if (m)
		m->len = 0;
	if (keep)
		memcpy(m->req, buf + STAMP_BASE_LEN, tlvs);
	/* parse() and the loop's MAC check passed, and the reply is as long
	 * as the request: stamp_reflect() answers (with M or I flags on
	 * TLVs it cannot use). */
	if (stamp_reflect(&p->rf, in, buf, len, buf, len, &out) != STAMP_PASS)
		return;
	ctx->reply_tos = out.tos;
	if (!keep || !memo_offs(buf, len, m))
		return;
	if (!p->rf.stateful)
		m->fu_off = 0;	/* zeroed for good (RFC 8972 §4.7) */
	memcpy(m->rep, buf + STAMP_BASE_LEN, tlvs);
	m->t2_method = in->t2_method;
	m->tos_known = in->tos >= 0;
	m->sync_sw = p->rf.sync_sw;
	m->sync_hw = p->rf.sync_hw;
	m->len = len;
}

/* The kept answer's TLVs into the reply in buf (its base written): the
 * values that differ from pong to pong filled in again. */
static void memo_answer(struct msgfmt_ctx *ctx, const struct stamp_reflect_in *in,
			uint8_t *buf, uint32_t len)
{
	const struct stamp_priv *p = priv(ctx);
	const struct stamp_memo *m = p->memo;
	uint32_t s_tx = m->dm_off ? be_get32(buf + m->dm_off) : 0;

	memcpy(buf + STAMP_BASE_LEN, m->rep, len - STAMP_BASE_LEN);
	if (m->fu_off)
		stamp_followup_put(buf + m->fu_off, in->fu, p->rf.ee);
	if (m->dm_off) {
		be_put32(buf + m->dm_off, s_tx);
		stamp_direct_put(buf + m->dm_off, in->rx_count, in->tx_count);
	}
	ctx->reply_tos = m->cos_off ? stamp_cos_put(buf + m->cos_off, in->tos, p->rf.cos_apply) :
		-1;
}

/*
 * The reply, in place: T2 the ping's wire stamp, T3 the best there is now
 * (the SW stamp the loop took, else the clock read here), a stateful
 * reflector's follow-up, naming its reply by the number the reflector
 * gave it, the session's counts (Direct Measurement) and the ping's TOS
 * (Class of Service: the pong leaves with ctx->reply_tos).
 */
static void stamp_put_pong(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *ping,
			   uint16_t flags, const struct msg_body *b)
{
	struct stamp_priv *p = priv_rw(ctx);
	int64_t t3 = flags & MSG_F_SW && b->t3_sw != TS_NONE ? b->t3_sw : realtime_ns();
	struct stamp_reflect_in in = {
		.t2_ns = flags & MSG_F_T2 ? b->t2_wire : TS_NONE,
		.t3_ns = t3,
		.t2_method = flags & MSG_F_T2 ? method_of(flags, MSG_F_T2_HW) : STAMP_METHOD_NONE,
		.t3_method = STAMP_METHOD_SW,
		.ttl = b->ttl,
		.tos = b->tos,
		.rx_count = b->rx_count,
		.tx_count = (uint32_t)(b->pong_no + 1),
		.seq = (uint32_t)b->pong_no,
	};
	struct stamp_followup fu;	/* only when it travels */

	if (p->rf.stateful && (flags & MSG_F_FU)) {
		fu.seq = (uint32_t)b->fu_pong_no;
		fu.t3_ns = b->fu_t3_wire;
		fu.method = method_of(flags, MSG_F_FU_HW);
		in.fu = &fu;
	}
	stamp_clock_due(p, t3);
	p->rf.ee = stamp_reply_ee(p, flags);
	ctx->reply_tos = -1;
	if (!memo_fits(p->memo, &p->rf, &in, buf, ping->len)) {
		memo_reflect(ctx, &in, buf, ping->len);
		return;
	}
	stamp_reflect_base(&p->rf, &in, buf);
	memo_answer(ctx, &in, buf, ping->len);
}

/* What the reply says of its reflector (struct msg_peer). */
static void stamp_peer_fill(const struct stamp_reply *rep, struct msg_peer *pe)
{
	pe->have = true;
	pe->ee = rep->ee;
	pe->ssid = rep->ssid;
	pe->ttl = rep->ttl;
	pe->tlv_seen = rep->tlv_seen;
	pe->tlv_understood = rep->tlv_understood;
	pe->tlv_unknown = rep->tlv_unknown;
	pe->tlv_malformed = rep->tlv_malformed;
	pe->tlv_integrity = rep->tlv_integrity;
	pe->have_tsinfo = rep->has_tsinfo;
	if (rep->has_tsinfo) {
		pe->tsinfo[0] = rep->sync_in;
		pe->tsinfo[1] = rep->method_in;
		pe->tsinfo[2] = rep->sync_out;
		pe->tsinfo[3] = rep->method_out;
	}
	pe->have_cos = rep->has_cos;
	if (rep->has_cos) {
		pe->cos[0] = rep->cos_dscp2;
		pe->cos[1] = rep->cos_ecn;
		pe->cos[2] = rep->cos_rp;
	}
}

static int stamp_parse_body(const struct msgfmt_ctx *ctx, const void *buf,
			    const struct msg_hdr *h, struct msg_body *b)
{
	struct stamp_reply rep;

	if (stamp_parse_reply(buf, h->len, priv(ctx)->rf.key, TS_NONE, &rep))
		return -MSG_ESHORT;
	memset(b, 0, sizeof(*b));
	b->t2_wire = rep.t2_ns;
	b->t2_sw = b->t3_sw = TS_NONE;
	b->fu_t3_wire = b->t3_wire = TS_NONE;
	if (rep.has_tsinfo && rep.method_in == STAMP_METHOD_HW)
		b->flags |= MSG_F_T2_HW;
	stamp_peer_fill(&rep, &b->peer);
	b->has_dm = rep.has_direct;
	b->dm_s_tx = rep.dm_s_tx;
	b->dm_r_rx = rep.dm_r_rx;
	b->dm_r_tx = rep.dm_r_tx;
	b->pong_no = rep.seq;
	if (rep.has_followup && rep.fu_t3_ns != TS_NONE) {
		b->fu_pong_no = rep.fu_seq;	/* the emitter finds its ping */
		b->fu_t3_wire = rep.fu_t3_ns;
		b->flags |= MSG_F_FU | (rep.fu_method == STAMP_METHOD_HW ? MSG_F_FU_HW : 0);
	}
	b->t3_wire = rep.t3_ns;
	if (!(rep.tlv_understood & STAMP_TLV_BIT(STAMP_TLV_FOLLOWUP)) && rep.t3_ns != TS_NONE)
		b->flags |= MSG_F_T3;
	return 0;
}

static struct msgfmt_span stamp_mac_span(const struct msgfmt_ctx *ctx, size_t len)
{
	(void)ctx;
	(void)len;
	return (struct msgfmt_span){ .off = 0, .len = STAMP_AUTH_BASE_LEN };
}

const struct msgfmt msgfmt_stamp = {
	.name = "stamp",
	.caps = {
		.overhead = 0,
		.min_len = STAMP_BASE_LEN,
		.body_len = STAMP_BASE_LEN,
		.auth_min_len = STAMP_AUTH_BASE_LEN,
		.auth_body_len = STAMP_AUTH_BASE_LEN,
		/* open mode; --key's parse reads the 112-octet base, which
		 * the capture's snap length holds */
		.parse_len = STAMP_BASE_LEN,
		.seq_mask = UINT32_MAX,
		.reflector_stamps = true,
		.follow_up = true,	/* from a stateful reflector */
		.fu_by_pong_no = true,	/* RFC 8972 §4.7: the reflector's number */
		.ts = MSGFMT_TS_NTP64,	/* PTP64 with --stamp-ts ptp */
	},
	.init = stamp_init,
	.fini = stamp_fini,
	.session_key = stamp_session_key,
	.put_ping = stamp_put_ping,
	.set_seq = stamp_set_seq,
	.get_seq = stamp_get_seq,
	.parse = stamp_parse,
	.put_pong = stamp_put_pong,
	.parse_body = stamp_parse_body,
	.mac_span = stamp_mac_span,
};
