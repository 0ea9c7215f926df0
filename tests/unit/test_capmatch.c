/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/capture/capmatch.h: rant's header found in hand-built frames (Ethernet,
 * VLAN, IPv6 and its extension headers, cooked, raw; fragments, other
 * traffic and truncated frames refused), and the cross-check counts for
 * hand-made packets and stamps in every order: exact, off by some ns,
 * lost, missing on either side, duplicated, left out, expired, and a
 * full table.
 */
#include <pcap/dlt.h>
#include <stdint.h>
#include <string.h>

#include "capmatch.h"
#include "msgfmt.h"
#include "tap.h"
#include "wire.h"

#define PORT 12345
#define SES 0x11223344u
#define T0 1700000000000000000LL

static struct msgfmt_ctx fmt = { .f = &msgfmt_rant };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* UDP header and a rant datagram of len bytes at p; returns bytes used
 * (header and the first 32 bytes of the datagram, as captured). */
static size_t put_udp(uint8_t *p, enum msg_type type, uint16_t flags,
		      uint64_t seq, uint32_t len)
{
	struct msg_hdr h = { .type = type, .flags = flags, .session = SES,
			      .len = len, .seq = seq, .t1_sw = T0 };

	put16(p, type == MSG_PING ? 40000 : PORT);
	put16(p + 2, type == MSG_PING ? PORT : 40000);
	put16(p + 4, (uint16_t)(8 + len));
	put16(p + 6, 0);
	wire_put_hdr(p + 8, &h);
	return 8 + WIRE_HDR_LEN;
}

/* An Ethernet/IPv4/UDP frame (with vlans tags) of a rant datagram. */
static size_t eth4(uint8_t *f, int vlans, enum msg_type type, uint64_t seq,
		   uint16_t frag)
{
	size_t off = 12;

	memset(f, 0, 128);
	for (int i = 0; i < vlans; i++, off += 4)
		put16(f + off, i ? 0x8100 : 0x88a8);
	put16(f + off, 0x0800);
	off += 2;
	f[off] = 0x45;
	put16(f + off + 6, frag);
	f[off + 9] = 17;
	return off + 20 + put_udp(f + off + 20, type, 0, seq, 72);
}

static void test_parse(void)
{
	uint8_t f[256];
	struct capmatch_pkt p;
	size_t n;

	n = eth4(f, 0, MSG_PING, 7, 0);
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) == 0, "Ethernet IPv4 ping parsed");
	is_u64(p.seq, 7, "its seq");
	is_u64(p.session, SES, "its session");
	is_int(p.type, MSG_PING, "its type");
	is_int(p.dport, PORT, "its destination port");
	ok(capmatch_parse(f, n - 1, DLT_EN10MB, &fmt, &p) < 0,
	   "a frame cut inside rant's header is refused");

	n = eth4(f, 2, MSG_PONG, 9, 0x4000);	/* don't fragment: fine */
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) == 0 && p.seq == 9 &&
	   p.type == MSG_PONG, "two VLAN tags, DF set: pong 9 parsed");

	n = eth4(f, 0, MSG_PING, 7, 0x2000 | 10);	/* a later fragment */
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) < 0, "a later IPv4 fragment is refused");
	n = eth4(f, 0, MSG_PING, 7, 0x2000);	/* the first, more to come */
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) == 0, "the first IPv4 fragment is parsed");

	n = eth4(f, 2, MSG_PONG, 9, 0);
	ok(capmatch_parse_as(f, n, DLT_EN10MB, &fmt, MSG_PONG, &p) == 0 &&
	   p.type == MSG_PONG && p.seq == 9, "parse_as a pong: pong 9");
	ok(capmatch_parse_as(f, n, DLT_EN10MB, &fmt, MSG_PING, &p) < 0,
	   "parse_as a ping: a pong is refused");

	n = eth4(f, 0, MSG_PING, 7, 0);
	memcpy(f + 14 + 20 + 8, "RANX", 4);
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) < 0, "another magic is refused");
	n = eth4(f, 0, MSG_PING, 7, 0);
	put16(f + 14 + 20 + 4, 8 + 100);	/* UDP says 100 bytes, header 72 */
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) < 0,
	   "a length field that differs from UDP's is refused");
	n = eth4(f, 0, MSG_PING, 7, 0);
	f[14 + 9] = 6;
	ok(capmatch_parse(f, n, DLT_EN10MB, &fmt, &p) < 0, "TCP is not parsed");

	/* IPv6 behind a Linux cooked header */
	memset(f, 0, sizeof(f));
	put16(f + 14, 0x86dd);
	f[16] = 0x60;
	f[16 + 6] = 17;
	n = 16 + 40 + put_udp(f + 56, MSG_PONG, MSG_F_WARMUP, 3, 64);
	ok(capmatch_parse(f, n, DLT_LINUX_SLL, &fmt, &p) == 0 && p.seq == 3 &&
	   (p.flags & MSG_F_WARMUP), "cooked IPv6 pong with the warm-up flag");
	ok(capmatch_parse(f + 16, n - 16, DLT_RAW, &fmt, &p) == 0 && p.seq == 3,
	   "raw IPv6 the same");
	ok(capmatch_parse(f, n, DLT_IEEE802_11, &fmt, &p) < 0, "an unknown link type is refused");

	/* IPv6 behind a hop-by-hop header, then as a fragment */
	memset(f, 0, sizeof(f));
	f[0] = 0x60;
	f[6] = 0;		/* hop-by-hop, 8 bytes */
	f[40] = 17;
	n = 48 + put_udp(f + 48, MSG_PING, 0, 5, 64);
	ok(capmatch_parse(f, n, DLT_RAW, &fmt, &p) == 0 && p.seq == 5 && p.type == MSG_PING,
	   "IPv6 with a hop-by-hop header: ping 5 parsed");
	f[40] = 44;		/* a fragment header next */
	ok(capmatch_parse(f, n, DLT_RAW, &fmt, &p) < 0, "an IPv6 fragment is refused");
}

static const struct capmatch_dir *tx_of(const struct capmatch *m)
{
	return &capmatch_stats(m)->tx;
}

static const struct capmatch_dir *rx_of(const struct capmatch *m)
{
	return &capmatch_stats(m)->rx;
}

/* The emitter: pings are its TX (T1), pongs its RX (T4). */
static void test_emitter(void)
{
	struct capmatch *m = capmatch_create(64, MSG_PING);
	int64_t now = 1000;

	if (!ok(m != NULL, "create"))
		return;
	/* seq 1: capture first, equal stamps */
	capmatch_packet(m, SES, 1, MSG_PING, T0 + 100, now);
	capmatch_packet(m, SES, 1, MSG_PONG, T0 + 9000, now);
	is_u64(capmatch_pending(m), 1, "waiting for rant's stamps");
	capmatch_stamps(m, SES, 1, T0 + 100, T0 + 9000, now);
	is_u64(capmatch_pending(m), 0, "settled once both packets and the stamps are in");
	/* seq 2: stamps first; TX stamp 250 ns after the capture's */
	capmatch_stamps(m, SES, 2, T0 + 20250, T0 + 30000, now);
	capmatch_packet(m, SES, 2, MSG_PONG, T0 + 30000, now);
	capmatch_packet(m, SES, 2, MSG_PING, T0 + 20000, now);
	/* seq 3: lost ping: captured, no stamps of rant's */
	capmatch_packet(m, SES, 3, MSG_PING, T0 + 40000, now);
	/* seq 4: rant has stamps, the capture missed the pong */
	capmatch_packet(m, SES, 4, MSG_PING, T0 + 50000, now);
	capmatch_stamps(m, SES, 4, T0 + 50000, T0 + 59000, now);
	/* seq 5: no TX stamp in rant (missing_tx_ts) */
	capmatch_packet(m, SES, 5, MSG_PING, T0 + 60000, now);
	capmatch_packet(m, SES, 5, MSG_PONG, T0 + 69000, now);
	capmatch_stamps(m, SES, 5, TS_NONE, T0 + 69000, now);
	is_u64(capmatch_pending(m), 2, "3 and 4 wait");
	capmatch_expire(m, now + 10, 100);
	is_u64(capmatch_pending(m), 2, "not yet past the horizon");
	capmatch_expire(m, now + 100, 100);
	is_u64(capmatch_pending(m), 0, "settled past the horizon");

	is_u64(tx_of(m)->matched, 3, "tx matched: 1, 2, 4");
	is_u64(tx_of(m)->exact, 2, "tx exact: 1, 4");
	is_i64(tx_of(m)->min_diff_ns, 0, "tx min log - capture");
	is_i64(tx_of(m)->max_diff_ns, 250, "tx max log - capture");
	is_u64(tx_of(m)->only_in_capture, 2, "tx only in capture: 3 (lost), 5 (no stamp)");
	is_u64(tx_of(m)->only_in_log, 0, "tx only in log: none");
	is_u64(rx_of(m)->matched, 3, "rx matched: 1, 2, 5");
	is_u64(rx_of(m)->exact, 3, "rx exact: all");
	is_u64(rx_of(m)->only_in_log, 1, "rx only in log: 4");
	is_u64(rx_of(m)->only_in_capture, 0, "rx only in capture: none");
	capmatch_destroy(m);
}

/* The reflector: pongs are its TX (T3); sessions kept apart; -w skips. */
static void test_reflector(void)
{
	struct capmatch *m = capmatch_create(64, MSG_PONG);

	if (!ok(m != NULL, "create"))
		return;
	/* the same seq in two sessions */
	capmatch_packet(m, 1, 1, MSG_PING, T0 + 10, 0);
	capmatch_packet(m, 2, 1, MSG_PING, T0 + 20, 0);
	capmatch_packet(m, 1, 1, MSG_PONG, T0 + 110, 0);
	capmatch_packet(m, 2, 1, MSG_PONG, T0 + 120, 0);
	capmatch_stamps(m, 2, 1, T0 + 20, T0 + 121, 0);
	capmatch_stamps(m, 1, 1, T0 + 10, T0 + 110, 0);
	/* left out: its packets are not counted, whenever they come */
	capmatch_packet(m, 1, 2, MSG_PING, T0 + 200, 0);
	capmatch_skip(m, 1, 2, 0);
	capmatch_packet(m, 1, 2, MSG_PONG, T0 + 300, 0);
	/* a duplicate ping */
	capmatch_packet(m, 1, 3, MSG_PING, T0 + 400, 0);
	capmatch_packet(m, 1, 3, MSG_PING, T0 + 410, 0);
	capmatch_packet(m, 1, 3, MSG_PONG, T0 + 500, 0);
	capmatch_stamps(m, 1, 3, T0 + 400, T0 + 500, 0);
	is_u64(capmatch_pending(m), 0, "all settled when complete");
	is_u64(rx_of(m)->matched, 3, "rx (pings) matched by session");
	is_u64(rx_of(m)->exact, 3, "rx exact");
	is_u64(tx_of(m)->matched, 3, "tx (pongs) matched");
	is_u64(tx_of(m)->exact, 2, "tx exact: all but session 2's");
	is_i64(tx_of(m)->max_diff_ns, 1, "session 2's pong 1 ns apart");
	is_u64(rx_of(m)->only_in_capture, 1, "the duplicate ping only in the capture");
	is_u64(capmatch_stats(m)->duplicates, 1, "one duplicate");
	is_u64(tx_of(m)->only_in_capture + tx_of(m)->only_in_log +
	       rx_of(m)->only_in_log, 0, "the left-out transaction is not counted");
	capmatch_destroy(m);
}

/* More entries than the table holds: the oldest settle early, none lost. */
static void test_full(void)
{
	struct capmatch *m = capmatch_create(16, MSG_PING);
	uint64_t total;

	if (!ok(m != NULL, "create"))
		return;
	for (uint64_t s = 1; s <= 100; s++)
		capmatch_packet(m, SES, s, MSG_PING, T0 + (int64_t)s, (int64_t)s);
	ok(capmatch_pending(m) <= 12, "at most 3/4 of 16 entries held (%zu)", capmatch_pending(m));
	ok(capmatch_stats(m)->evicted > 0, "some settled early");
	capmatch_finish(m);
	is_u64(capmatch_pending(m), 0, "finish settles all");
	total = tx_of(m)->only_in_capture;
	is_u64(total, 100, "every ping counted once, only in the capture");
	capmatch_destroy(m);
}

/* --ptp-mode: the frame parsed with the run's format, behind the PTP header. */
static void test_parse_ptp(void)
{
	struct msgfmt_side side = { .emit = true };
	struct msg_hdr h = { .type = MSG_PING, .session = SES };
	struct msgfmt_ctx ptp;
	struct capmatch_pkt p;
	uint8_t f[256];
	char err[64];
	size_t off = 14 + 20;

	if (msgfmt_init(&ptp, msgfmt_find("ptp"), &side, err, sizeof(err)))
		BAIL_OUT(err);
	h.len = msgfmt_wire_len(&ptp, 72);
	memset(f, 0, sizeof(f));
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	f[14 + 9] = 17;
	put16(f + off, 319);
	put16(f + off + 2, 319);
	put16(f + off + 4, (uint16_t)(8 + h.len));
	msgfmt_put_ping(&ptp, f + off + 8, &h);
	msgfmt_set_seq(&ptp, f + off + 8, 41, T0);
	ok(capmatch_parse(f, off + 8 + 66, DLT_EN10MB, &ptp, &p) == 0 && p.seq == 41 &&
	   p.type == MSG_PING && p.session == SES,
	   "--ptp-mode: ping 41 parsed behind its 34-byte PTP header (66 bytes captured)");
	ok(capmatch_parse(f, off + 8 + 65, DLT_EN10MB, &ptp, &p) < 0,
	   "... and refused when the capture ends inside rant's header");
	ok(capmatch_parse(f, off + 8 + 66, DLT_EN10MB, &fmt, &p) < 0,
	   "rant's own format does not take it for a rant message");
}

int main(void)
{
	test_parse();
	test_parse_ptp();
	test_emitter();
	test_reflector();
	test_full();
	return done_testing();
}
