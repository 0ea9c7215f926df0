/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/msgfmt.h: every format of the table through the same round trips
 * (ping encoded and parsed, answered in place, the pong and its body
 * parsed, with and without --key's MAC) and the same rejections (short,
 * another format's magic, another version, the wrong type, a length
 * that differs from the bytes received); the selector, the sequence
 * numbers' widening and the names.
 */
#include <string.h>

#include "auth.h"
#include "msgfmt.h"
#include "opts.h"
#include "tap.h"

#define SES 0xa1b2c3d4u
#define T1 1700000000123456789LL

static uint8_t buf[2048];

/*
 * Where each format keeps what a rejection test changes: the offset of
 * a magic octet and of the version octet, and the value that breaks it.
 * A format added to the table without a row here fails the test.
 */
struct bad_octet {
	size_t off;
	uint8_t val;
	int err;		/* MSG_E* */
	const char *what;
};

static const struct {
	const char *name;
	struct bad_octet bad[4];
} cases[] = {
	{ "rant", { { 0, 'X', MSG_EMAGIC, "magic" }, { 4, 2, MSG_EVERSION, "version" },
		    { 5, 3, MSG_ETYPE, "type octet 3" } } },
	{ "ptp", { { 4, 0, MSG_EMAGIC, "PTP domain 0" }, { 1, 1, MSG_EVERSION, "PTPv1" },
		   { 34, 'X', MSG_EMAGIC, "rant's magic behind the header" },
		   { 38, 2, MSG_EVERSION, "rant's version behind the header" } } },
};

static const struct bad_octet *bad_of(const struct msgfmt *f)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, f->name))
			return cases[i].bad;
	return NULL;
}

static void ctx_for(struct msgfmt_ctx *ctx, const struct msgfmt *f, bool emit, bool mac)
{
	struct msgfmt_side side = { .emit = emit, .mac = mac, .iface = "lo" };
	char err[128];

	if (msgfmt_init(ctx, f, &side, err, sizeof(err)))
		BAIL_OUT(err);
}

/* A ping of size bytes (-m) with seq 77 and T1, padded with 0xa5. */
static uint32_t make_ping(struct msgfmt_ctx *ctx, uint32_t size, uint16_t flags)
{
	struct msg_hdr h = { .type = MSG_PING, .flags = flags, .session = SES,
			     .len = msgfmt_wire_len(ctx, size) };

	memset(buf, 0xa5, sizeof(buf));
	msgfmt_put_ping(ctx, buf, &h);
	msgfmt_set_seq(ctx, buf, 77, T1);
	return h.len;
}

static void test_ping(const struct msgfmt *f)
{
	struct msgfmt_ctx ctx;
	struct msg_hdr h;
	uint32_t n;
	int64_t t1 = 0;

	ctx_for(&ctx, f, true, false);
	n = make_ping(&ctx, f->caps.body_len, MSG_F_WANT_SW);
	is_int(n, f->caps.body_len + f->caps.overhead, "%s: the datagram is -m and the overhead",
	       f->name);
	is_u64(f->get_seq(&ctx, buf, n, &t1), 77, "%s: get_seq reads the seq set", f->name);
	ok(t1 == T1, "%s: ... and T1_SW", f->name);
	is_int(msgfmt_parse(&ctx, buf, n, MSG_PING, &h), 0, "%s: the ping parses", f->name);
	ok(h.type == MSG_PING && h.flags == MSG_F_WANT_SW && h.session == SES && h.len == n &&
	   h.seq == 77 && h.t1_sw == T1, "%s: every header field as encoded", f->name);
	is_int(msgfmt_parse(&ctx, buf, n, MSG_PONG, &h), -MSG_ETYPE,
	       "%s: a ping where a pong is awaited: wrong type", f->name);
	ok(buf[n] == 0xa5, "%s: nothing written past the message", f->name);
	msgfmt_fini(&ctx);
}

/* The reflector answers a ping of size bytes; the emitter reads the pong. */
static void test_pong(const struct msgfmt *f, uint32_t size, bool mac)
{
	const struct msg_body in = { .t2_wire = T1 + 1000, .t2_sw = T1 + 2000,
				     .t3_sw = T1 + 3000, .fu_seq = 76, .fu_t3_wire = -5 };
	uint16_t flags = MSG_F_T2 | MSG_F_T2_HW | MSG_F_SW | MSG_F_FU | MSG_F_CLOCK_BAD;
	struct msgfmt_ctx ectx, rctx;
	struct msg_hdr ping, pong;
	struct msg_body out;
	bool body = size >= (mac ? f->caps.auth_body_len : f->caps.body_len);
	uint32_t n;

	ctx_for(&ectx, f, true, mac);
	ctx_for(&rctx, f, false, mac);
	n = make_ping(&ectx, size, MSG_F_WARMUP | (mac ? MSG_F_MAC : 0));
	if (msgfmt_parse(&rctx, buf, n, MSG_PING, &ping))
		BAIL_OUT("a ping the format encoded does not parse");
	msgfmt_put_pong(&rctx, buf, &ping, flags, &in);
	is_int(msgfmt_parse(&ectx, buf, n, MSG_PONG, &pong), 0, "%s %u%s: the pong parses",
	       f->name, size, mac ? " MAC" : "");
	ok(pong.seq == 77 && pong.t1_sw == T1 && pong.session == SES && pong.len == n,
	   "%s %u: seq, T1_SW, session and length echoed", f->name, size);
	is_int(pong.flags, (MSG_F_WARMUP | (mac ? MSG_F_MAC : 0) | flags),
	       "%s %u: the ping's flags echoed, the pong's added", f->name, size);
	is_int(msgfmt_parse(&ectx, buf, n, MSG_PING, &ping), -MSG_ETYPE,
	       "%s %u: a pong where a ping is awaited: wrong type", f->name, size);
	if (body) {
		is_int(msgfmt_parse_body(&ectx, buf, &pong, &out), 0, "%s %u: a body", f->name,
		       size);
		ok(out.t2_wire == in.t2_wire && out.t2_sw == in.t2_sw && out.t3_sw == in.t3_sw &&
		   out.fu_seq == in.fu_seq && out.fu_t3_wire == in.fu_t3_wire,
		   "%s %u: every stamp of the body as sent", f->name, size);
	} else {
		is_int(msgfmt_parse_body(&ectx, buf, &pong, &out), -MSG_ESHORT,
		       "%s %u%s: no room for a body", f->name, size, mac ? " with a MAC" : "");
	}
	msgfmt_fini(&ectx);
	msgfmt_fini(&rctx);
}

static void test_reject(const struct msgfmt *f)
{
	const struct bad_octet *bad = bad_of(f);
	struct msgfmt_ctx ctx;
	struct msg_hdr h, sentinel;
	uint32_t n, min;

	if (!bad) {
		fail("%s: no rejection cases in this test: add its row to cases[]", f->name);
		return;
	}
	ctx_for(&ctx, f, false, false);
	min = msgfmt_wire_len(&ctx, f->caps.min_len);
	n = make_ping(&ctx, f->caps.min_len, 0);
	is_int(msgfmt_parse(&ctx, buf, n, MSG_PING, &h), 0, "%s: the smallest ping (%u) parses",
	       f->name, n);
	ok(f->caps.parse_len <= n, "%s: parse reads no more than the smallest message", f->name);
	for (uint32_t k = 0; k < min; k += k < 8 ? 1 : 7)
		is_int(msgfmt_parse(&ctx, buf, k, MSG_PING, &h), -MSG_ESHORT, "%s: %u bytes: short",
		       f->name, k);
	n = make_ping(&ctx, f->caps.min_len + 40, 0);
	memset(&h, 0x5a, sizeof(h));
	sentinel = h;
	is_int(msgfmt_parse(&ctx, buf, n - 1, MSG_PING, &h), -MSG_ELEN,
	       "%s: one byte fewer than its length says", f->name);
	is_int(msgfmt_parse(&ctx, buf, n + 1, MSG_PING, &h), -MSG_ELEN,
	       "%s: one byte more than its length says", f->name);
	ok(!memcmp(&h, &sentinel, sizeof(h)), "%s: h untouched on a rejection", f->name);
	for (int i = 0; i < 4 && bad[i].what; i++) {
		n = make_ping(&ctx, f->caps.min_len + 40, 0);
		buf[bad[i].off] = bad[i].val;
		is_int(msgfmt_parse(&ctx, buf, n, MSG_PING, &h), -bad[i].err, "%s: %s: %s",
		       f->name, bad[i].what, msgfmt_strerror(bad[i].err));
	}
	msgfmt_fini(&ctx);
}

/* --key: the MAC covers what the format says, and the header carries the flag. */
static void test_mac(const struct msgfmt *f)
{
	static const uint8_t key[32] = { 1, 2, 3 };
	struct auth *a = auth_create(key, sizeof(key));
	struct msgfmt_ctx ctx;
	uint32_t n;

	if (!a)
		BAIL_OUT("auth_create failed");
	ctx_for(&ctx, f, true, true);
	n = make_ping(&ctx, f->caps.auth_min_len, MSG_F_MAC);
	msgfmt_sign(&ctx, a, buf, n);
	ok(msgfmt_verify(&ctx, a, buf, n), "%s: a signed ping verifies", f->name);
	buf[n - 1] ^= 1;
	ok(!msgfmt_verify(&ctx, a, buf, n), "%s: ... and not with its MAC changed", f->name);
	buf[n - 1] ^= 1;
	buf[msgfmt_wire_len(&ctx, 0) + 20] ^= 1;
	ok(!msgfmt_verify(&ctx, a, buf, n), "%s: ... nor with its seq changed", f->name);
	msgfmt_fini(&ctx);
	auth_destroy(a);
}

static void test_table(void)
{
	struct rant_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	is_str(msgfmt_nth(0)->name, "rant", "rant's own format is the table's first row");
	ok(!opts_format(&cfg), "no option: no format named");
	is_str(msgfmt_find(opts_format(&cfg))->name, "rant", "and rant's own is the default");
	cfg.ptp_mode = true;
	is_str(msgfmt_find(opts_format(&cfg))->name, "ptp", "--ptp-mode selects ptp");
	is_int(msgfmt_find("ptp")->caps.overhead, 34, "... 34 bytes of PTP header before rant's");
	ok(msgfmt_find("nonesuch") == NULL, "a name the table lacks: NULL");
	ok(msgfmt_nth(100) == NULL, "no row 100");
	is_str(msgfmt_strerror(-MSG_ELEN), "length", "strerror");
	is_str(msgfmt_strerror(-1000), "unknown", "strerror out of range");
	is_str(msgfmt_ts_name(MSGFMT_TS_NTP64), "ntp64", "timestamp encoding name");
}

/* A format with a 32-bit sequence number: the loops widen it. */
static void test_seq_near(void)
{
	struct msgfmt narrow = msgfmt_rant;
	struct msgfmt_ctx c = { .f = &narrow }, wide = { .f = &msgfmt_rant };

	narrow.caps.seq_mask = UINT32_MAX;
	is_u64(msgfmt_seq_near(&wide, 5, 900), 900, "64-bit: a seq is itself, above ...");
	is_u64(msgfmt_seq_near(&wide, 900, 5), 5, "... or below");
	is_u64(msgfmt_seq_near(&c, 0x100000005ULL, 4), 0x100000004ULL,
	       "32-bit: the seq before, across 2^32");
	is_u64(msgfmt_seq_near(&c, 0xffffffffULL, 0), 0x100000000ULL,
	       "32-bit: the seq after, across the wrap");
	is_u64(msgfmt_seq_near(&c, 3, 0xfffffffeULL), (uint64_t)-2,
	       "32-bit: 2^32 - 2 while seq 3 is the last sent: 5 before it, below 0");
}

int main(void)
{
	const struct msgfmt *f;

	test_table();
	test_seq_near();
	for (size_t i = 0; (f = msgfmt_nth(i)); i++) {
		/* STAMP has no type, no flags and no SW stamps to echo, and
		 * signs its own TLVs: tests/unit/test_fmtstamp.c */
		if (!strcmp(f->name, "stamp"))
			continue;
		test_ping(f);
		test_pong(f, f->caps.min_len, false);
		test_pong(f, f->caps.body_len, false);
		test_pong(f, 1000, false);
		test_pong(f, f->caps.auth_min_len, true);
		test_pong(f, f->caps.auth_body_len, true);
		test_reject(f);
		test_mac(f);
	}
	return done_testing();
}
