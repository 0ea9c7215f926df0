// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a message format costs per round trip, for callgrind: the msgfmt
 * ops one ping and its pong go through, each side's step in a function
 * of its own (bench/README.md, "A format's instructions"):
 *
 *   fmt_emit_set   the emitter between T1_SW and the send: set_seq
 *   fmt_reflect    the reflector: the ping's parse and its pong (put_pong,
 *                  with the T3 clock read a format without SW stamps makes)
 *   fmt_emit_read  the emitter after T4: the pong's parse and its body
 *
 * As the bench rows run them: rant's format (and ptp's) with -s (the pong
 * carries T2_SW and T3_SW, the loop reads T3_SW), STAMP without (its reply
 * reads the clock for T3 itself), a stateless reflector, T2 a kernel stamp.
 *
 * usage: fmtbench [FORMAT [ROUND_TRIPS [SIZE]]]   (rant 10000 72; SIZE: -m's
 * bytes, the datagram's less the format's overhead)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgfmt.h"
#include "timeutil.h"

static uint8_t tx[65536], refl[65536], rx[65536];
static int64_t start_ns;	/* T2 (the kernel's stamp: no clock read here) from it */

__attribute__((noinline)) void fmt_emit_set(struct msgfmt_ctx *c, uint64_t seq);
__attribute__((noinline)) int fmt_reflect(struct msgfmt_ctx *c, size_t n, bool sw, uint64_t no);
__attribute__((noinline)) int fmt_emit_read(struct msgfmt_ctx *c, size_t n);

void fmt_emit_set(struct msgfmt_ctx *c, uint64_t seq)
{
	msgfmt_set_seq(c, tx, seq, realtime_ns());
}

int fmt_reflect(struct msgfmt_ctx *c, size_t n, bool sw, uint64_t no)
{
	struct msg_body b = { 0 };
	uint16_t flags = MSG_F_T2;
	struct msg_hdr h;

	if (msgfmt_parse(c, refl, n, MSG_PING, &h))
		return -1;
	b.t2_wire = start_ns + (int64_t)no * 10000;
	b.t2_sw = b.t3_sw = TS_NONE;
	if (sw) {
		flags |= MSG_F_SW;
		b.t2_sw = b.t2_wire + 10;
		b.t3_sw = realtime_ns();
	}
	b.pong_no = no;
	b.ttl = 64;
	msgfmt_put_pong(c, refl, &h, flags, &b);
	return 0;
}

int fmt_emit_read(struct msgfmt_ctx *c, size_t n)
{
	static struct msg_body b;
	struct msg_hdr h;

	if (msgfmt_parse(c, rx, n, MSG_PONG, &h))
		return -1;
	return msgfmt_parse_body(c, rx, &h, &b);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "rant";
	long n = argc > 2 ? atol(argv[2]) : 10000;
	long size = argc > 3 ? atol(argv[3]) : 72, len;
	const struct msgfmt *f = strcmp(name, "rant") ? msgfmt_find(name) : &msgfmt_rant;
	struct msgfmt_side se = { .emit = true }, sr = { .emit = false };
	struct msgfmt_ctx ce, cr;
	bool sw = strcmp(name, "stamp") != 0;	/* STAMP's pongs carry no SW stamps */
	struct msg_hdr h = { .type = MSG_PING, .flags = sw ? MSG_F_WANT_SW : 0, .session = 1234 };
	char err[256];
	long bad = 0;

	if (!f) {
		fprintf(stderr, "fmtbench: no format %s (rant, ptp, stamp)\n", name);
		return 2;
	}
	len = size + (long)f->caps.overhead;
	if (n < 1 || size < (long)f->caps.min_len || len > (long)sizeof(tx)) {
		fprintf(stderr, "fmtbench: give at least 1 round trip and a size of %u to %zu\n",
			f->caps.min_len, sizeof(tx) - f->caps.overhead);
		return 2;
	}
	if (msgfmt_init(&ce, f, &se, err, sizeof(err)) ||
	    msgfmt_init(&cr, f, &sr, err, sizeof(err))) {
		fprintf(stderr, "fmtbench: %s\n", err);
		return 2;
	}
	h.len = (uint32_t)len;
	start_ns = realtime_ns();
	msgfmt_put_ping(&ce, tx, &h);
	for (long i = 1; i <= n; i++) {
		fmt_emit_set(&ce, (uint64_t)i);
		memcpy(refl, tx, (size_t)len);
		bad += fmt_reflect(&cr, (size_t)len, sw, (uint64_t)i - 1) != 0;
		memcpy(rx, refl, (size_t)len);
		bad += fmt_emit_read(&ce, (size_t)len) != 0;
	}
	msgfmt_fini(&ce);
	msgfmt_fini(&cr);
	printf("fmtbench: %s, %ld round trips of %ld-byte datagrams, %ld rejected\n", name, n, len,
	       bad);
	return bad != 0;
}
