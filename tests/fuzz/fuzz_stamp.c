// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: one received datagram at a STAMP reflector and at a
 * STAMP sender (src/wire/stamp.h). The first octet picks the reflector's mode
 * (0x01 authenticated, 0x02 stateful, 0x04 strict, 0x08 PTP, 0x10 a
 * follow-up at hand); the rest is the datagram. On any input:
 * - a dropped request leaves the reply buffer untouched;
 * - an answered one is answered with exactly its length, not one octet
 *   more, the same in place as into another buffer, and its reply reads
 *   back as the reflector wrote it (sequence numbers, SSID, TTL, T2, T3,
 *   its own HMACs, and no TLV flagged when none was malformed or failed);
 * - the datagram read as a reply, and its TLVs walked, end.
 * Authenticated mode uses the key of tests/fuzz/mkcorpus.c (octets 0-31),
 * so the seeds it writes pass the HMAC.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "stamp.h"
#include "timeutil.h"

#define MAX 4096	/* datagram */
#define CANARY 64	/* octets past the reply's room that must stay as they were */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct auth *fuzz_key(void)
{
	static struct auth *key;
	uint8_t k[32];

	if (!key) {
		for (int i = 0; i < 32; i++)
			k[i] = (uint8_t)i;
		key = auth_create(k, sizeof(k));
		if (!key)
			abort();
	}
	return key;
}

static bool all(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* The answered request's reply, checked. */
static void check_reply(const struct stamp_reflector *r, const struct stamp_reflect_in *in,
			const uint8_t *req, size_t len, const uint8_t *reply,
			const struct stamp_reflect_out *out)
{
	static uint8_t again[MAX];
	struct stamp_reflect_out out2;
	struct stamp_reply rep;

	if (!all(reply + len, MAX + CANARY - len, 0xa5))
		abort();	/* written past the request's length */
	memcpy(again, req, len);
	if (stamp_reflect(r, in, again, len, again, len, &out2) != STAMP_PASS ||
	    memcmp(again, reply, len))
		abort();	/* in place differs */
	if (stamp_parse_reply(reply, len, r->key, in->t3_ns, &rep) != STAMP_PASS)
		abort();
	if (rep.len != len || rep.seq != out->seq || rep.sender_seq != out->sender_seq ||
	    rep.ssid != out->ssid || rep.ttl != in->ttl || rep.t2_ns != in->t2_ns ||
	    rep.t3_ns != in->t3_ns || rep.ee != r->ee)
		abort();
	if (!out->malformed && !out->integrity && (rep.tlv_integrity || rep.tlv_malformed))
		abort();	/* answered TLVs that do not read back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t req[MAX], reply[MAX + CANARY];
	struct stamp_followup fu = { .seq = 41, .t3_ns = 1700000000123000000LL,
				     .method = STAMP_METHOD_HW };
	struct stamp_reflector r = { .sync_hw = STAMP_SYNC_PTP, .sync_sw = STAMP_SYNC_NTP };
	struct stamp_reflect_in in = { .t2_ns = 1700000000123456789LL,
				       .t3_ns = 1700000000123556789LL,
				       .t2_method = STAMP_METHOD_HW, .t3_method = STAMP_METHOD_SW,
				       .ttl = 63, .seq = 42 };
	struct stamp_reflect_out out;
	struct stamp_tlv_iter it;
	struct stamp_reply rep;
	struct stamp_tlv t;
	size_t len, walked = 0;
	uint8_t mode;

	if (size < 1 || size - 1 > MAX)
		return 0;
	mode = data[0];
	len = size - 1;
	memcpy(req, data + 1, len);
	r.key = mode & 0x01 ? fuzz_key() : NULL;
	r.stateful = mode & 0x02;
	r.strict = mode & 0x04;
	r.ee = stamp_ee_make(mode & 0x08, mode & 0x08 ? STAMP_PTP : STAMP_NTP, 1000);
	in.fu = mode & 0x10 ? &fu : NULL;
	memset(reply, 0xa5, sizeof(reply));
	if (stamp_reflect(&r, &in, req, len, reply, MAX, &out) == STAMP_PASS)
		check_reply(&r, &in, req, len, reply, &out);
	else if (!all(reply, sizeof(reply), 0xa5))
		abort();	/* a drop wrote */
	stamp_parse_reply(req, len, r.key, in.t2_ns, &rep);
	stamp_tlv_begin(&it, req, len, r.key ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN);
	while (stamp_tlv_next(&it, &t))
		if (++walked > len)
			abort();	/* a walk that does not advance */
	return 0;
}
