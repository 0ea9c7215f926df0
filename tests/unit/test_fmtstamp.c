// SPDX-License-Identifier: GPL-2.0-or-later
/* The --stamp message format (src/fmtstamp.c) through the msgfmt ops. */
#include <string.h>

#include "auth.h"
#include "msgfmt.h"
#include "stamp.h"
#include "tap.h"
#include "timeutil.h"

#define T1 1700000000123456789LL

static uint8_t buf[2048];

static const struct msgfmt *fmt(void)
{
	const struct msgfmt *f = msgfmt_find("stamp");

	if (!f)
		BAIL_OUT("no stamp row in msgfmt.c's table");
	return f;
}

static void ctx_for(struct msgfmt_ctx *ctx, const struct msgfmt_side *side)
{
	char err[200];

	if (msgfmt_init(ctx, fmt(), side, err, sizeof(err)))
		BAIL_OUT(err);
}

static uint32_t make_ping(struct msgfmt_ctx *ctx, uint32_t len, uint32_t ssid, uint64_t seq)
{
	struct msg_hdr h = { .type = MSG_PING, .session = ssid, .len = len };

	memset(buf, 0xa5, sizeof(buf));
	msgfmt_put_ping(ctx, buf, &h);
	msgfmt_set_seq(ctx, buf, seq, T1);
	return len;
}

/* A ping and its pong, open or under a key, NTP or PTP on each side. */
static void test_round_trip(const struct auth *key, bool eptp, bool rptp, uint32_t len)
{
	struct msgfmt_side es = { .emit = true, .mac = key, .key = key, .stamp_ptp = eptp };
	struct msgfmt_side rs = { .mac = key, .key = key, .stamp_ptp = rptp };
	struct msg_body in = { .t2_wire = T1 + 1000, .t3_sw = T1 + 3000, .ttl = 61 };
	struct msgfmt_ctx ectx, rctx;
	struct msg_hdr ping, pong;
	struct msg_body out;
	const char *m = key ? "auth" : "open";

	ctx_for(&ectx, &es);
	ctx_for(&rctx, &rs);
	make_ping(&ectx, len, 4242, 0x1234567899ULL);
	is_int(msgfmt_parse(&rctx, buf, len, MSG_PING, &ping), 0, "%s %u: the ping parses", m, len);
	ok(ping.seq == 0x34567899 && ping.session == 4242 && ping.t1_sw == T1 && ping.len == len,
	   "%s %u: 32-bit seq, SSID, T1 and length", m, len);
	ok(!key || msgfmt_verify(&rctx, key, buf, len), "%s %u: the base HMAC verifies", m, len);
	msgfmt_put_pong(&rctx, buf, &ping, MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW, &in);
	is_int(msgfmt_parse(&ectx, buf, len, MSG_PONG, &pong), 0, "%s %u: the pong parses", m, len);
	ok(pong.seq == 0x34567899 && pong.session == 4242 && pong.t1_sw == T1 &&
	   (pong.flags & MSG_F_T2), "%s %u: sender's seq, SSID and T1 echoed, T2 there", m, len);
	is_int(msgfmt_parse_body(&ectx, buf, &pong, &out), 0, "%s %u: its body", m, len);
	ok(out.t2_wire == T1 + 1000, "%s %u: T2 (%s to %s) as the reflector stamped it", m, len,
	   rptp ? "ptp" : "ntp", eptp ? "ptp" : "ntp");
	ok(out.t2_sw == TS_NONE && out.t3_sw == TS_NONE && !(out.flags & MSG_F_SW),
	   "%s %u: no SW stamps claimed", m, len);
	is_int(buf[key ? 80 : 40], 61, "%s %u: the TTL copied", m, len);
	if (len >= stamp_request_min_len(key, STAMP_WANT_TSINFO))
		ok(out.flags & MSG_F_T2_HW, "%s %u: HW T2 told by Timestamp Information", m, len);
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
}

/* A stateful reflector: its own numbers, and the follow-up of the
 * previous reply mapped back onto the sender's. */
static void test_stateful(void)
{
	struct msgfmt_side es = { .emit = true };
	struct msgfmt_side rs = { .stamp_stateful = true };
	struct msg_body in = { .t2_wire = T1 + 1000, .fu_seq = 9, .fu_t3_wire = T1 - 500,
			       .pong_no = 3 };
	struct msgfmt_ctx ectx, rctx;
	struct msg_hdr ping, pong;
	struct msg_body out;

	ctx_for(&ectx, &es);
	ctx_for(&rctx, &rs);
	make_ping(&ectx, 72, 7, 10);
	if (msgfmt_parse(&rctx, buf, 72, MSG_PING, &ping))
		BAIL_OUT("ping does not parse");
	msgfmt_put_pong(&rctx, buf, &ping, MSG_F_T2 | MSG_F_FU | MSG_F_FU_HW, &in);
	is_int(buf[3], 3, "stateful: the reply carries the reflector's own number");
	if (msgfmt_parse(&ectx, buf, 72, MSG_PONG, &pong) ||
	    msgfmt_parse_body(&ectx, buf, &pong, &out))
		BAIL_OUT("pong does not parse");
	is_u64(pong.seq, 10, "stateful: the sender's seq echoed");
	ok(out.flags & MSG_F_FU && out.flags & MSG_F_FU_HW, "stateful: a HW follow-up");
	is_u64(out.fu_seq, 9, "stateful: the follow-up names the sender's seq 9");
	ok(out.fu_t3_wire == T1 - 500, "stateful: ... and its wire T3");
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
}

/* What does not parse: short, and a pong under another key. */
static void test_reject(const struct auth *key, const struct auth *other)
{
	struct msgfmt_side es = { .emit = true, .mac = true, .key = key };
	struct msgfmt_side os = { .emit = true, .mac = true, .key = other };
	struct msgfmt_side rs = { .mac = true, .key = key };
	struct msg_body in = { .t2_wire = T1 };
	struct msgfmt_ctx ectx, octx, rctx, open;
	struct msgfmt_side opens = { 0 };
	struct msg_hdr h;

	ctx_for(&ectx, &es);
	ctx_for(&octx, &os);
	ctx_for(&rctx, &rs);
	ctx_for(&open, &opens);
	is_int(msgfmt_parse(&open, buf, STAMP_TWAMP_MIN_LEN - 1, MSG_PING, &h), -MSG_ESHORT,
	       "open: 40 octets is short");
	is_int(msgfmt_parse(&rctx, buf, STAMP_AUTH_BASE_LEN - 1, MSG_PING, &h), -MSG_ESHORT,
	       "auth: 111 octets is short");
	make_ping(&ectx, STAMP_AUTH_BASE_LEN, 1, 5);
	if (msgfmt_parse(&rctx, buf, STAMP_AUTH_BASE_LEN, MSG_PING, &h))
		BAIL_OUT("auth ping does not parse");
	msgfmt_put_pong(&rctx, buf, &h, MSG_F_T2, &in);
	is_int(msgfmt_parse(&octx, buf, STAMP_AUTH_BASE_LEN, MSG_PONG, &h), -MSG_EMAGIC,
	       "auth: a pong under another key is not this run's");
	ok(!msgfmt_verify(&octx, other, buf, STAMP_AUTH_BASE_LEN), "... nor does its MAC verify");
	ok(fmt()->caps.parse_len <= STAMP_BASE_LEN, "open parse reads the base at most");
	msgfmt_fini(&ectx);
	msgfmt_fini(&octx);
	msgfmt_fini(&rctx);
	msgfmt_fini(&open);
}

int main(void)
{
	static const uint8_t k1[32] = { 1, 2, 3 }, k2[32] = { 3, 2, 1 };
	struct auth *a = auth_create(k1, sizeof(k1)), *b = auth_create(k2, sizeof(k2));
	struct msgfmt_ctx c;
	struct msgfmt_side s = { .emit = true, .stamp_ssid = 99 };

	if (!a || !b)
		BAIL_OUT("auth_create failed");
	ctx_for(&c, &s);
	is_int(msgfmt_session_key(&c, 12345), 99, "--ssid is the session key");
	s.stamp_ssid = 0;
	ctx_for(&c, &s);
	ok(msgfmt_session_key(&c, 0xffff * 3 - 1) != 0 && msgfmt_session_key(&c, 0xffff) != 0,
	   "a random SSID is never 0");
	for (int ptp = 0; ptp < 4; ptp++) {
		test_round_trip(NULL, ptp & 1, ptp & 2, 44);
		test_round_trip(NULL, ptp & 1, ptp & 2, 200);
		test_round_trip(a, ptp & 1, ptp & 2, 112);
		test_round_trip(a, ptp & 1, ptp & 2, 300);
	}
	test_stateful();
	test_reject(a, b);
	auth_destroy(a);
	auth_destroy(b);
	return done_testing();
}
