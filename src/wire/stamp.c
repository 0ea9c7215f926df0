// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * STAMP test packets (RFC 8762, RFC 8972): the TLV walk and the
 * reflector's answer. See stamp.h for the layouts and the rules; the
 * sender's side is stampsend.c's, the timestamps and Error Estimates
 * stampts.c's.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "be.h"
#include "stamp.h"
#include "stampwalk.h"
#include "timeutil.h"

const char *stamp_drop_name(enum stamp_drop why)
{
	static const char *const names[STAMP_DROP_COUNT] = {
		[STAMP_PASS] = "ok", [STAMP_DROP_SHORT] = "short", [STAMP_DROP_LONG] = "long",
		[STAMP_DROP_HMAC] = "hmac", [STAMP_DROP_TLV] = "tlv",
	};

	return (unsigned int)why < STAMP_DROP_COUNT ? names[why] : "?";
}

void stamp_tlv_begin(struct stamp_tlv_iter *it, const void *pkt, size_t len, size_t base)
{
	it->pkt = pkt;
	it->off = base < len ? base : len;
	it->len = len;
	it->data_end = SIZE_MAX;	/* not looked for yet */
}

/*
 * Whether the octets from it->off on are all zero (padding). A header
 * with a non-zero octet says no at once; the end of the data is looked
 * for, backwards from the packet's end, only when a header of zeros
 * asks, and once a walk: a packet's TLVs cost no pass over its padding.
 */
static inline bool tlv_at_padding(struct stamp_tlv_iter *it, const uint8_t *h)
{
	if (h[0] | h[1] | h[2] | h[3])
		return false;
	if (it->data_end == SIZE_MAX)
		it->data_end = data_end_of(it->pkt, it->off, it->len);
	return it->off >= it->data_end;
}

static inline int tlv_next(struct stamp_tlv_iter *it, struct stamp_tlv *t)
{
	const uint8_t *h = it->pkt + it->off;
	size_t left = it->len - it->off;

	if (left < STAMP_TLV_HDR_LEN || tlv_at_padding(it, h))
		return 0;
	t->flags = h[0];
	t->type = h[1];
	t->len = be_get16(h + 2);
	t->off = it->off;
	if (t->len > left - STAMP_TLV_HDR_LEN) {
		it->off = it->len;
		return -EMSGSIZE;
	}
	it->off += STAMP_TLV_HDR_LEN + (size_t)t->len;
	return 1;
}

int stamp_tlv_next(struct stamp_tlv_iter *it, struct stamp_tlv *t)
{
	return tlv_next(it, t);
}

bool stamp_tlv_len_ok(uint8_t type, uint16_t len)
{
	return tlv_len_ok(type, len);
}

/* The TLV types this module acts on for a request of in: Class of
 * Service only when the request's TOS is known (else it comes back with
 * U: not processed). */
static inline bool tlv_known(uint8_t type, const struct stamp_reflect_in *in)
{
	if (type == STAMP_TLV_COS)
		return in->tos >= 0;
	return (type >= STAMP_TLV_PADDING && type <= STAMP_TLV_HMAC && type != STAMP_TLV_LOCATION &&
		type != STAMP_TLV_ACCESS);
}

/* The clock a stamp taken by method came from. */
static uint8_t sync_of(const struct stamp_reflector *r, enum stamp_method method)
{
	if (method == STAMP_METHOD_NONE)
		return STAMP_SYNC_NONE;
	return (uint8_t)(method == STAMP_METHOD_HW ? r->sync_hw : r->sync_sw);
}

/* Fill the value of a TLV the reflector understood. */
static inline __attribute__((always_inline)) void
fill_tlv(const struct stamp_reflector *r, const struct stamp_reflect_in *in, uint8_t *pkt,
	 const struct stamp_tlv *t, struct stamp_reflect_out *out)
{
	uint8_t *v = pkt + t->off + STAMP_TLV_HDR_LEN;
	const struct stamp_followup *fu = r->stateful ? in->fu : NULL;

	switch (t->type) {
	case STAMP_TLV_TSINFO:
		v[0] = sync_of(r, in->t2_method);
		v[1] = (uint8_t)in->t2_method;
		v[2] = sync_of(r, in->t3_method);
		v[3] = (uint8_t)in->t3_method;
		break;
	case STAMP_TLV_FOLLOWUP:
		/* a stateless reflector zeroes it (RFC 8972 §4.7) */
		stamp_followup_put(v, fu, r->ee);
		break;
	case STAMP_TLV_COS:
		out->tos = stamp_cos_put(v, in->tos, r->cos_apply);
		break;
	case STAMP_TLV_DIRECT:
		stamp_direct_put(v, in->rx_count, in->tx_count);
		break;
	default:	/* Extra Padding returns as it came; the HMAC TLV is signed last */
		break;
	}
}

/* Set the flags of the reply's TLVs and fill the understood ones; those
 * after a malformed one stay as they came (RFC 8972 §4). */
static inline __attribute__((always_inline)) void
answer_tlvs(const struct layout *l, const struct auth *key, const struct stamp_reflector *r,
	    const struct stamp_reflect_in *in, uint8_t *pkt, const struct scan *s,
	    struct stamp_reflect_out *out)
{
	/* in locals: every octet written to pkt may alias them */
	const size_t bad = s->bad;
	const uint8_t fail = s->integrity ? 0 : STAMP_TLV_I;
	unsigned int tlvs = 0, unknown = 0;
	struct stamp_tlv t;
	struct rewalk w;

	rewalk_begin(&w, s, pkt, l);
	while (rewalk_next(&w, &t)) {
		uint8_t flags = (tlv_known(t.type, in) ? 0 : STAMP_TLV_U) | fail;

		if (bad && t.off == bad)
			flags |= STAMP_TLV_M;
		pkt[t.off] = flags;
		tlvs++;
		unknown += !!(flags & STAMP_TLV_U);
		if (flags & STAMP_TLV_M)
			break;
		if (!flags)
			fill_tlv(r, in, pkt, &t, out);
	}
	out->tlvs = tlvs;
	out->unknown = unknown;
	out->malformed = bad != 0;
	out->integrity = !s->integrity;
	if (key && s->integrity && s->hmac)
		sign_tlvs(key, pkt, l->base, s->hmac);
}

/* The request's fields the reply echoes. */
struct sender_fields {
	uint32_t seq;
	uint64_t ts;		/* as it came: the sender's format */
	uint16_t ee, ssid;
};

/* The reflected base packet into base (l->base octets). Inlined for each
 * layout, so that its offsets and length are constants. */
static inline __attribute__((always_inline)) void
put_reflected(const struct layout *l, const struct stamp_reflector *r,
	      const struct stamp_reflect_in *in, const struct sender_fields *sf, uint32_t seq,
	      uint8_t *base)
{
	enum stamp_tsfmt fmt = stamp_ee_fmt(r->ee);

	memset(base, 0, l->base);
	be_put32(base + l->seq, seq);
	be_put64(base + l->ts, stamp_ts_encode(in->t3_ns, fmt));
	be_put16(base + l->ee, r->ee);
	be_put16(base + l->ssid, sf->ssid);
	be_put64(base + l->rx, stamp_ts_encode(in->t2_ns, fmt));
	be_put32(base + l->sseq, sf->seq);
	be_put64(base + l->sts, sf->ts);
	be_put16(base + l->see, sf->ee);
	base[l->ttl] = in->ttl;
}

/* The request's fields the reply echoes, read from its base. */
static inline void sender_fields_of(const struct layout *l, const uint8_t *req,
				    struct sender_fields *sf)
{
	sf->seq = be_get32(req + l->seq);
	sf->ts = be_get64(req + l->ts);
	sf->ee = be_get16(req + l->ee);
	sf->ssid = be_get16(req + l->ssid);
}

void stamp_reflect_base(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			void *pkt)
{
	struct sender_fields sf;

	sender_fields_of(&open_layout, pkt, &sf);
	put_reflected(&open_layout, r, in, &sf, r->stateful ? in->seq : sf.seq, pkt);
}

/* The reply's base when the reply is shorter than one (open mode, a
 * TWAMP-Light request of 41-43 octets): through a copy cut to len. */
static __attribute__((noinline)) void put_base_cut(const struct stamp_reflector *r,
						   const struct stamp_reflect_in *in,
						   const struct sender_fields *sf, uint32_t seq,
						   uint8_t *reply, size_t len)
{
	uint8_t base[STAMP_BASE_LEN];

	put_reflected(&open_layout, r, in, sf, seq, base);
	memcpy(reply, base, len);
}

/*
 * Open mode, a request with the whole base (every STAMP sender's), a
 * reflector that answers malformed TLVs (not strict, which goes the
 * general way: tests/unit/test_stampref.c compares the two): what
 * reflect_as() does, over locals, for TLVs without an HMAC TLV. Open
 * mode has no key to check one with, so its TLVs fail their integrity
 * (I) exactly when an HMAC TLV comes before the malformed one, if any;
 * without one the walk that finds the malformed TLV is all the scan the
 * answer needs. -1 (nothing written) at an HMAC TLV: reflect_as()
 * answers it.
 */
static int reflect_open(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			const uint8_t *req, size_t len, uint8_t *reply,
			struct stamp_reflect_out *out)
{
	size_t off = STAMP_BASE_LEN, data_end = SIZE_MAX, bad = 0;
	unsigned int n = 0, unknown = 0;
	struct sender_fields sf;
	struct stamp_tlv t;

	enum tlv_head got;
	uint16_t vlen;
	uint8_t type;

	while ((got = tlv_head(req, off, len, &data_end, &type, &vlen)) != TLV_END) {
		if (type == STAMP_TLV_HMAC)
			return -1;
		n++;
		if (got == TLV_BAD) {
			bad = off;
			break;
		}
		off += STAMP_TLV_HDR_LEN + (size_t)vlen;
	}
	sender_fields_of(&open_layout, req, &sf);
	memset(out, 0, sizeof(*out));
	out->tos = -1;
	out->seq = r->stateful ? in->seq : sf.seq;
	out->sender_seq = sf.seq;
	out->ssid = sf.ssid;
	if (reply != req && len > STAMP_BASE_LEN)
		memcpy(reply + STAMP_BASE_LEN, req + STAMP_BASE_LEN, len - STAMP_BASE_LEN);
	put_reflected(&open_layout, r, in, &sf, out->seq, reply);
	/* the answer: the same n headers again, in the reply */
	for (off = STAMP_BASE_LEN; n; n--) {
		uint8_t *h = reply + off;
		uint8_t flags = tlv_known(h[1], in) ? 0 : STAMP_TLV_U;

		t.type = h[1];
		t.off = off;
		off += STAMP_TLV_HDR_LEN + (size_t)be_get16(h + 2);
		unknown += flags != 0;
		if (t.off == bad)
			flags |= STAMP_TLV_M;
		h[0] = flags;
		if (!flags)
			fill_tlv(r, in, reply, &t, out);
		out->tlvs++;
	}
	out->unknown = unknown;
	out->malformed = bad != 0;
	return STAMP_PASS;
}

/* stamp_reflect() in one mode: l and key (r->key) constants where it is
 * inlined, so that open mode's reply has fixed offsets and no HMAC steps. */
static inline __attribute__((always_inline)) enum stamp_drop
reflect_as(const struct layout *l, const struct auth *key, const struct stamp_reflector *r,
	   const struct stamp_reflect_in *in, const uint8_t *req, size_t len, uint8_t *reply,
	   size_t cap, struct stamp_reflect_out *out)
{
	struct sender_fields sf;
	struct scan s;

	if (len < min_len(key))
		return STAMP_DROP_SHORT;
	if (len > cap)
		return STAMP_DROP_LONG;
	/* everything is read and checked before the reply is written: it
	 * may be the request's own buffer */
	if (key && !base_signed(key, req))
		return STAMP_DROP_HMAC;
	scan_tlvs(req, len, l, key, &s);
	if (r->strict && (s.bad || !s.integrity))
		return STAMP_DROP_TLV;
	sender_fields_of(l, req, &sf);
	memset(out, 0, sizeof(*out));
	out->tos = -1;
	out->seq = r->stateful ? in->seq : sf.seq;
	out->sender_seq = sf.seq;
	out->ssid = sf.ssid;
	out->twamp = len < l->base;
	if (reply != req && len > l->base)
		memcpy(reply + l->base, req + l->base, len - l->base);
	/* the reply's base: in place when the reply holds a whole one (the
	 * request's fields are read by then) */
	if (len >= l->base)
		put_reflected(l, r, in, &sf, out->seq, reply);
	else
		put_base_cut(r, in, &sf, out->seq, reply, len);
	if (len > l->base)
		answer_tlvs(l, key, r, in, reply, &s, out);
	if (key)
		sign_base(key, reply);
	return STAMP_PASS;
}

/* reflect_as() for either mode, out of stamp_reflect()'s line: its
 * frame (HMACs, a base cut short) is not set up for reflect_open()'s. */
static __attribute__((noinline)) enum stamp_drop
reflect_any(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
	    const uint8_t *req, size_t len, uint8_t *reply, size_t cap,
	    struct stamp_reflect_out *out)
{
	if (r->key)
		return reflect_as(&auth_layout, r->key, r, in, req, len, reply, cap, out);
	return reflect_as(&open_layout, NULL, r, in, req, len, reply, cap, out);
}

enum stamp_drop stamp_reflect(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			      const void *req, size_t len, void *reply, size_t cap,
			      struct stamp_reflect_out *out)
{
	int rc;

	if (!r->key && !r->strict && len >= STAMP_BASE_LEN && len <= cap &&
	    (rc = reflect_open(r, in, req, len, reply, out)) >= 0)
		return rc;
	return reflect_any(r, in, req, len, reply, cap, out);
}

