// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: one received datagram, as a reflector (ping) and an
 * emitter (pong) see it, in every format of the message-format table
 * (msgfmt.h), without and with --key's MAC. Parsing must hold on any
 * bytes; what it accepts must encode back to the same bytes and answer
 * into a pong that parses; and the stamps a pong carries go through the
 * emitter's record, metrics and log line, where a hostile stamp must not
 * overflow (UBSan aborts if it does).
 * A ping that parses goes through the reflector's session table as it
 * admits pings (with --key: T1_SW against the window, the seq window,
 * sessions keyed by id), from a few senders: the table's bounds (its
 * size, one address's share) must hold whatever the header.
 * STAMP (fmtstamp.c) has no header of its own to encode back and signs
 * with a key: its pings are answered (those whose HMAC verifies, under
 * --key) into replies that must parse with the ping's seq, SSID and T1;
 * its replies' bodies go through the emitter's record as the others'.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "metric.h"
#include "msgfmt.h"
#include "record.h"
#include "session.h"
#include "txlog.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The formats of the table, without and with --key's MAC. */
static struct msgfmt_ctx ctxs[8];
static size_t nctx;

static bool is_stamp(const struct msgfmt_ctx *c)
{
	return !strcmp(c->f->name, "stamp");
}

/* STAMP signs with the key itself: the one init_ctxs() gave it. */
static const struct auth *key_of(void)
{
	static const uint8_t key[32] = { 7 };
	static struct auth *a;

	if (!a)
		a = auth_create(key, sizeof(key));
	if (!a)
		abort();
	return a;
}

static void init_ctxs(void)
{
	struct msgfmt_side side = { .key = key_of() };
	const struct msgfmt *f;
	char err[128];

	for (size_t i = 0; (f = msgfmt_nth(i)) && nctx + 2 <= 8; i++) {
		for (int mac = 0; mac < 2; mac++) {
			side.mac = mac;
			if (msgfmt_init(&ctxs[nctx++], f, &side, err, sizeof(err)))
				abort();
		}
	}
}

/*
 * A ping that parses: its header encodes back to the same bytes of the
 * format's own message, and the reflector's answer to it (any ping is
 * answered in place) parses as its pong.
 */
static void check_ping(struct msgfmt_ctx *c, const uint8_t *data, size_t size,
		       const struct msg_hdr *h)
{
	static uint8_t out[70000];
	const struct msg_body b = { .t2_wire = 1, .t2_sw = 2, .t3_sw = 3, .fu_seq = 4,
				     .fu_t3_wire = 5 };
	size_t ov = c->f->caps.overhead;
	struct msg_hdr p;
	int64_t t1;

	if (h->len != size || size > sizeof(out))
		abort();
	memcpy(out, data, size);
	if (is_stamp(c)) {
		/* under --key the loop answers only what verifies */
		if (c->mac && !msgfmt_verify(c, key_of(), out, size))
			return;
	} else {
		msgfmt_put_ping(c, out, h);
		if (memcmp(out + ov, data + ov, c->f->caps.min_len))
			abort();
	}
	if (c->f->get_seq(c, out, size, &t1) != h->seq || t1 != h->t1_sw)
		abort();
	msgfmt_put_pong(c, out, h, MSG_F_T2 | MSG_F_SW | MSG_F_FU, &b);
	if (msgfmt_parse(c, out, size, MSG_PONG, &p) || p.seq != h->seq ||
	    p.session != h->session || p.t1_sw != h->t1_sw || p.len != h->len)
		abort();
}

/* A pong with a body: answered again from its own header and body, it
 * says the same (the MAC flag only with --key; the host tag only from a
 * reflector that knows its host, which this context does not). */
static void check_pong(struct msgfmt_ctx *c, const uint8_t *data, size_t size,
		       const struct msg_hdr *h, const struct msg_body *b)
{
	static uint8_t out[70000];
	bool report = (h->flags & MSG_F_WANT_REPORT) && msgfmt_has_report(c, (uint32_t)size);
	uint16_t want = (uint16_t)(h->flags & ~(c->mac ? 0 : MSG_F_MAC) &
				   ~(c->host_known ? 0 : MSG_F_HOST) &
				   ~(report ? 0 : MSG_F_REPORT));
	struct msg_body b2;
	struct msg_hdr p;

	if (size > sizeof(out))
		abort();
	memcpy(out, data, size);
	msgfmt_put_pong(c, out, h, h->flags, b);
	if (msgfmt_parse(c, out, size, MSG_PONG, &p) || p.seq != h->seq || p.flags != want ||
	    msgfmt_parse_body(c, out, &p, &b2) || b2.t2_wire != b->t2_wire ||
	    b2.t2_sw != b->t2_sw || b2.t3_sw != b->t3_sw || b2.fu_seq != b->fu_seq ||
	    b2.fu_t3_wire != b->fu_t3_wire ||
	    ((p.flags & MSG_F_REPORT) && (!b2.report.have ||
					  b2.report.qdisc_drops != b->report.qdisc_drops)))
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

#define TAB 4		/* sessions */
#define SHARE 2		/* per address */

/* The table's bounds: at most TAB sessions, SHARE from one address. */
static void check_table(const struct sessions *t)
{
	size_t n = sessions_count(t);
	in_addr_t host[TAB];

	if (n > TAB)
		abort();
	for (size_t i = 0; i < n; i++)
		host[i] = ((const struct sockaddr_in *)&sessions_at(t, i)->addr)->sin_addr.s_addr;
	for (size_t i = 0; i < n; i++) {
		size_t same = 0;

		for (size_t j = 0; j < n; j++)
			same += host[j] == host[i];
		if (same > SHARE)
			abort();
	}
}

/* The ping admitted 16 times, as from senders and at times the input's
 * bytes choose; the system clock near T1_SW or not, as they say too. */
static void admit(const struct msg_hdr *h, const uint8_t *data, size_t size, bool keyed)
{
	struct sessions *t = sessions_create(TAB, false);
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct session_ping p = { (const struct sockaddr *)&a, sizeof(a), h->session, h->seq,
				  h->t1_sw };
	int64_t now = 0;

	if (!t)
		abort();
	sessions_guard(t, SHARE, keyed ? AUTH_WINDOW_DEFAULT_NS : 0, NULL);
	for (size_t i = 0; i < 16; i++) {
		uint8_t x = data[(WIRE_HDR_LEN + i) % size];
		enum session_verdict v;
		struct session *s;
		int64_t real = x & 0x80 ? h->t1_sw : (int64_t)h->seq;

		a.sin_addr.s_addr = htonl(0x0a000001 + (x & 3));
		a.sin_port = htons((uint16_t)(x >> 2 & 3));
		p.seq = h->seq + (uint64_t)(x >> 4 & 3) - 1;
		now += (int64_t)(x & 0x0f) * SESSION_USE_NS / 2;
		s = sessions_admit(t, &p, now, real, &v);
		if (!s != (v == SESSION_REFUSED || v == SESSION_REPLAYED))
			abort();
		check_table(t);
	}
	sessions_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_hdr h;
	struct msg_body b;
	int err;

	if (!nctx)
		init_ctxs();
	for (size_t i = 0; i < nctx; i++) {
		struct msgfmt_ctx *c = &ctxs[i];

		err = msgfmt_parse(c, data, size, MSG_PING, &h);
		if (!msgfmt_strerror(err))
			abort();
		if (!err) {
			check_ping(c, data, size, &h);
			admit(&h, data, size, c->mac);
		}
		err = msgfmt_parse(c, data, size, MSG_PONG, &h);
		if (!err && !msgfmt_parse_body(c, data, &h, &b)) {
			take_pong(&h, &b);
			if (!is_stamp(c))	/* no SW stamps, no flags to echo */
				check_pong(c, data, size, &h, &b);
		}
	}
	if (size >= sizeof(int)) {
		int code;

		memcpy(&code, data, sizeof(code));
		if (!msgfmt_strerror(code))
			abort();
	}
	return 0;
}
