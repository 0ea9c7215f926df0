/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * STAMP, the IETF's two-way probe (RFC 8762), with the optional
 * extensions of RFC 8972: the test packets of the Session-Sender and the
 * Session-Reflector, coded and decoded over byte buffers. Pure functions:
 * no I/O, no allocation, no clock read (the caller passes every time), so
 * a packet loop may call them and a capture reader decodes with the same
 * code.
 *
 * The packets, field by field (octet offsets; MBZ: zero on send, ignored
 * on receipt). Unauthenticated ("open", 44-octet base, RFC 8762 §4.2.1,
 * §4.3.1, the SSID of RFC 8972 §3 in the octets after the Error Estimate):
 *
 *	Session-Sender			Session-Reflector
 *	 0 Sequence Number		 0 Sequence Number
 *	 4 Timestamp (T1)		 4 Timestamp (T3)
 *	12 Error Estimate		12 Error Estimate
 *	14 SSID				14 SSID
 *	16 MBZ (28)			16 Receive Timestamp (T2)
 *					24 Session-Sender Sequence Number
 *					28 Session-Sender Timestamp
 *					36 Session-Sender Error Estimate
 *					38 MBZ (2)
 *					40 Ses-Sender TTL
 *					41 MBZ (3)
 *
 * Authenticated (112-octet base, RFC 8762 §4.2.2, §4.3.2): the same
 * fields spread out, with an HMAC over octets 0-95 at the end:
 *
 *	Session-Sender			Session-Reflector
 *	 0 Sequence Number		 0 Sequence Number
 *	 4 MBZ (12)			 4 MBZ (12)
 *	16 Timestamp (T1)		16 Timestamp (T3)
 *	24 Error Estimate		24 Error Estimate
 *	26 SSID				26 SSID
 *	28 MBZ (68)			28 MBZ (4)
 *					32 Receive Timestamp (T2)
 *					40 MBZ (8)
 *					48 Session-Sender Sequence Number
 *					52 MBZ (12)
 *					64 Session-Sender Timestamp
 *					72 Session-Sender Error Estimate
 *					74 MBZ (6)
 *					80 Ses-Sender TTL
 *					81 MBZ (15)
 *	96 HMAC (16)			96 HMAC (16)
 *
 * The HMAC is HMAC-SHA-256 truncated to its first 128 bits (RFC 8762
 * §4.4), computed with src/wire/auth.h under the --key key.
 *
 * After the base come RFC 8972's TLVs, each a 4-octet header (Flags: U
 * 0x80, M 0x40, I 0x20, the rest reserved; Type; Length of the value, 16
 * bits) and the value. This module knows six: Extra Padding (1, any
 * length), Timestamp Information (3, at least 4: sync source and method
 * of T2, then of T3), Class of Service (4, 4: DSCP1, the DSCP the sender
 * asks the reply to leave with, 6 bits; DSCP2 and ECN, 6 and 2 bits, as
 * the request arrived; RP, 2 bits: 1 when the reply did not leave with
 * DSCP1; 2 reserved octets), Direct Measurement (5, 12: the sender's
 * count of requests sent, S_TxC, then the reflector's of the session's
 * requests received, R_RxC, and replies sent, R_TxC, each 32 bits and
 * this packet counted), Follow-Up Telemetry (7, 16: the sequence number
 * and timestamp of the reflector's previous reply and the method of
 * that stamp, 3 reserved octets) and HMAC (8, 16: over the Sequence
 * Number field and every TLV before it; only Extra Padding may follow
 * it). A sender sets U on every TLV it sends; a reflector clears it on
 * those it understood.
 *
 * The timestamps' two formats and the Error Estimate: stampts.h.
 *
 * Reflection (stamp_reflect()): the reply is written over exactly the
 * request's length, never more, so a reflector cannot be used to amplify
 * traffic. Stateless (RFC 8762 §4.2): the reply's sequence number is the
 * request's; stateful: the caller's counter for the session. TLVs follow
 * RFC 8972 §4: unknown ones are returned with U, a malformed one (a
 * Length its type does not allow, or one past the datagram's end) with M
 * and everything after it copied untouched, and when the TLVs fail their
 * HMAC (a bad HMAC TLV, one out of place, none in authenticated mode
 * though TLVs other than a lone Extra Padding are present, or one in open
 * mode, which has no key to check it with) every TLV is returned with I
 * and none is acted on. A remainder of all-zero octets, or one shorter
 * than a TLV header, is padding (a TWAMP-Light sender's, or a sender's
 * that pads without TLVs) and is returned as it came.
 * A strict reflector (struct stamp_reflector.strict) drops what it would
 * answer with M or I instead. Follow-Up Telemetry carries the previous
 * reply's wire T3 only from a stateful reflector: RFC 8972 §4.7 has a
 * stateless one zero it.
 *
 * TWAMP-Light (RFC 8762 §4.6): a TWAMP-Light Session-Sender sends 14
 * octets (sequence number, timestamp, error estimate) and padding; RFC
 * 5357 §4.1.2 recommends 27 octets of it, so that the 41-octet reflected
 * packet is no longer than the request. rant answers any open-mode
 * request of 41 octets or more with a reply of the same length (the
 * reflected fields end at octet 40, the TTL); RFC 8762 §4.6 would answer
 * a shorter one with the 44-octet base, which would make rant an
 * amplifier, so a request of fewer than 41 octets is dropped as short.
 * TWAMP's authenticated mode is not STAMP's and is not answered.
 */
#ifndef RANT_STAMP_H
#define RANT_STAMP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "be.h"
#include "stampts.h"
#include "timeutil.h"

struct auth;

#define STAMP_PORT 862			/* UDP, RFC 8762 §4.1 */
#define STAMP_BASE_LEN 44		/* open base, both directions */
#define STAMP_AUTH_BASE_LEN 112		/* authenticated base, both directions */
#define STAMP_HMAC_LEN 16		/* HMAC-SHA-256-128 */
#define STAMP_TWAMP_MIN_LEN 41		/* shortest request answered (open) */
#define STAMP_TLV_HDR_LEN 4

/* TLV flags (RFC 8972 §4). */
#define STAMP_TLV_U 0x80		/* unrecognized */
#define STAMP_TLV_M 0x40		/* malformed */
#define STAMP_TLV_I 0x20		/* integrity check failed */

/* TLV types (RFC 8972 §5.1). This module acts on 1, 3, 4, 5, 7 and 8. */
enum stamp_tlv_type {
	STAMP_TLV_PADDING = 1,
	STAMP_TLV_LOCATION = 2,
	STAMP_TLV_TSINFO = 3,
	STAMP_TLV_COS = 4,
	STAMP_TLV_DIRECT = 5,
	STAMP_TLV_ACCESS = 6,
	STAMP_TLV_FOLLOWUP = 7,
	STAMP_TLV_HMAC = 8,
};

#define STAMP_TSINFO_LEN 4		/* the value, without sub-TLVs */
#define STAMP_COS_LEN 4
#define STAMP_DIRECT_LEN 12
#define STAMP_FOLLOWUP_LEN 16

/* Timestamp Information: sync sources (RFC 8972 §5.4; 0: not reported). */
enum stamp_sync {
	STAMP_SYNC_NONE = 0,
	STAMP_SYNC_NTP = 1,
	STAMP_SYNC_PTP = 2,
	STAMP_SYNC_SSU = 3,		/* SSU/BITS */
	STAMP_SYNC_GNSS = 4,		/* GPS, GLONASS, LORAN-C, BDS, Galileo */
	STAMP_SYNC_LOCAL = 5,		/* local free-running clock */
};

/* Timestamping methods (RFC 8972 §5.5; 0: not reported). */
enum stamp_method {
	STAMP_METHOD_NONE = 0,
	STAMP_METHOD_HW = 1,		/* HW assist: the NIC's stamp */
	STAMP_METHOD_SW = 2,		/* SW local: the kernel's or the program's */
	STAMP_METHOD_CONTROL = 3,	/* control plane */
};

/* A mask bit per TLV type, for the masks of struct stamp_reply; types
 * from 31 up share the last bit. */
#define STAMP_TLV_BIT(type) (1u << ((type) < 31 ? (type) : 31))

/* Why a datagram was not answered (or a reply not used): the caller counts
 * them, indexed by this. */
enum stamp_drop {
	STAMP_PASS = 0,
	STAMP_DROP_SHORT,	/* shorter than the base (open: 41, auth: 112) */
	STAMP_DROP_LONG,	/* longer than the buffer for the reply */
	STAMP_DROP_HMAC,	/* the base packet's HMAC does not verify */
	STAMP_DROP_TLV,		/* strict: malformed TLVs, or TLVs failing their HMAC */
	STAMP_DROP_COUNT
};

/* "short", "long", "hmac", "tlv" ("ok" for STAMP_PASS). */
const char *stamp_drop_name(enum stamp_drop why);

/* One TLV as it stands in a packet. */
struct stamp_tlv {
	uint8_t flags;
	uint8_t type;
	uint16_t len;		/* of the value, octets */
	size_t off;		/* of the header, from the start of the packet */
};

/* Walks the TLVs of a packet of len octets, from its base's end. */
struct stamp_tlv_iter {
	const uint8_t *pkt;
	size_t off;		/* the next header */
	size_t len;		/* of the packet */
	size_t data_end;	/* after the last non-zero octet, SIZE_MAX:
				 * not looked for yet */
};

void stamp_tlv_begin(struct stamp_tlv_iter *it, const void *pkt, size_t len, size_t base);
/*
 * The next TLV into *t: 1 when its value lies inside the packet; 0 at the
 * end (no octets left, fewer than a header, or only zero octets: padding);
 * -EMSGSIZE when its Length runs past the packet's end (*t holds the
 * header: malformed, RFC 8972 §4), after which the walk is at its end.
 * Whether the Length suits the type is stamp_tlv_len_ok()'s question.
 */
int stamp_tlv_next(struct stamp_tlv_iter *it, struct stamp_tlv *t);
/* Whether a value of len octets is valid for type (any length for types
 * this module does not know). */
bool stamp_tlv_len_ok(uint8_t type, uint16_t len);

/* The sequence number, SSID and T1 (the sender's Timestamp, by its own
 * Error Estimate's Z bit, in the NTP pivot's window: stamp_ts_decode()
 * without a reference) of a request, to find its session before
 * reflecting it: 0, or -EBADMSG when it is too short to be answered.
 * Inline: every request's. */
static inline int stamp_peek(const void *req, size_t len, bool auth, uint32_t *seq,
			     uint16_t *ssid, int64_t *t1_ns)
{
	const uint8_t *p = req;
	/* the Timestamp (4 open, 16 authenticated); the Error Estimate
	 * and the SSID follow it in both layouts */
	size_t ts = auth ? 16 : 4;

	if (len < (auth ? STAMP_AUTH_BASE_LEN : STAMP_TWAMP_MIN_LEN))
		return -EBADMSG;
	*seq = be_get32(p);
	*ssid = be_get16(p + ts + 10);
	*t1_ns = stamp_ts_decode(be_get64(p + ts), stamp_ee_fmt(be_get16(p + ts + 8)), TS_NONE);
	return 0;
}

/* The previous reply of a session, for the Follow-Up Telemetry TLV. */
struct stamp_followup {
	uint32_t seq;			/* that reply's sequence number */
	int64_t t3_ns;			/* when it left: the wire stamp */
	enum stamp_method method;	/* how t3_ns was taken */
};

/* A Follow-Up Telemetry TLV's value (RFC 8972 §4.7) at v: the previous
 * reply's sequence number, its wire T3 in the format of ee's Z bit and
 * how it was taken; zeros without one (a stateless reflector's, or no
 * previous reply's stamp yet). */
static inline void stamp_followup_put(uint8_t *v, const struct stamp_followup *fu, uint16_t ee)
{
	be_put32(v, fu ? fu->seq : 0);
	be_put64(v + 4, fu ? stamp_ts_encode(fu->t3_ns, stamp_ee_fmt(ee)) : 0);
	v[12] = fu ? (uint8_t)fu->method : 0;
	memset(v + 13, 0, 3);
}

/*
 * A Class of Service TLV's value (RFC 8972 §4.4, with its erratum 8199)
 * answered at v: DSCP1 as the sender asked; DSCP2 and ECN as the request
 * arrived (tos: its IPv4 TOS or IPv6 Traffic Class; -1, unknown: 0);
 * RP 0 when the reply leaves with DSCP1 (apply), else 1, and then it
 * leaves with the DSCP it came with; the reserved octets zero. Returns
 * the TOS octet the reply must leave with (that DSCP, ECN Not-ECT).
 */
static inline uint8_t stamp_cos_put(uint8_t *v, int16_t tos, bool apply)
{
	uint8_t dscp1 = v[0] >> 2, dscp2 = tos < 0 ? 0 : (uint8_t)tos >> 2;
	uint8_t ecn = tos < 0 ? 0 : (uint8_t)tos & 3;

	v[0] = (uint8_t)(dscp1 << 2 | dscp2 >> 4);
	v[1] = (uint8_t)((dscp2 & 0xf) << 4 | ecn << 2 | (apply ? 0 : 1));
	v[2] = v[3] = 0;
	return (uint8_t)((apply ? dscp1 : dscp2) << 2);
}

/* A Direct Measurement TLV's value (RFC 8972 §4.5) answered at v: the
 * sender's S_TxC kept, the session's requests received (rx) and replies
 * sent (tx), this one counted in each. */
static inline void stamp_direct_put(uint8_t *v, uint32_t rx, uint32_t tx)
{
	be_put32(v + 4, rx);
	be_put32(v + 8, tx);
}

/* The reflector's set-up, fixed for a run. */
struct stamp_reflector {
	const struct auth *key;	/* authenticated mode; NULL: open */
	uint16_t ee;		/* its Error Estimate; Z: the format of T2, T3 */
	bool stateful;		/* own sequence numbers per session */
	bool strict;		/* drop what would be answered with M or I */
	bool cos_apply;		/* a reply with Class of Service leaves with the
				 * DSCP1 it asks for (the caller sets the reply's
				 * TOS: stamp_reflect_out.tos) */
	/* for TLV type 3: how the clocks behind its HW stamps (the NIC's)
	 * and its SW stamps (the system clock's) are synchronized */
	enum stamp_sync sync_hw, sync_sw;
};

/* What the reflector has for one request. */
struct stamp_reflect_in {
	int64_t t2_ns;			/* received (TS_NONE: none) */
	int64_t t3_ns;			/* the best send stamp at hand now */
	enum stamp_method t2_method, t3_method;
	uint8_t ttl;			/* the request's IPv4 TTL or IPv6 Hop Limit */
	int16_t tos;			/* its IPv4 TOS or IPv6 Traffic Class, -1:
					 * unknown (a Class of Service TLV then comes
					 * back with U: not processed) */
	uint32_t rx_count, tx_count;	/* the session's requests received and
					 * replies sent, this one counted in each
					 * (Direct Measurement) */
	uint32_t seq;			/* stateful: the session's next number */
	/* stateful: the session's previous reply (NULL: none yet, or its
	 * wire stamp never came); a stateless reflector reports none
	 * (RFC 8972 §4.7) */
	const struct stamp_followup *fu;
};

/* What a reflection did, for the caller's state and counters. */
struct stamp_reflect_out {
	uint32_t seq;		/* the reply's sequence number */
	uint32_t sender_seq;	/* the request's */
	uint16_t ssid;
	bool twamp;		/* a request shorter than the STAMP base */
	unsigned tlvs;		/* TLVs returned */
	unsigned unknown;	/* of which with U */
	bool malformed;		/* one was returned with M */
	bool integrity;		/* they were returned with I */
	int16_t tos;		/* the TOS octet the reply must leave with (a Class
				 * of Service TLV answered), -1: the socket's */
};

/*
 * Answer the request req[0..len) with a reply of exactly len octets in
 * reply (which may be req itself, reflected in place; any other overlap
 * is undefined), cap its room: STAMP_PASS and *out filled, or why the
 * request gets no reply (reply then holds nothing of use).
 */
enum stamp_drop stamp_reflect(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			      const void *req, size_t len, void *reply, size_t cap,
			      struct stamp_reflect_out *out);

/*
 * Open mode: the reply's base written over its request's whole base (44
 * octets at pkt, read before a byte is written), as stamp_reflect()
 * writes it, for a caller that has the TLVs' answer already
 * (fmtstamp.c keeps the last one). The reply's sequence number is the
 * request's (stateless) or in->seq (stateful).
 */
void stamp_reflect_base(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			void *pkt);

/* The TLVs a request may ask for. */
#define STAMP_WANT_TSINFO 0x1	/* Timestamp Information */
#define STAMP_WANT_FOLLOWUP 0x2	/* Follow-Up Telemetry */
#define STAMP_WANT_PADDING 0x4	/* fill up to len with Extra Padding */
#define STAMP_WANT_DIRECT 0x8	/* Direct Measurement */
#define STAMP_WANT_COS 0x10	/* Class of Service */

/* A Session-Sender's request. */
struct stamp_request {
	const struct auth *key;	/* authenticated mode; NULL: open */
	uint32_t seq;
	int64_t t1_ns;
	uint16_t ee;		/* the sender's Error Estimate; Z: T1's format */
	uint16_t ssid;		/* 0: not used */
	unsigned want;		/* STAMP_WANT_* */
	uint32_t tx_count;	/* Direct Measurement: requests sent, this one counted */
	uint8_t dscp;		/* Class of Service: the reply's DSCP asked for */
	size_t len;		/* of the datagram, >= stamp_request_min_len() */
};

/* The shortest request with the TLVs of want (an empty Extra Padding TLV
 * counted), and an HMAC TLV in authenticated mode when want holds any. */
size_t stamp_request_min_len(bool auth, unsigned want);
/*
 * Write the request into buf (cap octets of room): its length, or
 * -EINVAL when q->len is below stamp_request_min_len() (or beyond 65535),
 * -ENOSPC when cap is below q->len. Layout after the base: Timestamp
 * Information, Follow-Up Telemetry, Direct Measurement, Class of Service,
 * the HMAC TLV (authenticated mode), then Extra Padding (zeros, outside
 * the HMAC's reach) up to q->len; without STAMP_WANT_PADDING the rest is
 * zero octets, which a reflector reads as padding.
 */
ssize_t stamp_build(const struct stamp_request *q, void *buf, size_t cap);
/* Where the value of the TLV of one STAMP_WANT_* bit (one of want) lies
 * in the request stamp_build() writes: its offset, 0 when want lacks it. */
size_t stamp_request_value_off(bool auth, unsigned int want, unsigned int which);

/* A Session-Reflector's reply, as the sender reads it. Timestamps are
 * TS_NONE when the reflector did not report them. */
struct stamp_reply {
	size_t len;
	uint32_t seq;		/* the reflector's sequence number */
	uint16_t ssid;		/* 0: a reflector that does not know RFC 8972 */
	uint16_t ee;		/* the reflector's Error Estimate */
	int64_t t2_ns, t3_ns;	/* decoded by ee's Z bit */
	uint32_t sender_seq;	/* echoed from the request */
	uint16_t sender_ee;
	int64_t t1_ns;		/* echoed, decoded by sender_ee's Z bit */
	uint8_t ttl;		/* the request's TTL when it reached the reflector */
	/* TLVs, as STAMP_TLV_BIT() masks */
	uint32_t tlv_seen;	/* present in the reply */
	uint32_t tlv_understood;	/* U, M and I clear: acted on */
	uint32_t tlv_unknown;	/* U: not understood, or never looked at */
	uint32_t tlv_malformed;	/* M, or malformed as it came back: the walk ends */
	bool tlv_integrity;	/* I set, or the reply's TLVs fail their HMAC:
				 * no TLV of this reply is used */
	/* Timestamp Information, when understood */
	bool has_tsinfo;
	uint8_t sync_in, method_in, sync_out, method_out;
	/* Follow-Up Telemetry, when understood and filled in */
	bool has_followup;
	uint32_t fu_seq;
	int64_t fu_t3_ns;
	uint8_t fu_method;
	/* Direct Measurement, when understood */
	bool has_direct;
	uint32_t dm_s_tx, dm_r_rx, dm_r_tx;
	/* Class of Service, when understood */
	bool has_cos;
	uint8_t cos_dscp1, cos_dscp2, cos_ecn, cos_rp;
};

/*
 * Read a reply of len octets (ref_ns: a local stamp of the exchange, for
 * the timestamps' era): STAMP_PASS and *rep filled; STAMP_DROP_SHORT
 * (open: under 41 octets, auth: under 112); STAMP_DROP_HMAC (the base's
 * HMAC fails under key). TLVs are read as RFC 8972 §4 tells a sender: one
 * with U is skipped, M ends the walk, I (or a failed HMAC TLV) discards
 * them all.
 */
enum stamp_drop stamp_parse_reply(const void *buf, size_t len, const struct auth *key,
				  int64_t ref_ns, struct stamp_reply *rep);

#endif
