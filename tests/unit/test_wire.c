/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/wire.h: the datagram layout at the documented offsets, round trips,
 * and every rejection wire_parse() and wire_parse_body() make.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "hostid.h"
#include "wire.h"

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(uint8_t *p, int n, uint64_t v)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static const struct msg_hdr sample_hdr = {
	.type = MSG_PING,
	.flags = MSG_F_WARMUP | MSG_F_WANT_SW | 0x1200,
	.session = 0x89abcdefu,
	.len = 100,
	.seq = 0x0102030405060708ull,
	.t1_sw = 1700000000123456789ll,
};

/* A valid datagram of n bytes (n >= WIRE_HDR_LEN) with padding 0xa5. */
static void make_dgram(uint8_t *buf, size_t n, enum msg_type type)
{
	struct msg_hdr h = sample_hdr;

	memset(buf, 0xa5, n);
	h.type = (uint8_t)type;
	h.len = (uint32_t)n;
	wire_put_hdr(buf, &h);
}

static void test_layout(void)
{
	uint8_t buf[WIRE_PONG_LEN + 8];
	const struct msg_body b = {
		.t2_wire = 1700000001000000001ll,
		.t2_sw = 1700000001000000502ll,
		.t3_sw = 1700000001000001003ll,
		.fu_seq = 0xfedcba9876543210ull,
		.fu_t3_wire = -2,	/* two's complement, big-endian */
	};

	memset(buf, 0xa5, sizeof(buf));
	wire_put_hdr(buf, &sample_hdr);
	is_mem(buf, "RANT", 4, "magic \"RANT\" at offset 0");
	is_int(buf[4], WIRE_VERSION, "version at offset 4");
	is_int(buf[5], MSG_PING, "type at offset 5");
	is_u64(get_be(buf + 6, 2), sample_hdr.flags, "flags big-endian at 6");
	is_int(buf[6], 0x12, "flags high byte first");
	is_u64(get_be(buf + 8, 4), 0x89abcdefu, "session big-endian at 8");
	is_int(buf[8], 0x89, "session high byte first");
	is_u64(get_be(buf + 12, 4), 100, "length big-endian at 12");
	is_u64(get_be(buf + 16, 8), 0x0102030405060708ull,
	       "sequence big-endian at 16");
	is_int(buf[16], 0x01, "sequence high byte first");
	is_i64((int64_t)get_be(buf + 24, 8), 1700000000123456789ll,
	       "T1_SW big-endian at 24");
	ok(buf[WIRE_HDR_LEN] == 0xa5 && buf[WIRE_HDR_LEN + 1] == 0xa5,
	   "wire_put_hdr writes nothing past %d bytes", WIRE_HDR_LEN);

	wire_put_body(buf, &b);
	is_i64((int64_t)get_be(buf + 32, 8), b.t2_wire, "T2 wire at 32");
	is_i64((int64_t)get_be(buf + 40, 8), b.t2_sw, "T2_SW at 40");
	is_i64((int64_t)get_be(buf + 48, 8), b.t3_sw, "T3_SW at 48");
	is_u64(get_be(buf + 56, 8), b.fu_seq, "follow-up seq at 56");
	is_int(buf[56], 0xfe, "follow-up seq high byte first");
	is_u64(get_be(buf + 64, 8), 0xfffffffffffffffeull,
	       "follow-up T3 wire at 64 (negative as two's complement)");
	is_mem(buf, "RANT", 4, "wire_put_body leaves the header alone");
	is_u64(get_be(buf + 16, 8), 0x0102030405060708ull,
	       "wire_put_body leaves the sequence alone");
	ok(buf[WIRE_PONG_LEN] == 0xa5 && buf[WIRE_PONG_LEN + 7] == 0xa5,
	   "wire_put_body writes nothing past %d bytes", WIRE_PONG_LEN);
}

static void test_round_trip(void)
{
	static const struct msg_hdr cases[] = {
		{ MSG_PING, 0, 0, WIRE_HDR_LEN, 0, 0, 0 },
		{ MSG_PING, 0xffff, 0xffffffffu, 1000, UINT64_MAX, INT64_MAX, 0 },
		{ MSG_PONG, MSG_F_T2 | MSG_F_SW | MSG_F_FU, 1, 72, 1, -1, 0 },
		{ MSG_PONG, 0x8001, 0x80000000u, WIRE_MAX_LEN,
		  0x8000000000000000ull, INT64_MIN, 0 },
	};
	static uint8_t buf[WIRE_MAX_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct msg_hdr *c = &cases[i];
		struct msg_hdr h;
		int r;

		memset(buf, 0, c->len);
		wire_put_hdr(buf, c);
		memset(&h, 0x5a, sizeof(h));
		r = wire_parse(buf, c->len, (enum msg_type)c->type, &h);
		is_int(r, 0, "round trip %zu: parse accepts len %u", i,
		       (unsigned)c->len);
		ok(h.type == c->type && h.flags == c->flags &&
		   h.session == c->session && h.len == c->len &&
		   h.seq == c->seq && h.t1_sw == c->t1_sw,
		   "round trip %zu: every header field decoded", i);
		if (h.seq != c->seq || h.t1_sw != c->t1_sw ||
		    h.flags != c->flags || h.session != c->session)
			diag("type %u flags %#x session %#x len %u seq %#llx t1 %lld",
			     h.type, h.flags, h.session, h.len,
			     (unsigned long long)h.seq, (long long)h.t1_sw);
	}
}

static void test_body(void)
{
	uint8_t buf[WIRE_PONG_LEN + 10];
	const struct msg_body in = {
		.t2_wire = INT64_MIN + 1,
		.t2_sw = 1700000001000000502ll,
		.t3_sw = -7,
		.fu_seq = UINT64_MAX,
		.fu_t3_wire = INT64_MAX,
	};
	struct msg_body out, sentinel;

	make_dgram(buf, sizeof(buf), MSG_PONG);
	wire_put_body(buf, &in);
	memset(&out, 0, sizeof(out));
	is_int(wire_parse_body(buf, WIRE_PONG_LEN, &out), 0,
	       "wire_parse_body accepts n == %d", WIRE_PONG_LEN);
	ok(out.t2_wire == in.t2_wire && out.t2_sw == in.t2_sw &&
	   out.t3_sw == in.t3_sw && out.fu_seq == in.fu_seq &&
	   out.fu_t3_wire == in.fu_t3_wire, "body round trip, extremes");
	memset(&out, 0, sizeof(out));
	is_int(wire_parse_body(buf, sizeof(buf), &out), 0,
	       "wire_parse_body accepts n > %d", WIRE_PONG_LEN);
	is_i64(out.fu_t3_wire, INT64_MAX, "body decoded from a longer datagram");

	memset(&sentinel, 0x77, sizeof(sentinel));
	out = sentinel;
	is_int(wire_parse_body(buf, WIRE_PONG_LEN - 1, &out), -MSG_ESHORT,
	       "wire_parse_body: n = %d is -MSG_ESHORT", WIRE_PONG_LEN - 1);
	is_int(wire_parse_body(buf, WIRE_HDR_LEN, &out), -MSG_ESHORT,
	       "wire_parse_body: n = %d (header only) is -MSG_ESHORT",
	       WIRE_HDR_LEN);
	is_int(wire_parse_body(buf, 0, &out), -MSG_ESHORT,
	       "wire_parse_body: n = 0 is -MSG_ESHORT");
}

static void test_reject(void)
{
	uint8_t buf[200];
	struct msg_hdr h, sentinel;
	int r;

	memset(&sentinel, 0x5a, sizeof(sentinel));

	/* short */
	make_dgram(buf, 100, MSG_PING);
	for (size_t n = 0; n < WIRE_HDR_LEN; n += (n < 4 ? 1 : 9)) {
		h = sentinel;
		r = wire_parse(buf, n, MSG_PING, &h);
		is_int(r, -MSG_ESHORT, "n = %zu is -MSG_ESHORT", n);
	}
	put_be(buf + 12, 4, WIRE_HDR_LEN - 1);
	is_int(wire_parse(buf, WIRE_HDR_LEN - 1, MSG_PING, &h), -MSG_ESHORT,
	       "n = 31 with a length field of 31 is still -MSG_ESHORT");
	make_dgram(buf, WIRE_HDR_LEN, MSG_PING);
	is_int(wire_parse(buf, WIRE_HDR_LEN, MSG_PING, &h), 0,
	       "n = 32 (header only, length 32) is accepted");

	/* magic */
	const char *bad_magic[] = { "rant", "RANX", "XANT", "\0\0\0\0" };

	for (size_t i = 0; i < 4; i++) {
		make_dgram(buf, 64, MSG_PING);
		memcpy(buf, bad_magic[i], 4);
		h = sentinel;
		r = wire_parse(buf, 64, MSG_PING, &h);
		is_int(r, -MSG_EMAGIC, "magic \"%.4s\" is -MSG_EMAGIC",
		       i == 3 ? "\\0.." : bad_magic[i]);
		is_mem(&h, &sentinel, sizeof(h), "h untouched on -MSG_EMAGIC");
	}

	/* version */
	const int bad_ver[] = { 0, WIRE_VERSION + 1, 255 };

	for (size_t i = 0; i < 3; i++) {
		make_dgram(buf, 64, MSG_PING);
		buf[4] = (uint8_t)bad_ver[i];
		h = sentinel;
		r = wire_parse(buf, 64, MSG_PING, &h);
		is_int(r, -MSG_EVERSION, "version %d is -MSG_EVERSION",
		       bad_ver[i]);
		is_mem(&h, &sentinel, sizeof(h), "h untouched on -MSG_EVERSION");
	}

	/* type */
	make_dgram(buf, 64, MSG_PONG);
	h = sentinel;
	is_int(wire_parse(buf, 64, MSG_PING, &h), -MSG_ETYPE,
	       "a pong where a ping is expected is -MSG_ETYPE");
	is_mem(&h, &sentinel, sizeof(h), "h untouched on -MSG_ETYPE");
	make_dgram(buf, 64, MSG_PING);
	is_int(wire_parse(buf, 64, MSG_PONG, &h), -MSG_ETYPE,
	       "a ping where a pong is expected is -MSG_ETYPE");
	buf[5] = 0;
	is_int(wire_parse(buf, 64, MSG_PING, &h), -MSG_ETYPE,
	       "type 0 is -MSG_ETYPE");
	buf[5] = 3;
	is_int(wire_parse(buf, 64, MSG_PING, &h), -MSG_ETYPE,
	       "type 3 is -MSG_ETYPE");

	/* length */
	make_dgram(buf, 100, MSG_PING);
	h = sentinel;
	is_int(wire_parse(buf, 99, MSG_PING, &h), -MSG_ELEN,
	       "length field 100, 99 bytes received is -MSG_ELEN");
	is_mem(&h, &sentinel, sizeof(h), "h untouched on -MSG_ELEN");
	is_int(wire_parse(buf, 101, MSG_PING, &h), -MSG_ELEN,
	       "length field 100, 101 bytes received is -MSG_ELEN");
	is_int(wire_parse(buf, 100, MSG_PING, &h), 0,
	       "length field 100, 100 bytes received is accepted");
	put_be(buf + 12, 4, 100 + 0x10000);
	is_int(wire_parse(buf, 100, MSG_PING, &h), -MSG_ELEN,
	       "length field 65636 (100 + 2^16) is -MSG_ELEN");
	put_be(buf + 12, 4, 0);
	is_int(wire_parse(buf, 100, MSG_PING, &h), -MSG_ELEN,
	       "length field 0 is -MSG_ELEN");
	put_be(buf + 12, 4, 0xffffffffu);
	is_int(wire_parse(buf, 100, MSG_PING, &h), -MSG_ELEN,
	       "length field 0xffffffff is -MSG_ELEN");

	/* flags, session, seq and t1 are never a reason to reject */
	make_dgram(buf, 64, MSG_PONG);
	put_be(buf + 6, 2, 0xffff);
	put_be(buf + 8, 4, 0);
	put_be(buf + 16, 8, 0);
	put_be(buf + 24, 8, 0);
	is_int(wire_parse(buf, 64, MSG_PONG, &h), 0,
	       "all-ones flags, zero session, seq and T1 are accepted");
	is_int(h.flags, 0xffff, "flags 0xffff decoded");
}

static void test_set_seq(void)
{
	uint8_t buf[128], before[128];
	struct msg_hdr h;

	make_dgram(buf, sizeof(buf), MSG_PING);
	memcpy(before, buf, sizeof(buf));
	wire_set_seq(buf, 0x1122334455667788ull, -1700000000000000001ll);
	is_mem(buf, before, 16, "wire_set_seq leaves bytes 0..15 alone");
	is_mem(buf + 32, before + 32, sizeof(buf) - 32,
	       "wire_set_seq leaves bytes 32.. alone");
	is_u64(get_be(buf + 16, 8), 0x1122334455667788ull,
	       "wire_set_seq writes seq big-endian at 16");
	is_i64((int64_t)get_be(buf + 24, 8), -1700000000000000001ll,
	       "wire_set_seq writes T1_SW big-endian at 24");
	is_int(wire_parse(buf, sizeof(buf), MSG_PING, &h), 0,
	       "still a valid ping after wire_set_seq");
	is_u64(h.seq, 0x1122334455667788ull, "parsed seq after wire_set_seq");
	is_i64(h.t1_sw, -1700000000000000001ll,
	       "parsed T1_SW after wire_set_seq");
	is_u64(h.session, sample_hdr.session, "session kept by wire_set_seq");
}

static void test_strerror(void)
{
	const char *names[MSG_NERR] = { 0 };
	bool distinct = true;

	for (int c = 1; c < MSG_NERR; c++) {
		names[c] = msgfmt_strerror(-c);
		ok(names[c] && names[c][0],
		   "msgfmt_strerror(-%d) (as wire_parse returns it) names it: %s",
		   c, names[c] ? names[c] : "(null)");
		if (names[c] && msgfmt_strerror(c))
			is_str(msgfmt_strerror(c), names[c],
			       "msgfmt_strerror(%d) gives the same name", c);
		else
			fail("msgfmt_strerror(%d) gives the same name", c);
	}
	for (int c = 1; c < MSG_NERR; c++)
		for (int d = c + 1; d < MSG_NERR; d++)
			if (names[c] && names[d] && !strcmp(names[c], names[d]))
				distinct = false;
	ok(distinct, "the names are distinct");
	ok(names[MSG_ESHORT] && strstr(names[MSG_ESHORT], "short"),
	   "MSG_ESHORT is named \"short\"");
	ok(names[MSG_EMAGIC] && strstr(names[MSG_EMAGIC], "magic"),
	   "MSG_EMAGIC is named \"magic\"");
	ok(msgfmt_strerror(-1000) != NULL && msgfmt_strerror(MSG_NERR) != NULL,
	   "an unknown code gives a string, not NULL");
	/* -INT_MIN overflows: found by the fuzz harness and UBSan. */
	is_str(msgfmt_strerror(INT_MIN), "unknown", "msgfmt_strerror(INT_MIN) is \"unknown\"");
	is_str(msgfmt_strerror(INT_MAX), "unknown", "msgfmt_strerror(INT_MAX) is \"unknown\"");
	is_str(msgfmt_strerror(-MSG_NERR), "unknown", "msgfmt_strerror(-MSG_NERR) is \"unknown\"");
}

/* The reflector's host tag (hostid.h): in warm-up pongs only, in
 * T2_SW's place with MSG_F_HOST and MSG_F_SW clear; none without a key. */
static void test_host_tag(void)
{
	static const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	const struct msgfmt_side refl = { .host_key = key }, plain = { 0 };
	const struct msg_body in = { .t2_wire = 11, .t2_sw = 22, .t3_sw = 33 };
	struct msg_hdr ping = { MSG_PING, MSG_F_WARMUP | MSG_F_WANT_SW, 0xabcd1234,
				WIRE_PONG_LEN, 7, 99, 0 }, h;
	struct msgfmt_ctx ctx, ctx0;
	uint16_t pf = MSG_F_T2 | MSG_F_SW;
	uint8_t buf[WIRE_PONG_LEN];
	struct msg_body out;

	if (msgfmt_init(&ctx, &msgfmt_rant, &refl, NULL, 0) ||
	    msgfmt_init(&ctx0, &msgfmt_rant, &plain, NULL, 0))
		BAIL_OUT("msgfmt_init");
	wire_put_hdr(buf, &ping);	/* put_pong answers in place */
	msgfmt_put_pong(&ctx, buf, &ping, pf, &in);
	ok(!wire_parse(buf, sizeof(buf), MSG_PONG, &h) && !msgfmt_parse_body(&ctx0, buf, &h, &out),
	   "warm-up pong with a tag parses");
	ok((h.flags & MSG_F_HOST) && !(h.flags & MSG_F_SW) && (h.flags & MSG_F_T2),
	   "warm-up pong: MSG_F_HOST, MSG_F_SW cleared, T2 kept");
	ok(out.host_tag == hostid_tag(key, 0xabcd1234) && out.t2_sw == 0 && out.t3_sw == 0 &&
	   out.t2_wire == 11, "the tag of the ping's session, in T2_SW's place");
	ping.flags = MSG_F_WANT_SW;
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&ctx, buf, &ping, pf, &in);
	ok(!wire_parse(buf, sizeof(buf), MSG_PONG, &h) &&
	   !msgfmt_parse_body(&ctx0, buf, &h, &out) && !(h.flags & MSG_F_HOST) &&
	   (h.flags & MSG_F_SW) && out.t2_sw == 22 && out.host_tag == 0,
	   "measured pong: its SW stamps, no tag");
	ping.flags = MSG_F_WARMUP;
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&ctx0, buf, &ping, MSG_F_T2, &in);
	ok(!wire_parse(buf, sizeof(buf), MSG_PONG, &h) && !(h.flags & MSG_F_HOST),
	   "a reflector without a boot id: no tag");
	ping.len = WIRE_HDR_LEN;
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&ctx, buf, &ping, MSG_F_T2, &in);
	ok(!wire_parse(buf, WIRE_HDR_LEN, MSG_PONG, &h) && !(h.flags & MSG_F_HOST),
	   "a pong too short for a body: no tag");
}

/* The reflector's report (wire.h): at bytes 72-103 of a pong whose ping
 * asked for it and is long enough, with MSG_F_REPORT; the padding of a
 * ping that did not ask echoed unchanged; the pong as long as the ping;
 * a report of another version not read. */
static void test_report(void)
{
	const struct msgfmt_side side = { 0 }, keyed = { .mac = true };
	struct msg_body in = { .t2_wire = 11, .report = { .send_errors = 3, .qdisc_drops = 1897,
							  .queue_max_ns = 151000000 } };
	struct msg_hdr ping = { MSG_PING, MSG_F_WANT_REPORT, 0xabcd1234, WIRE_REPORT_LEN, 7,
				99, 0 }, h;
	struct msgfmt_ctx ctx, kctx;
	uint8_t buf[WIRE_AUTH_REPORT_LEN], pad[WIRE_REPORT_LEN];
	struct msg_body out;

	if (msgfmt_init(&ctx, &msgfmt_rant, &side, NULL, 0) ||
	    msgfmt_init(&kctx, &msgfmt_rant, &keyed, NULL, 0))
		BAIL_OUT("msgfmt_init");
	memset(buf, 0xa5, sizeof(buf));
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&ctx, buf, &ping, MSG_F_T2 | MSG_F_REPORT, &in);
	ok(!wire_parse(buf, WIRE_REPORT_LEN, MSG_PONG, &h) && (h.flags & MSG_F_REPORT) &&
	   (h.flags & MSG_F_WANT_REPORT) && h.len == WIRE_REPORT_LEN,
	   "a 104-byte ping that asks: its pong says MSG_F_REPORT, as long as the ping");
	ok(!msgfmt_parse_body(&ctx, buf, &h, &out) && out.report.have &&
	   out.report.send_errors == 3 && out.report.qdisc_drops == 1897 &&
	   out.report.queue_max_ns == 151000000 && out.t2_wire == 11,
	   "the report read back beside the body");
	ok(buf[72] == WIRE_REPORT_VERSION && buf[73] == 0 && buf[79] == 0,
	   "at byte 72: its version, then zeros");
	buf[72] = WIRE_REPORT_VERSION + 1;
	ok(!msgfmt_parse_body(&ctx, buf, &h, &out) && !out.report.have,
	   "a report of another version is not read");
	/* a ping that does not ask: its padding echoed */
	ping.flags = 0;
	memset(buf, 0xa5, sizeof(buf));
	wire_put_hdr(buf, &ping);
	memcpy(pad, buf, sizeof(pad));
	msgfmt_put_pong(&ctx, buf, &ping, MSG_F_T2 | MSG_F_REPORT, &in);
	ok(!wire_parse(buf, WIRE_REPORT_LEN, MSG_PONG, &h) && !(h.flags & MSG_F_REPORT) &&
	   !memcmp(buf + 72, pad + 72, WIRE_REPORT_LEN - 72),
	   "a ping that does not ask: no report, its padding echoed unchanged");
	/* too short: no report, whatever the ping asks */
	ping = (struct msg_hdr){ MSG_PING, MSG_F_WANT_REPORT, 1, WIRE_REPORT_LEN - 1, 7, 99, 0 };
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&ctx, buf, &ping, MSG_F_T2 | MSG_F_REPORT, &in);
	ok(!wire_parse(buf, WIRE_REPORT_LEN - 1, MSG_PONG, &h) && !(h.flags & MSG_F_REPORT) &&
	   !msgfmt_parse_body(&ctx, buf, &h, &out) && !out.report.have,
	   "a 103-byte ping: no room, no report");
	/* --key: the MAC's 16 bytes after it */
	ping = (struct msg_hdr){ MSG_PING, MSG_F_WANT_REPORT | MSG_F_MAC, 1, WIRE_REPORT_LEN,
				 7, 99, 0 };
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&kctx, buf, &ping, MSG_F_T2 | MSG_F_REPORT, &in);
	ok(!wire_parse(buf, WIRE_REPORT_LEN, MSG_PONG, &h) && !(h.flags & MSG_F_REPORT),
	   "--key: 104 bytes leave no room before the MAC");
	ping.len = WIRE_AUTH_REPORT_LEN;
	wire_put_hdr(buf, &ping);
	msgfmt_put_pong(&kctx, buf, &ping, MSG_F_T2 | MSG_F_REPORT, &in);
	ok(!wire_parse(buf, WIRE_AUTH_REPORT_LEN, MSG_PONG, &h) && (h.flags & MSG_F_REPORT) &&
	   !msgfmt_parse_body(&kctx, buf, &h, &out) && out.report.qdisc_drops == 1897,
	   "--key: 120 bytes carry it");
	ok(msgfmt_has_report(&ctx, WIRE_REPORT_LEN) &&
	   !msgfmt_has_report(&ctx, WIRE_REPORT_LEN - 1) &&
	   !msgfmt_has_report(&kctx, WIRE_REPORT_LEN) &&
	   msgfmt_has_report(&kctx, WIRE_AUTH_REPORT_LEN),
	   "msgfmt_has_report: 104 bytes, 120 with --key");
}

int main(void)
{
	test_report();
	test_host_tag();
	test_layout();
	test_round_trip();
	test_body();
	test_reject();
	test_set_seq();
	test_strerror();
	return done_testing();
}
