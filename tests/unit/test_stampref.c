/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/stamp.c's two ways of answering an open request agree: the one-walk
 * answer every open reflector takes (reflect_open) and the general one
 * (reflect_as), which a strict reflector takes. On random requests whose
 * TLVs are well formed and carry no HMAC TLV (the strict reflector answers
 * those as any other), the two replies and what they report must be the
 * same to the octet; and the answer in place (the loops') must be the
 * answer into another buffer. The requests: every length from the base to
 * 300 octets, TLVs of the types the module knows and of types it does not,
 * values of every length their type allows, zero headers followed by data
 * or by zeros only, stateless and stateful, with and without a follow-up
 * and T2.
 *
 * Then the format's kept answer (fmtstamp.c, struct stamp_memo): a
 * reflector that answers a request like the one before with the TLVs it
 * kept must send what a fresh reflector sends, which answers by
 * stamp_reflect(); the requests come from a small pool, so that most are
 * like the one before and some are not (another request, another T2 or
 * stamp method, a length past what is kept), each sent with a new
 * Direct Measurement S_TxC, TOS and counts: the reply, and the TOS it
 * must leave with, are the fresh reflector's.
 */
#include <string.h>

#include "msgfmt.h"
#include "stamp.h"
#include "tap.h"
#include "timeutil.h"

#define BIG 2048
#define CASES 20000

static uint64_t x = 88172645463325252ULL;

static uint64_t rnd(void)
{
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* One TLV at q + off, at most room octets: its length, 0 when none fits. */
static size_t put_tlv(uint8_t *q, size_t off, size_t room)
{
	static const uint8_t types[] = { 1, 3, 7, 0, 2, 9, 200, 31, 32, 4, 5 };
	uint8_t type = types[rn(sizeof(types))];
	size_t vlen;

	if (room < 4)
		return 0;
	switch (type) {
	case 3:
		vlen = 4 + (rn(4) ? 0 : rn(12));	/* sub-TLVs may follow */
		break;
	case 7:
		vlen = 16;
		break;
	case 4:		/* Class of Service, now and then of a bad length */
		vlen = rn(8) ? 4 : rn(8);
		break;
	case 5:		/* Direct Measurement */
		vlen = rn(8) ? 12 : rn(16);
		break;
	case 1:
		vlen = rn(2) ? room - 4 : rn(30);
		break;
	default:
		vlen = rn(20);
		break;
	}
	if (vlen > room - 4)
		return 0;
	q[off] = rn(3) ? 0x80 : (uint8_t)rnd();	/* the sender's U, or anything */
	q[off + 1] = type;
	q[off + 2] = (uint8_t)(vlen >> 8);
	q[off + 3] = (uint8_t)vlen;
	for (size_t i = 0; i < vlen; i++)
		q[off + 4 + i] = rn(3) ? (uint8_t)rnd() : 0;
	return 4 + vlen;
}

/* A random open request of len octets. */
static void request(uint8_t *q, size_t len)
{
	size_t off = STAMP_BASE_LEN, n;

	for (size_t i = 0; i < len; i++)
		q[i] = (uint8_t)rnd();
	q[12] &= (uint8_t)~0x40;	/* NTP */
	while (off < len && rn(6)) {
		n = put_tlv(q, off, len - off);
		if (!n)
			break;
		off += n;
	}
	if (off < len && rn(2))
		memset(q + off, 0, len - off);	/* padding of zeros */
	else if (off + 4 <= len && rn(4) == 0)
		memset(q + off, 0, 4);	/* a header of zeros, then data */
}

#define POOL 6
#define MEMO_CASES 20000

/* A new S_TxC in each Direct Measurement TLV of request q (len octets),
 * as a sender's every request has. */
static void new_tx_count(uint8_t *q, size_t len)
{
	struct stamp_tlv_iter it;
	struct stamp_tlv t;

	stamp_tlv_begin(&it, q, len, STAMP_BASE_LEN);
	while (stamp_tlv_next(&it, &t) > 0)
		if (t.type == STAMP_TLV_DIRECT && t.len >= 4)
			memset(q + t.off + 4, (int)rn(256), 4);
}

/* One request answered by a reflector format ctx, as the loop answers it
 * (parse, then put_pong in place), into out. */
static int answer(struct msgfmt_ctx *c, const uint8_t *q, size_t len, uint16_t flags,
		  const struct msg_body *b, uint8_t *out)
{
	struct msg_hdr h;

	memcpy(out, q, len);
	if (msgfmt_parse(c, out, len, MSG_PING, &h))
		return -1;
	msgfmt_put_pong(c, out, &h, flags, b);
	return 0;
}

static void test_memo(bool stateful)
{
	static uint8_t pool[POOL][BIG], a[BIG], b[BIG];
	const struct msgfmt *f = msgfmt_find("stamp");
	struct msgfmt_side side = { .stamp_stateful = stateful };
	size_t lens[POOL];
	struct msgfmt_ctx kept;
	unsigned int compared = 0, differ = 0;
	char err[256];

	if (!f || msgfmt_init(&kept, f, &side, err, sizeof(err)))
		BAIL_OUT(f ? err : "no stamp format in the table");
	for (int i = 0; i < POOL; i++) {
		/* the last one longer than what is kept */
		lens[i] = i == POOL - 1 ? 250 : STAMP_BASE_LEN + rn(100);
		request(pool[i], lens[i]);
	}
	for (int i = 0; i < MEMO_CASES; i++) {
		int k = rn(4) ? i / 50 % POOL : (int)rn(POOL);	/* runs of one request */
		uint16_t flags = MSG_F_SW | (rn(8) ? MSG_F_T2 : 0) | (rn(8) ? 0 : MSG_F_T2_HW) |
				 (rn(2) ? MSG_F_FU : 0) | (rn(2) ? MSG_F_FU_HW : 0);
		struct msg_body body = {
			.t2_wire = 1700000000000000000LL + (int64_t)rn(1000000),
			.t3_sw = 1700000000001000000LL + (int64_t)rn(1000000),
			.fu_seq = rnd() % 1000, .fu_pong_no = rnd() % 1000,
			.fu_t3_wire = 1700000000000000000LL + (int64_t)rn(9),
			.pong_no = rnd() % 1000, .ttl = (uint8_t)rnd(),
			.tos = rn(8) ? (int16_t)rn(256) : -1, .rx_count = (uint32_t)rnd(),
		};
		struct msgfmt_ctx fresh;

		if (msgfmt_init(&fresh, f, &side, err, sizeof(err)))
			BAIL_OUT(err);
		new_tx_count(pool[k], lens[k]);
		if (answer(&kept, pool[k], lens[k], flags, &body, a) ||
		    answer(&fresh, pool[k], lens[k], flags, &body, b))
			BAIL_OUT("a pool request does not parse");
		compared++;
		differ += memcmp(a, b, lens[k]) != 0 || kept.reply_tos != fresh.reply_tos;
		msgfmt_fini(&fresh);
	}
	msgfmt_fini(&kept);
	is_int(differ, 0, "%s: the kept answer is a fresh reflector's, octet for octet (%u replies)",
	       stateful ? "stateful" : "stateless", compared);
}

int main(void)
{
	static uint8_t q[BIG], a[BIG], b[BIG], c[BIG];
	unsigned int compared = 0, differ = 0, out_differ = 0, moved = 0, with_tlvs = 0;

	for (int i = 0; i < CASES; i++) {
		size_t len = STAMP_BASE_LEN + rn(300 - STAMP_BASE_LEN + 1);
		struct stamp_followup fu = { .seq = (uint32_t)rnd(),
					     .t3_ns = 1700000000000000000LL + (int64_t)rn(1000000),
					     .method = STAMP_METHOD_SW };
		struct stamp_reflect_in in = {
			.t2_ns = rn(5) ? 1700000000000000000LL + (int64_t)rn(1000000) : TS_NONE,
			.t3_ns = 1700000000001000000LL, .t2_method = rn(3), .t3_method = rn(3),
			.ttl = (uint8_t)rnd(), .seq = (uint32_t)rnd(), .fu = rn(2) ? &fu : NULL,
		};
		struct stamp_reflector r = { .ee = 0x0587, .stateful = rn(2),
					     .sync_hw = STAMP_SYNC_PTP, .sync_sw = STAMP_SYNC_NTP };
		struct stamp_reflector strict = r;
		struct stamp_reflect_out oa, ob, oc;

		strict.strict = true;
		request(q, len);
		memcpy(b, q, len);
		if (stamp_reflect(&strict, &in, b, len, b, BIG, &ob) != STAMP_PASS)
			continue;	/* malformed: the strict reflector drops it */
		memcpy(a, q, len);
		memset(c, 0x5a, sizeof(c));
		compared++;
		with_tlvs += ob.tlvs > 0;
		if (stamp_reflect(&r, &in, a, len, a, BIG, &oa) != STAMP_PASS ||
		    memcmp(a, b, len)) {
			differ++;
			continue;
		}
		out_differ += oa.seq != ob.seq || oa.sender_seq != ob.sender_seq ||
			      oa.ssid != ob.ssid || oa.twamp != ob.twamp || oa.tlvs != ob.tlvs ||
			      oa.unknown != ob.unknown || oa.malformed != ob.malformed ||
			      oa.integrity != ob.integrity;
		moved += stamp_reflect(&r, &in, q, len, c, BIG, &oc) != STAMP_PASS ||
			 memcmp(c, a, len) || c[len] != 0x5a;
	}
	ok(compared > CASES / 2 && with_tlvs > CASES / 4,
	   "%u random open requests compared (%u with TLVs)", compared, with_tlvs);
	is_int(differ, 0, "the one-walk answer is the general answer, octet for octet");
	is_int(out_differ, 0, "  and reports the same (sequence numbers, SSID, TLV counts, flags)");
	is_int(moved, 0, "the answer into another buffer is the answer in place, and no longer");
	test_memo(false);
	test_memo(true);
	return done_testing();
}
