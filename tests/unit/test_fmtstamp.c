// SPDX-License-Identifier: GPL-2.0-or-later
/* The --stamp message format (src/wire/fmtstamp.c) through the msgfmt ops. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

#include "auth.h"
#include "msgfmt.h"
#include "stamp.h"
#include "stamppeer.h"
#include "tap.h"
#include "timeutil.h"

#define T1 1700000000123456789LL

static uint8_t buf[2048];

/* The clock's state as this test says (fmtstamp.c reads it with
 * adjtimex, which this definition stands in for). */
static struct {
	int state, status;
	long maxerror_us;
	int calls;
} clk = { TIME_OK, STA_PLL, 1000, 0 };

int adjtimex(struct timex *tx)
{
	tx->status = clk.status;
	tx->maxerror = clk.maxerror_us;
	clk.calls++;
	return clk.state;
}

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

/* A stateful reflector: its own numbers, and the follow-up naming the
 * previous reply by the number the reflector gave it (RFC 8972 §4.7),
 * whatever its ping's seq was; the emitter reads both numbers back. */
static void test_stateful(void)
{
	struct msgfmt_side es = { .emit = true };
	struct msgfmt_side rs = { .stamp_stateful = true };
	struct msg_body in = { .t2_wire = T1 + 1000, .fu_seq = 9, .fu_pong_no = 2,
			       .fu_t3_wire = T1 - 500, .pong_no = 3 };
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
	ok(out.pong_no == 3 && out.fu_pong_no == 2,
	   "stateful: the reply's number 3 read back, its follow-up names reply 2 (ping 9 or not)");
	ok(fmt()->caps.fu_by_pong_no, "stateful: the emitter finds the ping by the reply's number");
	ok(out.fu_t3_wire == T1 - 500, "stateful: ... and its wire T3");
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
}

/* The reply's Error Estimate as fmtstamp.c fills it: the field. */
static uint16_t reply_ee(void)
{
	return (uint16_t)(buf[12] << 8 | buf[13]);
}

/* Reflect a fresh 200-octet ping with flags and b; the reply in buf. */
static void reflect_one(struct msgfmt_ctx *ectx, struct msgfmt_ctx *rctx, uint16_t flags,
			const struct msg_body *b)
{
	struct msg_hdr ping;

	make_ping(ectx, 200, 4242, 1);
	if (msgfmt_parse(rctx, buf, 200, MSG_PING, &ping))
		BAIL_OUT("ping does not parse");
	msgfmt_put_pong(rctx, buf, &ping, flags, b);
}

/*
 * The Error Estimates put on the wire, from the clock's state: the
 * sender's; the reflector's for a kernel T2, a NIC's T2 (the PHC's bound
 * added), a NIC's that failed its check (unknown); read again a second
 * later, when the clock lost its synchronization.
 */
static void test_error_estimate(void)
{
	struct msgfmt_side es = { .emit = true };
	struct msgfmt_side rs = { .stamp_phc_bound_ns = 50000 };
	struct msg_body in = { .t2_wire = T1 + 1000 };
	uint16_t sw_ee = stamp_ee_clock(TIME_OK, STA_PLL, 1000, 0, STAMP_NTP);
	uint16_t hw_ee = stamp_ee_clock(TIME_OK, STA_PLL, 1000, 50000, STAMP_NTP);
	struct msgfmt_ctx ectx, rctx;
	int64_t now = realtime_ns();

	clk = (typeof(clk)){ TIME_OK, STA_PLL, 1000, 0 };
	ctx_for(&ectx, &es);
	ctx_for(&rctx, &rs);
	ok(sw_ee & STAMP_EE_S && sw_ee != hw_ee && stamp_ee_err_ns(hw_ee) >= 1050000,
	   "EE: the NIC's estimate is the system clock's and the PHC's bound");
	make_ping(&ectx, 44, 1, 1);
	is_u64(reply_ee(), sw_ee, "EE: the sender's, from adjtimex: S, maxerror");
	in.t3_sw = now;
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_SW, &in);
	is_u64(reply_ee(), sw_ee, "EE: a kernel T2: the system clock's");
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW, &in);
	is_u64(reply_ee(), hw_ee, "EE: a NIC's T2: the PHC's bound added");
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW | MSG_F_CLOCK_BAD, &in);
	is_u64(reply_ee(), 0x3fff, "EE: a NIC's T2 whose PHC failed its check: no S, unknown");
	clk.status = STA_UNSYNC;
	clk.calls = 0;
	in.t3_sw = now + NS_PER_SEC / 2;
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_SW, &in);
	ok(clk.calls == 0 && reply_ee() == sw_ee, "EE: within the second, the state read before");
	in.t3_sw = now + 2 * NS_PER_SEC;
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_SW, &in);
	ok(clk.calls == 1 && reply_ee() == 0x3fff,
	   "EE: a second later, read again: unsynchronized is no S and unknown");
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
	clk = (typeof(clk)){ TIME_OK, STA_PLL, 1000, 0 };
}

/* What the sender reads of the reflector (struct msg_peer), and the report
 * kept of it (stamppeer.h). */
static void test_peer(void)
{
	struct msgfmt_side es = { .emit = true };
	struct msgfmt_side rs = { .stamp_ptp = true };
	/* DSCP 46 (EF) and ECN 1 on arrival, the session's 5th ping and pong */
	struct msg_body in = { .t2_wire = T1 + 1000, .ttl = 61, .tos = 46 << 2 | 1,
			       .rx_count = 5, .pong_no = 4 };
	struct msgfmt_ctx ectx, rctx;
	struct stamppeer sp = { 0 };
	struct msg_hdr pong;
	struct msg_body out;
	struct out o = { 0 };
	char *text = NULL;
	size_t len = 0;

	ctx_for(&ectx, &es);
	ctx_for(&rctx, &rs);
	reflect_one(&ectx, &rctx, MSG_F_T2 | MSG_F_T2_HW, &in);
	if (msgfmt_parse(&ectx, buf, 200, MSG_PONG, &pong) ||
	    msgfmt_parse_body(&ectx, buf, &pong, &out))
		BAIL_OUT("pong does not parse");
	ok(out.peer.have && out.peer.ssid == 4242 && out.peer.ttl == 61 &&
	   stamp_ee_fmt(out.peer.ee) == STAMP_PTP && stamp_ee_synced(out.peer.ee),
	   "peer: PTP (Z), S, the SSID and the TTL as the reflector reported them");
	ok(out.peer.tlv_understood == (STAMP_TLV_BIT(STAMP_TLV_TSINFO) |
				       STAMP_TLV_BIT(STAMP_TLV_FOLLOWUP) |
				       STAMP_TLV_BIT(STAMP_TLV_DIRECT) |
				       STAMP_TLV_BIT(STAMP_TLV_COS) |
				       STAMP_TLV_BIT(STAMP_TLV_PADDING)) &&
	   !out.peer.tlv_unknown && out.peer.have_tsinfo && out.peer.tsinfo[1] == STAMP_METHOD_HW,
	   "peer: its TLVs understood, T2 by HW assist");
	ok(out.has_dm && out.dm_s_tx == 1 && out.dm_r_rx == 5 && out.dm_r_tx == 5,
	   "peer: Direct Measurement: the ping's count of pings sent (1), the session's 5 received and 5 sent");
	ok(out.peer.have_cos && out.peer.cos[0] == 46 && out.peer.cos[1] == 1 &&
	   out.peer.cos[2] == 0 && rctx.reply_tos == 0,
	   "peer: Class of Service: DSCP 46, ECN 1 on arrival; RP 0, the pong leaves with DSCP1 0");
	stamppeer_take(&sp, &out.peer, 1, false);
	stamppeer_take(&sp, &out.peer, 2, false);
	ok(sp.replies == 2 && !sp.changes, "peer: the same report twice is no change");
	o.t = open_memstream(&text, &len);
	stamppeer_print(&o, &sp);
	fclose(o.t);
	ok(text && strstr(text, "stamp peer: ptp timestamps, clock synchronized (S set), error ") &&
	   strstr(text, "; SSID 4242 returned; TTL 61 on arrival;") &&
	   strstr(text, "understood: extra_padding timestamp_information class_of_service direct_measurement follow_up_telemetry,") &&
	   strstr(text, "T2 hw_assist"), "peer: the line says it: %s", text ? text : "");
	free(text);
	out.peer.ee &= (uint16_t)~STAMP_EE_S;
	stamppeer_take(&sp, &out.peer, 7, false);
	ok(sp.changes == 1 && sp.changed_seq == 7 && stamp_ee_synced(sp.first.ee) &&
	   !stamp_ee_synced(sp.last.ee), "peer: S lost at seq 7: one change, first and last kept");
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
}

/* Set U on the TLVs of type (0: every one) of the reply in buf (len
 * octets): a reflector that did not know them returned them as they came. */
static void tlvs_not_understood(uint32_t len, uint8_t type)
{
	struct stamp_tlv_iter it;
	struct stamp_tlv t;

	stamp_tlv_begin(&it, buf, len, STAMP_BASE_LEN);
	while (stamp_tlv_next(&it, &t) > 0)
		if (!type || t.type == type)
			buf[t.off] |= STAMP_TLV_U;
}

/* The body of the reply in buf (len octets) as the emitter reads it. */
static void pong_body(struct msgfmt_ctx *ectx, uint32_t len, struct msg_body *out)
{
	struct msg_hdr pong;

	if (msgfmt_parse(ectx, buf, len, MSG_PONG, &pong) ||
	    msgfmt_parse_body(ectx, buf, &pong, out))
		BAIL_OUT("pong does not parse");
}

/*
 * Which T3 the emitter takes: the reply's own (MSG_F_T3) from a reflector
 * that does not do follow-up (no TLVs in the ping, or TLVs returned with
 * U); from one that understood Follow-Up Telemetry, the follow-up's
 * (stateful: the previous reply's wire T3), or, once it zeroed it in
 * more replies than a stateful one would (stateless), the reply's own.
 */
static void test_t3_own(void)
{
	struct msgfmt_side es = { .emit = true };
	struct msgfmt_side ss = { 0 }, fs = { .stamp_stateful = true };
	struct msg_body in = { .t2_wire = T1 + 1000, .t3_sw = T1 + 3000, .fu_seq = 0,
			       .fu_t3_wire = T1 - 500 };
	struct msgfmt_ctx ectx, sctx, fctx;
	struct stamppeer sp = { 0 };
	struct msg_hdr ping;
	struct msg_body out;

	ctx_for(&ectx, &es);
	ctx_for(&sctx, &ss);
	ctx_for(&fctx, &fs);
	make_ping(&ectx, 44, 7, 1);
	if (msgfmt_parse(&sctx, buf, 44, MSG_PING, &ping))
		BAIL_OUT("ping does not parse");
	msgfmt_put_pong(&sctx, buf, &ping, MSG_F_T2 | MSG_F_SW, &in);
	pong_body(&ectx, 44, &out);
	ok(out.flags & MSG_F_T3 && out.t3_wire == T1 + 3000 && !(out.flags & MSG_F_FU),
	   "T3 own: a ping without TLVs: the reply's own T3 is the pong's");
	reflect_one(&ectx, &sctx, MSG_F_T2 | MSG_F_SW, &in);
	tlvs_not_understood(200, 0);
	pong_body(&ectx, 200, &out);
	ok(out.flags & MSG_F_T3 && out.t3_wire == T1 + 3000 && !out.peer.tlv_understood,
	   "T3 own: TLVs returned with U (not understood): the reply's own T3");
	reflect_one(&ectx, &sctx, MSG_F_T2 | MSG_F_SW, &in);
	pong_body(&ectx, 200, &out);
	ok(!(out.flags & (MSG_F_T3 | MSG_F_FU)) && out.t3_wire == T1 + 3000,
	   "T3 own: a stateless reflector that understood Follow-Up Telemetry and zeroed it: "
	   "its own T3 read, not to be taken by itself (MSG_F_T3 clear)");
	for (uint64_t i = 1; i <= STAMPPEER_STATELESS_AFTER + 1; i++) {
		ok(!stamppeer_stateless(&sp) && !stamppeer_t3_own(&sp),
		   "T3 own: %" PRIu64 " replies without a follow-up: not yet stateless", i - 1);
		stamppeer_take(&sp, &out.peer, i, false);
	}
	ok(stamppeer_stateless(&sp) && stamppeer_t3_own(&sp) &&
	   !strcmp(stamppeer_suffix_t3(&sp), "_PEER_SW"),
	   "T3 own: %d replies without one: stateless, T3 the reply's own (its SW stamp)",
	   STAMPPEER_STATELESS_AFTER + 1);
	stamppeer_take(&sp, &out.peer, 9, true);
	ok(!stamppeer_stateless(&sp), "T3 own: a follow-up then: stateful after all");
	memset(&sp, 0, sizeof(sp));
	in.pong_no = 1;
	reflect_one(&ectx, &fctx, MSG_F_T2 | MSG_F_SW | MSG_F_FU, &in);
	pong_body(&ectx, 200, &out);
	ok(!(out.flags & MSG_F_T3) && out.flags & MSG_F_FU && out.fu_t3_wire == T1 - 500,
	   "T3 own: a stateful reflector's follow-up, and not its reply's own T3");
	tlvs_not_understood(200, 0);
	pong_body(&ectx, 200, &out);
	ok(out.flags & MSG_F_T3 && !(out.flags & MSG_F_FU),
	   "T3 own: the same reply with its TLVs not understood: its own T3, no follow-up");
	reflect_one(&ectx, &fctx, MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW | MSG_F_FU, &in);
	tlvs_not_understood(200, STAMP_TLV_FOLLOWUP);
	pong_body(&ectx, 200, &out);
	stamppeer_take(&sp, &out.peer, 1, false);
	ok(out.flags & MSG_F_T3 && stamppeer_t3_own(&sp) &&
	   !strcmp(stamppeer_suffix(&sp), "_PEER_HW") &&
	   !strcmp(stamppeer_suffix_t3(&sp), "_PEER_SW"),
	   "T3 own: Timestamp Information understood, Follow-Up Telemetry not: T2 named by "
	   "its method (HW), the reply's T3 by its own (SW)");
	in.t3_sw = TS_NONE;
	make_ping(&ectx, 44, 7, 1);
	if (msgfmt_parse(&sctx, buf, 44, MSG_PING, &ping))
		BAIL_OUT("ping does not parse");
	msgfmt_put_pong(&sctx, buf, &ping, MSG_F_T2, &in);
	memset(buf + 4, 0, 8);	/* a reflector that reports no T3 */
	pong_body(&ectx, 44, &out);
	ok(!(out.flags & MSG_F_T3), "T3 own: a reply with a zero Timestamp has none");
	msgfmt_fini(&ectx);
	msgfmt_fini(&sctx);
	msgfmt_fini(&fctx);
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

/* set_seq() per ping writes only what changes: the request it leaves is
 * the one a fresh put_ping() writes for that seq and T1, byte for byte,
 * at every length and TLV layout, open and under a key. */
static void test_set_seq_same(const struct auth *key, bool ptp)
{
	static const uint32_t lens[] = { 44, 71, 72, 75, 76, 100, 112, 140, 200, 1500 };
	struct msgfmt_side es = { .emit = true, .mac = key, .key = key, .stamp_ptp = ptp };
	static uint8_t again[2048];
	struct msgfmt_ctx c1, c2;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint32_t len = lens[i];
		struct msg_hdr h = { .type = MSG_PING, .session = 4242, .len = len,
				     .seq = 1, .t1_sw = T1 };

		if (key && len < STAMP_AUTH_BASE_LEN)
			continue;
		ctx_for(&c1, &es);
		ctx_for(&c2, &es);
		memset(buf, 0xa5, sizeof(buf));
		msgfmt_put_ping(&c1, buf, &h);
		msgfmt_set_seq(&c1, buf, 2, T1 + 7);
		msgfmt_set_seq(&c1, buf, 0x1234567899ULL, T1 + 123456789);
		h.seq = 0x1234567899ULL;
		h.t1_sw = T1 + 123456789;
		memset(again, 0x5a, sizeof(again));
		msgfmt_put_ping(&c2, again, &h);
		ok(!memcmp(buf, again, len), "set_seq %s %s %u: the bytes of a fresh ping",
		   key ? "auth" : "open", ptp ? "ptp" : "ntp", len);
		msgfmt_fini(&c1);
		msgfmt_fini(&c2);
	}
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
	for (int ptp = 0; ptp < 2; ptp++) {
		test_set_seq_same(NULL, ptp);
		test_set_seq_same(a, ptp);
	}
	test_stateful();
	test_error_estimate();
	test_peer();
	test_t3_own();
	test_reject(a, b);
	auth_destroy(a);
	auth_destroy(b);
	return done_testing();
}
