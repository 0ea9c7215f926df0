/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/floorwire.h, floor -R's copy of rant's wire format: rant's own
 * parser (src/wire/wire.c) takes the floor's pings as pings (warm-up and
 * measured, SW stamps asked), and the floor server's pongs as pongs with
 * T2 and the follow-up, so the bench's cross pairs measure what rant's
 * other side does with rant's own messages.
 */
#include <string.h>

#include "../../bench/floorwire.h"
#include "msgfmt.h"
#include "tap.h"
#include "wire.h"

#define SES 0x5eed1234u
#define LEN 72

/* A floor ping of seq, as floor's client writes it. */
static void floor_ping(uint8_t *buf, uint64_t seq, int64_t t1, bool warm)
{
	memset(buf, 0, LEN);
	rant_ping_hdr(buf, LEN, SES, warm);
	put_be64(buf + RW_OFF_SEQ, seq);
	put_be64(buf + RW_OFF_T1_SW, (uint64_t)t1);
}

static void test_ping(void)
{
	uint8_t buf[LEN];
	struct msg_hdr h;

	floor_ping(buf, 7, 1700000000123456789LL, true);
	is_int(wire_parse(buf, LEN, MSG_PING, &h), 0, "a floor warm-up ping parses");
	is_int(h.session, SES, "its session");
	is_int(h.len, LEN, "its length");
	ok(h.seq == 7 && h.t1_sw == 1700000000123456789LL, "its seq and T1_SW");
	is_int(h.flags, MSG_F_WARMUP | MSG_F_WANT_SW, "warm-up, SW stamps asked (rant -s)");
	floor_ping(buf, 8, 1, false);
	is_int(wire_parse(buf, LEN, MSG_PING, &h), 0, "a measured ping parses");
	is_int(h.flags, MSG_F_WANT_SW, "measured: no warm-up flag");
	is_int(get_be64(buf + RW_OFF_SEQ), 8, "get_be64 reads the seq back");
}

static void test_pong(void)
{
	uint8_t buf[LEN], fu_seq[8];
	struct msg_hdr h;
	struct msg_body b;

	put_be64(fu_seq, 41);
	floor_ping(buf, 42, 5, false);
	ok(rant_pong(buf, LEN, 1000, fu_seq, 2000), "the server answers a ping");
	is_int(wire_parse(buf, LEN, MSG_PONG, &h), 0, "its pong parses as a pong");
	is_int(h.seq, 42, "the ping's seq");
	is_int(h.session, SES, "the ping's session");
	is_int(h.flags, MSG_F_WANT_SW | MSG_F_T2 | MSG_F_FU, "T2 and the follow-up, no SW stamps");
	is_int(wire_parse_body(buf, LEN, &b), 0, "its body parses");
	ok(b.t2_wire == 1000 && b.fu_seq == 41 && b.fu_t3_wire == 2000, "T2 and the follow-up's seq and T3");
	ok(!rant_pong(buf, LEN, 1000, fu_seq, 2000), "a pong is not answered");
	floor_ping(buf, 1, 5, true);
	ok(rant_pong(buf, LEN, 3, fu_seq, 0), "the first ping: no follow-up yet");
	is_int(wire_parse(buf, LEN, MSG_PONG, &h), 0, "parses");
	is_int(h.flags, MSG_F_WARMUP | MSG_F_WANT_SW | MSG_F_T2, "the warm-up flag echoed, no MSG_F_FU");
	ok(!rant_pong(buf, RW_OFF_T2_WIRE - 1, 3, fu_seq, 0), "shorter than a header: no answer");
}

int main(void)
{
	test_ping();
	test_pong();
	return done_testing();
}
