/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the STAMP codec (stamp.c reflects, stampsend.c builds requests
 * and reads replies): where a base packet's fields lie, its HMACs, and
 * the walk over its TLVs that both sides make. Not for other modules:
 * stamp.h is the codec's interface, which its two files include first
 * (this one does not, so that stamp.c's use of it is no include cycle).
 */
#ifndef RANT_STAMPWALK_H
#define RANT_STAMPWALK_H

#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "be.h"

#define AUTH_COVERED 96			/* octets the base HMAC covers */
#define LEN_MAX 65535			/* a UDP datagram's payload, at most */
#define WANT_TLVS (STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING | \
		   STAMP_WANT_DIRECT | STAMP_WANT_COS)

/* Where the fields of a base packet lie (stamp.h draws them). */
struct layout {
	uint8_t seq, ts, ee, ssid;		/* both directions */
	uint8_t rx, sseq, sts, see, ttl;	/* the reflector's only */
	uint8_t base;				/* length */
};

static const struct layout open_layout = { 0, 4, 12, 14, 16, 24, 28, 36, 40, STAMP_BASE_LEN };
static const struct layout auth_layout = { 0, 16, 24, 26, 32, 48, 64, 72, 80,
					   STAMP_AUTH_BASE_LEN };

static inline const struct layout *layout_of(const struct auth *key)
{
	return key ? &auth_layout : &open_layout;
}

/* The shortest packet answered or read: TWAMP's reflected packet in open
 * mode (stamp.h says why), the base in authenticated mode. */
static inline size_t min_len(const struct auth *key)
{
	return key ? STAMP_AUTH_BASE_LEN : STAMP_TWAMP_MIN_LEN;
}

/* Where the data ends: after the last non-zero octet from off on (off
 * when there is none). */
static __attribute__((noinline, unused)) size_t data_end_of(const uint8_t *pkt, size_t off,
								size_t len)
{
	while (len > off && !pkt[len - 1])
		len--;
	return len;
}

/* The base packet's HMAC (RFC 8762 §4.4): over octets 0-95, in 96-111. */
static inline void sign_base(const struct auth *key, uint8_t *pkt)
{
	uint8_t mac[AUTH_FULL_LEN];

	auth_hmac(key, pkt, AUTH_COVERED, mac);
	memcpy(pkt + AUTH_COVERED, mac, STAMP_HMAC_LEN);
}

static inline bool base_signed(const struct auth *key, const uint8_t *pkt)
{
	uint8_t mac[AUTH_FULL_LEN];

	auth_hmac(key, pkt, AUTH_COVERED, mac);
	return !CRYPTO_memcmp(mac, pkt + AUTH_COVERED, STAMP_HMAC_LEN);
}

/* The HMAC TLV's value (RFC 8972 §4.8): over the Sequence Number field
 * and the TLVs from the base's end up to the HMAC TLV's header at hmac. */
static inline void tlv_mac(const struct auth *key, const uint8_t *pkt, size_t base, size_t hmac,
		    uint8_t mac[AUTH_FULL_LEN])
{
	auth_hmac2(key, pkt, 4, pkt + base, hmac - base, mac);
}

static inline void sign_tlvs(const struct auth *key, uint8_t *pkt, size_t base, size_t hmac)
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

/* Whether a value of len octets is valid for type (any length for types
 * the codec does not know): stamp_tlv_len_ok(), inline for the walks. */
static inline bool tlv_len_ok(uint8_t type, uint16_t len)
{
	switch (type) {
	case STAMP_TLV_TSINFO:
		return len >= STAMP_TSINFO_LEN;	/* sub-TLVs may follow */
	case STAMP_TLV_FOLLOWUP:
		return len == STAMP_FOLLOWUP_LEN;
	case STAMP_TLV_COS:
		return len == STAMP_COS_LEN;
	case STAMP_TLV_DIRECT:
		return len == STAMP_DIRECT_LEN;
	case STAMP_TLV_HMAC:
		return len == STAMP_HMAC_LEN;
	default:
		return true;
	}
}

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
	if (*vlen > len - off - STAMP_TLV_HDR_LEN || !tlv_len_ok(*type, *vlen))
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
static __attribute__((noinline, unused)) bool tlv_hmac_ok(const uint8_t *pkt,
							  const struct layout *l,
							  const struct auth *key,
							  const struct scan *s)
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

#endif
