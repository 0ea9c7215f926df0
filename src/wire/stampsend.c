// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * STAMP, the Session-Sender's side (stamp.h): its requests built, the
 * reflector's replies read, TLVs as RFC 8972 §4 tells a sender.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "be.h"
#include "stamp.h"
#include "stampwalk.h"
#include "timeutil.h"

/* The header of a TLV as a sender writes it (U set, RFC 8972 §4); the
 * offset after its value. */
static size_t put_tlv_hdr(uint8_t *buf, size_t off, uint8_t type, size_t len)
{
	buf[off] = STAMP_TLV_U;
	buf[off + 1] = type;
	be_put16(buf + off + 2, (uint16_t)len);
	return off + STAMP_TLV_HDR_LEN + len;
}

/* The TLVs a request may carry before its HMAC TLV, in their order:
 * their values zero but the sender's own fields (the reflector fills
 * the rest: RFC 8972 §4.3, §4.4, §4.5, §4.7). */
static const struct {
	unsigned int want;
	uint8_t type;
	uint16_t len;
} want_tlvs[] = {
	{ STAMP_WANT_TSINFO, STAMP_TLV_TSINFO, STAMP_TSINFO_LEN },
	{ STAMP_WANT_FOLLOWUP, STAMP_TLV_FOLLOWUP, STAMP_FOLLOWUP_LEN },
	{ STAMP_WANT_DIRECT, STAMP_TLV_DIRECT, STAMP_DIRECT_LEN },
	{ STAMP_WANT_COS, STAMP_TLV_COS, STAMP_COS_LEN },
};
#define NWANT (sizeof(want_tlvs) / sizeof(want_tlvs[0]))

size_t stamp_request_value_off(bool auth, unsigned int want, unsigned int which)
{
	size_t off = auth ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN;

	if (!(want & which))
		return 0;
	for (size_t i = 0; i < NWANT; i++) {
		if (want_tlvs[i].want == which)
			return off + STAMP_TLV_HDR_LEN;
		if (want & want_tlvs[i].want)
			off += STAMP_TLV_HDR_LEN + want_tlvs[i].len;
	}
	return 0;
}

size_t stamp_request_min_len(bool auth, unsigned int want)
{
	size_t n = auth ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN;

	for (size_t i = 0; i < NWANT; i++)
		if (want & want_tlvs[i].want)
			n += STAMP_TLV_HDR_LEN + want_tlvs[i].len;
	if (auth && want & WANT_TLVS)
		n += STAMP_TLV_HDR_LEN + STAMP_HMAC_LEN;
	if (want & STAMP_WANT_PADDING)
		n += STAMP_TLV_HDR_LEN;
	return n;
}

/* The sender's own fields of the TLV at off (its header). */
static void put_own(const struct stamp_request *q, uint8_t *buf, size_t off, uint8_t type)
{
	if (type == STAMP_TLV_DIRECT)
		be_put32(buf + off + STAMP_TLV_HDR_LEN, q->tx_count);	/* S_TxC */
	else if (type == STAMP_TLV_COS)
		buf[off + STAMP_TLV_HDR_LEN] = (uint8_t)(q->dscp << 2);	/* DSCP1 */
}

ssize_t stamp_build(const struct stamp_request *q, void *out, size_t cap)
{
	const struct layout *l = layout_of(q->key);
	uint8_t *buf = out;
	size_t off = l->base;

	if (q->len < stamp_request_min_len(q->key, q->want) || q->len > LEN_MAX)
		return -EINVAL;
	if (cap < q->len)
		return -ENOSPC;
	memset(buf, 0, q->len);
	be_put32(buf + l->seq, q->seq);
	be_put64(buf + l->ts, stamp_ts_encode(q->t1_ns, stamp_ee_fmt(q->ee)));
	be_put16(buf + l->ee, q->ee);
	be_put16(buf + l->ssid, q->ssid);
	for (size_t i = 0; i < NWANT; i++) {
		if (!(q->want & want_tlvs[i].want))
			continue;
		put_own(q, buf, off, want_tlvs[i].type);
		off = put_tlv_hdr(buf, off, want_tlvs[i].type, want_tlvs[i].len);
	}
	/* with TLVs, always an HMAC TLV, though RFC 8972 §4.8 lets a lone
	 * Extra Padding go without: a reflector may add one to its reply
	 * otherwise, and a reply longer than the request is no measurement */
	if (q->key && q->want & WANT_TLVS) {
		size_t hmac = off;

		off = put_tlv_hdr(buf, off, STAMP_TLV_HMAC, STAMP_HMAC_LEN);
		sign_tlvs(q->key, buf, l->base, hmac);
	}
	if (q->want & STAMP_WANT_PADDING)
		put_tlv_hdr(buf, off, STAMP_TLV_PADDING, q->len - off - STAMP_TLV_HDR_LEN);
	if (q->key)
		sign_base(q->key, buf);
	return (ssize_t)q->len;
}

/* The value of an understood TLV of a reply (the last of its type). */
static void take_value(const uint8_t *p, const struct stamp_tlv *t, int64_t ref_ns,
		       struct stamp_reply *rep)
{
	const uint8_t *v = p + t->off + STAMP_TLV_HDR_LEN;

	switch (t->type) {
	case STAMP_TLV_TSINFO:
		rep->has_tsinfo = true;
		rep->sync_in = v[0];
		rep->method_in = v[1];
		rep->sync_out = v[2];
		rep->method_out = v[3];
		break;
	case STAMP_TLV_FOLLOWUP:
		rep->fu_seq = be_get32(v);
		rep->fu_t3_ns = stamp_ts_decode(be_get64(v + 4), stamp_ee_fmt(rep->ee), ref_ns);
		rep->fu_method = v[12];
		rep->has_followup = rep->fu_t3_ns != TS_NONE;
		break;
	case STAMP_TLV_DIRECT:
		rep->has_direct = true;
		rep->dm_s_tx = be_get32(v);
		rep->dm_r_rx = be_get32(v + 4);
		rep->dm_r_tx = be_get32(v + 8);
		break;
	case STAMP_TLV_COS:
		rep->has_cos = true;
		rep->cos_dscp1 = v[0] >> 2;
		rep->cos_dscp2 = (uint8_t)((v[0] & 3) << 4 | v[1] >> 4);
		rep->cos_ecn = v[1] >> 2 & 3;
		rep->cos_rp = v[1] & 3;
		break;
	default:
		break;
	}
}

/* The TLVs of a reply, read as RFC 8972 §4 and §4.8 tell a sender. */
static void read_reply_tlvs(const uint8_t *p, size_t len, const struct auth *key,
			    int64_t ref_ns, struct stamp_reply *rep)
{
	const struct layout *l = layout_of(key);
	struct stamp_tlv t, took[STAMP_TLV_HMAC + 1] = { 0 };
	struct rewalk w;
	struct scan s;

	scan_tlvs(p, len, l, key, &s);
	rep->tlv_integrity = !s.integrity;
	rewalk_begin(&w, &s, p, l);
	while (rewalk_next(&w, &t)) {
		uint32_t bit = STAMP_TLV_BIT(t.type);

		rep->tlv_seen |= bit;
		if (t.flags & STAMP_TLV_I)
			rep->tlv_integrity = true;
		if (t.flags & STAMP_TLV_U)
			rep->tlv_unknown |= bit;
		if (t.flags & STAMP_TLV_M || t.off == s.bad) {
			rep->tlv_malformed |= bit;
			break;
		}
		if (t.flags & (STAMP_TLV_U | STAMP_TLV_I))
			continue;
		rep->tlv_understood |= bit;
		if (t.type <= STAMP_TLV_HMAC)
			took[t.type] = t;
	}
	if (rep->tlv_integrity) {
		rep->tlv_understood = 0;
		return;
	}
	for (unsigned int i = 0; i <= STAMP_TLV_HMAC; i++)
		if (took[i].type)
			take_value(p, &took[i], ref_ns, rep);
}

enum stamp_drop stamp_parse_reply(const void *buf, size_t len, const struct auth *key,
				  int64_t ref_ns, struct stamp_reply *rep)
{
	const struct layout *l = layout_of(key);
	const uint8_t *p = buf;

	if (len < min_len(key))
		return STAMP_DROP_SHORT;
	if (key && !base_signed(key, p))
		return STAMP_DROP_HMAC;
	memset(rep, 0, sizeof(*rep));
	rep->len = len;
	rep->seq = be_get32(p + l->seq);
	rep->ee = be_get16(p + l->ee);
	rep->ssid = be_get16(p + l->ssid);
	rep->t3_ns = stamp_ts_decode(be_get64(p + l->ts), stamp_ee_fmt(rep->ee), ref_ns);
	rep->t2_ns = stamp_ts_decode(be_get64(p + l->rx), stamp_ee_fmt(rep->ee), ref_ns);
	rep->sender_seq = be_get32(p + l->sseq);
	rep->sender_ee = be_get16(p + l->see);
	rep->t1_ns = stamp_ts_decode(be_get64(p + l->sts), stamp_ee_fmt(rep->sender_ee), ref_ns);
	rep->ttl = p[l->ttl];
	if (len > l->base)
		read_reply_tlvs(p, len, key, ref_ns, rep);
	return STAMP_PASS;
}
