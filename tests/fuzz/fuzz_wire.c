// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: one received datagram, as a reflector (ping) and an
 * emitter (pong) see it. wire_parse() and wire_parse_body() must hold on
 * any bytes; what they accept must encode back to the same bytes; and the
 * stamps a pong carries go through the emitter's record, metrics and log
 * line, where a hostile stamp must not overflow (UBSan aborts if it does).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "record.h"
#include "txlog.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A datagram that parses must be exactly what the encoder writes. */
static void check_round_trip(const uint8_t *data, size_t size,
			     const struct msg_hdr *h)
{
	uint8_t out[WIRE_PONG_LEN];
	struct msg_body b;

	if (h->len != size)
		abort();
	wire_put_hdr(out, h);
	if (memcmp(out, data, WIRE_HDR_LEN))
		abort();
	if (wire_parse_body(data, size, &b))
		return;
	wire_put_body(out, &b);
	if (memcmp(out + WIRE_HDR_LEN, data + WIRE_HDR_LEN,
		   WIRE_PONG_LEN - WIRE_HDR_LEN))
		abort();
}

/* The emitter's view of a pong: local stamps, the peer's from the body. */
static void take_pong(const struct msg_hdr *h, const struct msg_body *b)
{
	struct txlog_fmt f = { .emit = true, .sw = true, .peer = true };
	char line[TXLOG_LINE_MAX];
	struct txrec r;
	int64_t ns;

	txrec_clear(&r);
	r.seq = h->seq;
	r.t1_sw = h->t1_sw;		/* echoed: hostile too */
	r.t1_wire = h->t1_sw ^ 0x5a5a;
	txrec_set_t4_wire(&r, (int64_t)h->seq);
	txrec_set_t4_sw(&r, (int64_t)h->session << 31);
	r.t2_wire = b->t2_wire;
	r.t2_sw = b->t2_sw;
	txrec_set_t3_sw(&r, b->t3_sw);
	txrec_set_t3_wire(&r, b->fu_t3_wire);
	txrec_set_queue(&r, b->t3_sw, b->t2_sw);
	for (int m = 0; m < M_COUNT; m++)
		metric_value(m, &r, &ns);
	for (int p = 0; p < P_COUNT; p++)
		txrec_stamp(&r, p);
	if (txlog_format_line(line, &r, &f) >= sizeof(line))
		abort();
	f.emit = false;
	if (txlog_format_line(line, &r, &f) >= sizeof(line))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_hdr h;
	struct msg_body b;
	int err;

	err = wire_parse(data, size, MSG_PING, &h);
	if (!msgfmt_strerror(err))
		abort();
	if (!err)
		check_round_trip(data, size, &h);
	err = wire_parse(data, size, MSG_PONG, &h);
	if (!err) {
		check_round_trip(data, size, &h);
		if (!wire_parse_body(data, size, &b))
			take_pong(&h, &b);
	}
	if (size >= sizeof(int)) {
		int code;

		memcpy(&code, data, sizeof(code));
		if (!msgfmt_strerror(code))
			abort();
	}
	return 0;
}
