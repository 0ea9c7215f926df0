// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * STAMP test packets (RFC 8762, RFC 8972): coding, reflection, decoding.
 * See stamp.h for the layouts and the rules; the timestamps and Error
 * Estimates are stampts.c's.
 */
#include <errno.h>
#include <stdint.h>
#include <openssl/crypto.h>
#include <string.h>

#include "auth.h"
#include "be.h"
#include "stamp.h"
#include "timeutil.h"

#define AUTH_COVERED 96			/* octets the base HMAC covers */
#define LEN_MAX 65535			/* a UDP datagram's payload, at most */
#define WANT_TLVS (STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING)

/* Where the fields of a base packet lie (stamp.h draws them). */
struct layout {
	uint8_t seq, ts, ee, ssid;		/* both directions */
	uint8_t rx, sseq, sts, see, ttl;	/* the reflector's only */
	uint8_t base;				/* length */
};

static const struct layout open_layout = { 0, 4, 12, 14, 16, 24, 28, 36, 40, STAMP_BASE_LEN };
static const struct layout auth_layout = { 0, 16, 24, 26, 32, 48, 64, 72, 80,
					   STAMP_AUTH_BASE_LEN };

static const struct layout *layout_of(const struct auth *key)
{
	return key ? &auth_layout : &open_layout;
}

/* The shortest packet answered or read: TWAMP's reflected packet in open
 * mode (stamp.h says why), the base in authenticated mode. */
static size_t min_len(const struct auth *key)
{
	return key ? STAMP_AUTH_BASE_LEN : STAMP_TWAMP_MIN_LEN;
}

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

/* Where the data ends: after the last non-zero octet from off on (off
 * when there is none). */
static __attribute__((noinline)) size_t data_end_of(const uint8_t *pkt, size_t off, size_t len)
{
	while (len > off && !pkt[len - 1])
		len--;
	return len;
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
	switch (type) {
	case STAMP_TLV_TSINFO:
		return len >= STAMP_TSINFO_LEN;	/* sub-TLVs may follow */
	case STAMP_TLV_FOLLOWUP:
		return len == STAMP_FOLLOWUP_LEN;
	case STAMP_TLV_HMAC:
		return len == STAMP_HMAC_LEN;
	default:
		return true;
	}
}

/* The TLV types this module acts on. */
static bool tlv_known(uint8_t type)
{
	return type == STAMP_TLV_PADDING || type == STAMP_TLV_TSINFO ||
	       type == STAMP_TLV_FOLLOWUP || type == STAMP_TLV_HMAC;
}

/* The base packet's HMAC (RFC 8762 §4.4): over octets 0-95, in 96-111. */
static void sign_base(const struct auth *key, uint8_t *pkt)
{
	uint8_t mac[AUTH_FULL_LEN];

	auth_hmac(key, pkt, AUTH_COVERED, mac);
	memcpy(pkt + AUTH_COVERED, mac, STAMP_HMAC_LEN);
}

static bool base_signed(const struct auth *key, const uint8_t *pkt)
{
	uint8_t mac[AUTH_FULL_LEN];

	auth_hmac(key, pkt, AUTH_COVERED, mac);
	return !CRYPTO_memcmp(mac, pkt + AUTH_COVERED, STAMP_HMAC_LEN);
}

/* The HMAC TLV's value (RFC 8972 §4.8): over the Sequence Number field
 * and the TLVs from the base's end up to the HMAC TLV's header at hmac. */
static void tlv_mac(const struct auth *key, const uint8_t *pkt, size_t base, size_t hmac,
		    uint8_t mac[AUTH_FULL_LEN])
{
	auth_hmac2(key, pkt, 4, pkt + base, hmac - base, mac);
}

static void sign_tlvs(const struct auth *key, uint8_t *pkt, size_t base, size_t hmac)
{
	uint8_t mac[AUTH_FULL_LEN];

	tlv_mac(key, pkt, base, hmac, mac);
	memcpy(pkt + hmac + STAMP_TLV_HDR_LEN, mac, STAMP_HMAC_LEN);
}

enum tlv_head {
	TLV_END,		/* fewer octets than a header, or padding from here */
	TLV_OK,			/* a TLV whose value fits the packet and its type */
	TLV_BAD,		/* malformed: its value runs past the end, or its
				 * length does not suit its type */
};

/* The header of the TLV at off of a packet of len octets, for the walks
 * in locals (scan_tlvs, reflect_open): *data_end is where the data ends,
 * SIZE_MAX until a header of zeros asks (then looked for once). */
static inline __attribute__((always_inline)) enum tlv_head
tlv_head(const uint8_t *pkt, size_t off, size_t len, size_t *data_end, uint8_t *type,
	 uint16_t *vlen)
{
	const uint8_t *h = pkt + off;

	if (len - off < STAMP_TLV_HDR_LEN)
		return TLV_END;
	*type = h[1];
	*vlen = be_get16(h + 2);
	if (!(h[0] | *type | *vlen)) {	/* padding, if only zeros follow */
		if (*data_end == SIZE_MAX)
			*data_end = data_end_of(pkt, off, len);
		if (off >= *data_end)
			return TLV_END;
	}
	if (*vlen > len - off - STAMP_TLV_HDR_LEN || !stamp_tlv_len_ok(*type, *vlen))
		return TLV_BAD;
	return TLV_OK;
}

/* What a walk over a packet's TLVs found. */
struct scan {
	size_t bad;		/* the malformed TLV's offset; 0: none */
	size_t hmac;		/* the HMAC TLV's offset; 0: none */
	unsigned int n;		/* TLVs, up to the malformed one */
	unsigned int npad;	/* of which Extra Padding */
	bool misplaced;		/* a TLV other than Extra Padding after the HMAC TLV */
	bool integrity;		/* the TLVs pass their HMAC (or need none) */
};

/*
 * The n TLVs of a scan once more, in order, from the base's end of pkt
 * (the scanned octets, or a copy whose headers differ at most in their
 * flags): the scan found each header inside the packet, so this walk
 * reads them with no bounds or padding to check and keeps nothing.
 */
struct rewalk {
	const uint8_t *pkt;
	size_t off;		/* the next header */
	unsigned int left;	/* TLVs */
};

static inline void rewalk_begin(struct rewalk *w, const struct scan *s, const uint8_t *pkt,
				const struct layout *l)
{
	w->pkt = pkt;
	w->off = l->base;
	w->left = s->n;
}

/* The next TLV, false after the scan's last (the malformed one, if any). */
static inline bool rewalk_next(struct rewalk *w, struct stamp_tlv *t)
{
	const uint8_t *h = w->pkt + w->off;

	if (!w->left)
		return false;
	w->left--;
	t->flags = h[0];
	t->type = h[1];
	t->len = be_get16(h + 2);
	t->off = w->off;
	w->off += STAMP_TLV_HDR_LEN + (size_t)t->len;
	return true;
}

/* Whether the HMAC TLV at s->hmac verifies (RFC 8972 §4.8). */
static __attribute__((noinline)) bool tlv_hmac_ok(const uint8_t *pkt, const struct layout *l,
						  const struct auth *key, const struct scan *s)
{
	uint8_t mac[AUTH_FULL_LEN];

	tlv_mac(key, pkt, l->base, s->hmac, mac);
	return !CRYPTO_memcmp(mac, pkt + s->hmac + STAMP_TLV_HDR_LEN, STAMP_HMAC_LEN);
}

/* Whether the TLVs of a scan may be trusted (RFC 8972 §4.8). */
static inline bool tlvs_intact(const uint8_t *pkt, const struct layout *l,
			       const struct auth *key, const struct scan *s)
{
	if (s->misplaced)
		return false;
	if (!s->hmac)	/* none needed in open mode, nor for a lone Extra Padding */
		return !key || !s->n || (s->n == 1 && s->npad == 1);
	if (!key)	/* nothing to check it with */
		return false;
	return tlv_hmac_ok(pkt, l, key, s);
}

/* The walk in locals (no iterator in memory), as stamp_tlv_next() walks. */
static inline __attribute__((always_inline)) void
scan_tlvs(const uint8_t *pkt, size_t len, const struct layout *l, const struct auth *key,
	  struct scan *s)
{
	size_t off = l->base < len ? l->base : len, data_end = SIZE_MAX;
	size_t bad = 0, hmac = 0;
	unsigned int n = 0, npad = 0;
	bool misplaced = false;

	enum tlv_head got;
	uint16_t vlen;
	uint8_t type;

	while ((got = tlv_head(pkt, off, len, &data_end, &type, &vlen)) != TLV_END) {
		n++;
		if (got == TLV_BAD) {
			bad = off;
			break;
		}
		if (type == STAMP_TLV_PADDING)
			npad++;
		else if (hmac)
			misplaced = true;
		else if (type == STAMP_TLV_HMAC)
			hmac = off;
		off += STAMP_TLV_HDR_LEN + (size_t)vlen;
	}
	s->bad = bad;
	s->hmac = hmac;
	s->n = n;
	s->npad = npad;
	s->misplaced = misplaced;
	s->integrity = tlvs_intact(pkt, l, key, s);
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
	 const struct stamp_tlv *t)
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
		uint8_t flags = (tlv_known(t.type) ? 0 : STAMP_TLV_U) | fail;

		if (bad && t.off == bad)
			flags |= STAMP_TLV_M;
		pkt[t.off] = flags;
		tlvs++;
		unknown += !!(flags & STAMP_TLV_U);
		if (flags & STAMP_TLV_M)
			break;
		if (!flags)
			fill_tlv(r, in, pkt, &t);
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
	out->seq = r->stateful ? in->seq : sf.seq;
	out->sender_seq = sf.seq;
	out->ssid = sf.ssid;
	if (reply != req && len > STAMP_BASE_LEN)
		memcpy(reply + STAMP_BASE_LEN, req + STAMP_BASE_LEN, len - STAMP_BASE_LEN);
	put_reflected(&open_layout, r, in, &sf, out->seq, reply);
	/* the answer: the same n headers again, in the reply */
	for (off = STAMP_BASE_LEN; n; n--) {
		uint8_t *h = reply + off;
		uint8_t flags = tlv_known(h[1]) ? 0 : STAMP_TLV_U;

		t.type = h[1];
		t.off = off;
		off += STAMP_TLV_HDR_LEN + (size_t)be_get16(h + 2);
		unknown += flags != 0;
		if (t.off == bad)
			flags |= STAMP_TLV_M;
		h[0] = flags;
		if (!flags)
			fill_tlv(r, in, reply, &t);
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

/* The header of a TLV as a sender writes it (U set, RFC 8972 §4); the
 * offset after its value. */
static size_t put_tlv_hdr(uint8_t *buf, size_t off, uint8_t type, size_t len)
{
	buf[off] = STAMP_TLV_U;
	buf[off + 1] = type;
	be_put16(buf + off + 2, (uint16_t)len);
	return off + STAMP_TLV_HDR_LEN + len;
}

size_t stamp_request_min_len(bool auth, unsigned int want)
{
	size_t n = auth ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN;

	if (want & STAMP_WANT_TSINFO)
		n += STAMP_TLV_HDR_LEN + STAMP_TSINFO_LEN;
	if (want & STAMP_WANT_FOLLOWUP)
		n += STAMP_TLV_HDR_LEN + STAMP_FOLLOWUP_LEN;
	if (auth && want & WANT_TLVS)
		n += STAMP_TLV_HDR_LEN + STAMP_HMAC_LEN;
	if (want & STAMP_WANT_PADDING)
		n += STAMP_TLV_HDR_LEN;
	return n;
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
	/* value fields zero: the reflector fills them (RFC 8972 §4.3, §4.7) */
	if (q->want & STAMP_WANT_TSINFO)
		off = put_tlv_hdr(buf, off, STAMP_TLV_TSINFO, STAMP_TSINFO_LEN);
	if (q->want & STAMP_WANT_FOLLOWUP)
		off = put_tlv_hdr(buf, off, STAMP_TLV_FOLLOWUP, STAMP_FOLLOWUP_LEN);
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

/* The TLVs of a reply, read as RFC 8972 §4 and §4.8 tell a sender. */
static void read_reply_tlvs(const uint8_t *p, size_t len, const struct auth *key,
			    int64_t ref_ns, struct stamp_reply *rep)
{
	const struct layout *l = layout_of(key);
	struct stamp_tlv t, tsinfo = { 0 }, fu = { 0 };
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
		if (t.type == STAMP_TLV_TSINFO)
			tsinfo = t;
		else if (t.type == STAMP_TLV_FOLLOWUP)
			fu = t;
	}
	if (rep->tlv_integrity) {
		rep->tlv_understood = 0;
		return;
	}
	if (tsinfo.type) {
		const uint8_t *v = p + tsinfo.off + STAMP_TLV_HDR_LEN;

		rep->has_tsinfo = true;
		rep->sync_in = v[0];
		rep->method_in = v[1];
		rep->sync_out = v[2];
		rep->method_out = v[3];
	}
	if (fu.type) {
		const uint8_t *v = p + fu.off + STAMP_TLV_HDR_LEN;

		rep->fu_seq = be_get32(v);
		rep->fu_t3_ns = stamp_ts_decode(be_get64(v + 4), stamp_ee_fmt(rep->ee), ref_ns);
		rep->fu_method = v[12];
		rep->has_followup = rep->fu_t3_ns != TS_NONE;
	}
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
