// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * STAMP packets as src/wire/stamp.c writes them, for the independent decoders
 * of tests/unit/test_stamp_decoders.py (scapy, tshark): one JSON object a
 * line, the packet's octets in hex and the values rant meant to put in
 * each field (timestamps as ns since the Unix epoch, as the caller gave
 * them, so a decoder's reading of the timestamp format is checked too).
 * Open mode only: neither decoder reads STAMP's authenticated packets
 * (tests/unit/test_stamp.c checks those against Python's hmac).
 */
#include <stdio.h>

#include "stamp.h"
#include "timeutil.h"

#define T1 1700000000123456789LL

struct vec {
	const char *name;
	unsigned int want;	/* TLVs asked for */
	size_t len;
	enum stamp_tsfmt sfmt, rfmt;	/* the sender's, the reflector's */
	bool stateful;
};

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void tlvs(const uint8_t *p, size_t len)
{
	struct stamp_tlv_iter it;
	struct stamp_tlv t;
	const char *sep = "";

	printf(", \"tlvs\": [");
	stamp_tlv_begin(&it, p, len, STAMP_BASE_LEN);
	while (stamp_tlv_next(&it, &t) > 0) {
		printf("%s[%u, %u, %u]", sep, t.flags, t.type, t.len);
		sep = ", ";
	}
	printf("]");
}

static void request(const struct vec *v, int i, const uint8_t *q)
{
	printf("{\"name\": \"%s request\", \"dir\": \"req\", \"seq\": %d, \"ts\": %lld, "
	       "\"ee\": %u, \"ssid\": %u, \"hex\": \"", v->name, 100 + i, T1 + i,
	       stamp_ee_make(true, v->sfmt, 1000), 0x1000 + i);
	hex(q, v->len);
	printf("\"");
	tlvs(q, v->len);
	printf("}\n");
}

static void reply(const struct vec *v, int i, const uint8_t *p, const struct stamp_reflector *r,
		  const struct stamp_reflect_in *in)
{
	printf("{\"name\": \"%s reply\", \"dir\": \"rep\", \"seq\": %u, \"ts\": %lld, "
	       "\"ee\": %u, \"ssid\": %u, \"rx\": %lld, \"sseq\": %d, \"sts\": %lld, "
	       "\"see\": %u, \"ttl\": %u, \"hex\": \"", v->name, v->stateful ? 7u + i : 100u + i,
	       (long long)in->t3_ns, r->ee, 0x1000 + i, (long long)in->t2_ns, 100 + i, T1 + i,
	       stamp_ee_make(true, v->sfmt, 1000), in->ttl);
	hex(p, v->len);
	printf("\"");
	tlvs(p, v->len);
	printf("}\n");
}

int main(void)
{
	static const struct vec vecs[] = {
		{ "open NTP", 0, 44, STAMP_NTP, STAMP_NTP, false },
		{ "open NTP stateful", 0, 44, STAMP_NTP, STAMP_NTP, true },
		{ "open PTP", 0, 44, STAMP_PTP, STAMP_PTP, false },
		{ "open NTP sender, PTP reflector", 0, 44, STAMP_NTP, STAMP_PTP, true },
		{ "open TLVs", STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING, 128,
		  STAMP_NTP, STAMP_NTP, true },
		{ "open padded 1000", STAMP_WANT_PADDING, 1000, STAMP_NTP, STAMP_NTP, false },
	};
	struct stamp_followup fu = { .seq = 6, .t3_ns = T1 + 2000000, .method = STAMP_METHOD_HW };

	for (int i = 0; i < (int)(sizeof(vecs) / sizeof(vecs[0])); i++) {
		const struct vec *v = &vecs[i];
		struct stamp_request q = { .seq = 100 + (uint32_t)i, .t1_ns = T1 + i,
					   .ee = stamp_ee_make(true, v->sfmt, 1000),
					   .ssid = (uint16_t)(0x1000 + i), .want = v->want,
					   .len = v->len };
		struct stamp_reflector r = { .ee = stamp_ee_make(false, v->rfmt, 250000),
					     .stateful = v->stateful, .sync_hw = STAMP_SYNC_PTP,
					     .sync_sw = STAMP_SYNC_NTP };
		struct stamp_reflect_in in = { .t2_ns = T1 + 40000 + i, .t3_ns = T1 + 90000 + i,
					       .t2_method = STAMP_METHOD_HW,
					       .t3_method = STAMP_METHOD_SW,
					       .ttl = (uint8_t)(64 - i),
					       .seq = 7 + (uint32_t)i, .fu = &fu };
		struct stamp_reflect_out out;
		uint8_t b[1024], p[1024];

		if (stamp_build(&q, b, sizeof(b)) < 0 ||
		    stamp_reflect(&r, &in, b, v->len, p, sizeof(p), &out) != STAMP_PASS) {
			fprintf(stderr, "stamp_vectors: %s: not built\n", v->name);
			return 1;
		}
		request(v, i, b);
		reply(v, i, p, &r, &in);
	}
	return 0;
}
