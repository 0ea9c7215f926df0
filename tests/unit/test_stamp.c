/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/stamp.h: every field of the four STAMP packets at the offset RFC
 * 8762 §4.2-§4.3 (with RFC 8972 §3's SSID) gives it, written here as
 * literal numbers from the RFC's figures, not from the module; NTP and
 * PTP timestamps at their edges (the 1900/2036 NTP era, the 2106 PTP
 * wrap, fractions); the Error Estimate both ways; HMAC known answers;
 * RFC 8972's TLV rules (U, M, I, the HMAC TLV); TWAMP-Light; the
 * reflector's drops (short, long, bad HMAC, strict TLVs) leave the reply
 * untouched, and a reply is always exactly as long as its request.
 *
 * The known answers (KAT_*) were computed independently with Python's
 * hmac and struct modules, packing each packet from the RFC's figures:
 *
 *   key = bytes(range(32)); ntp(ns) = (sec + 2208988800) << 32 |
 *         round(frac_ns * 2^32 / 1e9)
 *   req = struct.pack(">I12xQHH68x", 0x01020304, ntp(T1), 0x8587, 0xbeef)
 *   KAT_REQ_MAC = hmac.new(key, req, sha256).digest()[:16]
 *   tlvs = 80 03 0004 00000000 | 80 07 0010 00 * 16
 *   KAT_TLV_MAC = hmac(key, req[:4] + tlvs)[:16]
 *   rep = struct.pack(">I12xQHH4xQ8xI12xQH6xB15x", 7, ntp(T3), 0x0587,
 *                     0xbeef, ntp(T2), 0x01020304, ntp(T1), 0x8587, 61)
 *   KAT_REP_MAC = hmac(key, rep)[:16]
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/timex.h>

#include "auth.h"
#include "stamp.h"
#include "tap.h"
#include "timeutil.h"

#define T1 1700000000123456789LL
#define T2 1700000000123500000LL
#define T3 1700000000123600000LL
#define NTP_T1 0xe8fe6f801f9add37ULL
#define NTP_T2 0xe8fe6f801f9db22dULL
#define NTP_T3 0xe8fe6f801fa43fe6ULL
#define EE_S 0x8587		/* synced, NTP, 1000 ns: scale 5, multiplier 135 */
#define EE_R 0x0587		/* not synced, NTP, 1000 ns */
#define BIG 2048

static const uint8_t KAT_REQ_MAC[16] = {
	0xd0, 0x86, 0x21, 0x5e, 0x6e, 0xb1, 0xf5, 0x1c,
	0xbe, 0xa0, 0xdc, 0xfa, 0x6e, 0x7e, 0xda, 0x53 };
static const uint8_t KAT_TLV_MAC[16] = {
	0x93, 0xd7, 0xeb, 0xb4, 0x01, 0x4f, 0x68, 0x2e,
	0x51, 0xaf, 0x92, 0x4e, 0xad, 0x1c, 0xf7, 0xda };
static const uint8_t KAT_REP_MAC[16] = {
	0xd8, 0x91, 0x02, 0x08, 0xf7, 0xe0, 0x78, 0x7e,
	0x45, 0xb2, 0x2a, 0x0e, 0x4e, 0xb0, 0xf8, 0x5d };

static struct auth *key;

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static ssize_t build(uint8_t *buf, const struct auth *k, unsigned int want, size_t len)
{
	struct stamp_request q = { .key = k, .seq = 0x01020304, .t1_ns = T1, .ee = EE_S,
				   .ssid = 0xbeef, .want = want, .len = len };

	return stamp_build(&q, buf, BIG);
}

static const struct stamp_reflector refl_open = { .ee = EE_R, .sync_hw = STAMP_SYNC_PTP,
						  .sync_sw = STAMP_SYNC_NTP };

static struct stamp_reflect_in refl_in(void)
{
	struct stamp_reflect_in in = { .t2_ns = T2, .t3_ns = T3, .t2_method = STAMP_METHOD_HW,
				       .t3_method = STAMP_METHOD_SW, .ttl = 61, .seq = 7 };

	return in;
}

/* A field at its RFC offset: width octets, big-endian (over 8: all zero). */
struct field {
	int off, width;
	uint64_t want;
	const char *name;
};

static void check_fields(const uint8_t *p, const struct field *f, int n, const char *what)
{
	for (int i = 0; i < n; i++) {
		if (f[i].width > 8)
			ok(zero(p + f[i].off, (size_t)f[i].width), "%s: %s %d-%d zero", what,
			   f[i].name, f[i].off, f[i].off + f[i].width - 1);
		else
			is_u64(be(p + f[i].off, f[i].width), f[i].want, "%s: %s at %d", what,
			       f[i].name, f[i].off);
	}
}

#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_open_request(void)
{
	static const struct field f[] = {
		{ 0, 4, 0x01020304, "Sequence Number" }, { 4, 8, NTP_T1, "Timestamp (NTP)" },
		{ 12, 2, EE_S, "Error Estimate" }, { 14, 2, 0xbeef, "SSID" },
		{ 16, 28, 0, "MBZ" },
	};
	uint8_t b[BIG];

	is_int(build(b, NULL, 0, 44), 44, "open request: 44 octets");
	check_fields(b, f, NFIELDS(f), "open request");
}

static void test_auth_request(void)
{
	static const struct field f[] = {
		{ 0, 4, 0x01020304, "Sequence Number" }, { 4, 12, 0, "MBZ" },
		{ 16, 8, NTP_T1, "Timestamp" }, { 24, 2, EE_S, "Error Estimate" },
		{ 26, 2, 0xbeef, "SSID" }, { 28, 68, 0, "MBZ" },
	};
	uint8_t b[BIG];

	is_int(build(b, key, 0, 112), 112, "auth request: 112 octets");
	check_fields(b, f, NFIELDS(f), "auth request");
	is_mem(b + 96, KAT_REQ_MAC, 16, "auth request: HMAC at 96 (Python's hmac agrees)");
	is_int(build(b, key, STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP, 160), 160,
	       "auth request with two TLVs and the HMAC TLV: 160 octets");
	is_mem(b + 96, KAT_REQ_MAC, 16, "  the base HMAC covers the base only");
	is_u64(be(b + 112, 4), 0x80030004, "  Timestamp Information at 112: U, type 3, length 4");
	ok(zero(b + 116, 4), "  its value zero");
	is_u64(be(b + 120, 4), 0x80070010, "  Follow-Up Telemetry at 120: U, type 7, length 16");
	ok(zero(b + 124, 16), "  its value zero");
	is_u64(be(b + 140, 4), 0x80080010, "  HMAC TLV at 140: U, type 8, length 16");
	is_mem(b + 144, KAT_TLV_MAC, 16, "  its HMAC over the Sequence Number and the TLVs before it");
}

static void test_request_tlvs(void)
{
	uint8_t b[BIG];

	is_int(stamp_request_min_len(false, STAMP_WANT_PADDING), 48, "open, padding: 48 at least");
	is_int(stamp_request_min_len(true, STAMP_WANT_PADDING), 136,
	       "auth, padding: 136 (an HMAC TLV too)");
	is_int(stamp_request_min_len(false, STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP), 72,
	       "open, TS info and follow-up: 72");
	is_int(build(b, NULL, STAMP_WANT_PADDING, 1000), 1000, "open request padded to 1000");
	is_u64(be(b + 44, 4), 0x800103b8, "  Extra Padding at 44: U, type 1, length 952");
	ok(zero(b + 48, 952), "  its value zero");
	is_int(build(b, NULL, 0, 1000), 1000, "open request of 1000 without TLVs");
	ok(zero(b + 44, 956), "  zero octets after the base");
	is_int(build(b, key, STAMP_WANT_TSINFO | STAMP_WANT_PADDING, 200), 200, "auth, padded");
	is_u64(be(b + 120, 4), 0x80080010, "  the HMAC TLV before the padding");
	is_u64(be(b + 140, 4), 0x80010038, "  Extra Padding last, outside the HMAC");
	is_int(build(b, NULL, STAMP_WANT_TSINFO, 51), -EINVAL, "too short for its TLVs: -EINVAL");
	is_int(build(b, NULL, 0, 70000), -EINVAL, "longer than a datagram: -EINVAL");
	{
		struct stamp_request q = { .len = 44 };

		is_int(stamp_build(&q, b, 43), -ENOSPC, "no room: -ENOSPC");
	}
}

static void test_open_reply(void)
{
	static const struct field f[] = {
		{ 0, 4, 0x01020304, "Sequence Number (stateless: the sender's)" },
		{ 4, 8, NTP_T3, "Timestamp (T3)" }, { 12, 2, EE_R, "Error Estimate" },
		{ 14, 2, 0xbeef, "SSID" }, { 16, 8, NTP_T2, "Receive Timestamp (T2)" },
		{ 24, 4, 0x01020304, "Session-Sender Sequence Number" },
		{ 28, 8, NTP_T1, "Session-Sender Timestamp" },
		{ 36, 2, EE_S, "Session-Sender Error Estimate" }, { 38, 2, 0, "MBZ" },
		{ 40, 1, 61, "Ses-Sender TTL" }, { 41, 3, 0, "MBZ" },
	};
	struct stamp_reflector r = refl_open;
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];

	build(q, NULL, 0, 44);
	is_int(stamp_reflect(&r, &in, q, 44, p, BIG, &out), STAMP_PASS, "open reply");
	check_fields(p, f, NFIELDS(f), "open reply");
	is_int(out.seq, 0x01020304, "out: seq");
	is_int(out.ssid, 0xbeef, "out: SSID");
	r.stateful = true;
	stamp_reflect(&r, &in, q, 44, p, BIG, &out);
	is_u64(be(p, 4), 7, "stateful: the session's own number");
	is_u64(be(p + 24, 4), 0x01020304, "stateful: the sender's number echoed at 24");
}

static void test_auth_reply(void)
{
	static const struct field f[] = {
		{ 0, 4, 7, "Sequence Number (stateful)" }, { 4, 12, 0, "MBZ" },
		{ 16, 8, NTP_T3, "Timestamp" }, { 24, 2, EE_R, "Error Estimate" },
		{ 26, 2, 0xbeef, "SSID" }, { 28, 4, 0, "MBZ" },
		{ 32, 8, NTP_T2, "Receive Timestamp" }, { 40, 8, 0, "MBZ" },
		{ 48, 4, 0x01020304, "Session-Sender Sequence Number" }, { 52, 12, 0, "MBZ" },
		{ 64, 8, NTP_T1, "Session-Sender Timestamp" },
		{ 72, 2, EE_S, "Session-Sender Error Estimate" }, { 74, 6, 0, "MBZ" },
		{ 80, 1, 61, "Ses-Sender TTL" }, { 81, 15, 0, "MBZ" },
	};
	struct stamp_reflector r = { .key = key, .ee = EE_R, .stateful = true };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];

	build(q, key, 0, 112);
	is_int(stamp_reflect(&r, &in, q, 112, p, BIG, &out), STAMP_PASS, "auth reply");
	check_fields(p, f, NFIELDS(f), "auth reply");
	is_mem(p + 96, KAT_REP_MAC, 16, "auth reply: HMAC at 96 (Python's hmac agrees)");
}

static void test_ntp(void)
{
	int64_t pivot = ((1LL << 32) - 2208988800LL) * NS_PER_SEC;	/* 2036-02-07 06:28:16 */

	is_u64(stamp_ts_encode(T1, STAMP_NTP), NTP_T1, "NTP: a 2023 time");
	is_u64(stamp_ts_encode(NS_PER_SEC, STAMP_NTP), 0x83aa7e8100000000ULL,
	       "NTP: 1970-01-01 00:00:01 is 2208988801 s after 1900");
	is_u64(stamp_ts_encode(NS_PER_SEC / 2, STAMP_NTP) & 0xffffffff, 0x80000000,
	       "NTP: half a second is fraction 2^31");
	is_u64(stamp_ts_encode(1, STAMP_NTP) & 0xffffffff, 4, "NTP: 1 ns is fraction 4");
	is_int(stamp_ts_decode(0x83aa7e8000000004ULL, STAMP_NTP, T1), 1, "NTP: fraction 4 is 1 ns");
	is_u64(stamp_ts_encode(999999999, STAMP_NTP) & 0xffffffff, 0xfffffffc,
	       "NTP: 999999999 ns is fraction 0xfffffffc");
	is_int(stamp_ts_decode(0x83aa7e80ffffffffULL, STAMP_NTP, T1), NS_PER_SEC,
	       "NTP: fraction 0xffffffff rounds into the next second");
	is_u64(stamp_ts_encode(pivot, STAMP_NTP), 1, "NTP: the first instant of era 1 codes as 1");
	is_int(stamp_ts_decode(1, STAMP_NTP, pivot), pivot, "  and decodes back");
	is_int(stamp_ts_decode(0xffffffff00000000ULL, STAMP_NTP, pivot + NS_PER_SEC),
	       pivot - NS_PER_SEC, "NTP: the last second of era 0, seen from era 1");
	is_int(stamp_ts_decode(0x0000000100000000ULL, STAMP_NTP, pivot - NS_PER_SEC),
	       pivot + NS_PER_SEC, "NTP: the second second of era 1, seen from era 0");
	is_int(stamp_ts_decode(0x0000000100000000ULL, STAMP_NTP, TS_NONE), pivot + NS_PER_SEC,
	       "NTP: no reference: RFC 4330's pivot puts 1 s in 2036");
	is_int(stamp_ts_decode(0x83aa7e8100000000ULL, STAMP_NTP, TS_NONE), NS_PER_SEC,
	       "NTP: no reference: 0x83aa7e81 s is 1970");
	is_int(stamp_ts_decode(0, STAMP_NTP, T1), TS_NONE, "NTP: 0 is not reported");
	is_u64(stamp_ts_encode(TS_NONE, STAMP_NTP), 0, "no stamp codes as 0");
	is_int(stamp_ts_decode(stamp_ts_encode(-2208988800LL * NS_PER_SEC + 5, STAMP_NTP),
				STAMP_NTP, -2208988000LL * NS_PER_SEC),
	       -2208988800LL * NS_PER_SEC + 5, "NTP: 1900-01-01 + 5 ns round trip");
}

static void test_ptp(void)
{
	int64_t wrap = (1LL << 32) * NS_PER_SEC;	/* 2106-02-07 06:28:16 */

	is_u64(stamp_ts_encode(T1, STAMP_PTP), 0x6553f100075bcd15ULL,
	       "PTP: seconds then nanoseconds");
	is_int(stamp_ts_decode(0x6553f100075bcd15ULL, STAMP_PTP, T1), T1, "PTP: decoded");
	is_int(stamp_ts_decode(0x6553f1003b9aca00ULL, STAMP_PTP, T1), TS_NONE,
	       "PTP: nanoseconds 10^9 is no time");
	is_int(stamp_ts_decode(0x000000050000000aULL, STAMP_PTP, wrap),
	       wrap + 5 * NS_PER_SEC + 10, "PTP: after the 2106 wrap, seen from 2106");
	is_int(stamp_ts_decode(0xffffffff0000000aULL, STAMP_PTP, wrap),
	       wrap - NS_PER_SEC + 10, "PTP: just before the wrap, seen from 2106");
	is_u64(stamp_ts_encode(wrap, STAMP_PTP), 1, "PTP: the wrap's instant codes as 1 ns");
}

/* Round trips over 1900-2190 with a reference up to 60 years away. */
static void test_ts_round_trips(void)
{
	uint64_t x = 88172645463325252ULL;
	int bad[2] = { 0, 0 };

	for (int i = 0; i < 200000; i++) {
		const uint64_t span = 290ULL * 365 * 86400 * NS_PER_SEC;
		int64_t ns, ref;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ns = -2208988800LL * NS_PER_SEC + (int64_t)(x % span);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ref = ns - 60LL * 365 * 86400 * NS_PER_SEC +
		      (int64_t)(x % (120ULL * 365 * 86400 * NS_PER_SEC));
		for (int f = 0; f < 2; f++)
			if (stamp_ts_decode(stamp_ts_encode(ns, f), f, ref) != ns)
				bad[f]++;
	}
	is_int(bad[STAMP_NTP], 0, "NTP: 200000 random times round-trip to the ns");
	is_int(bad[STAMP_PTP], 0, "PTP: 200000 random times round-trip to the ns");
}

static void test_error_estimate(void)
{
	uint64_t x = 2463534242ULL;
	int bad = 0;

	is_u64(stamp_ee_make(false, STAMP_NTP, 0), 0x0001, "EE: no error: multiplier 1, scale 0");
	is_u64(stamp_ee_make(true, STAMP_NTP, 1000), EE_S, "EE: 1 us synced: S, scale 5, 135");
	is_u64(stamp_ee_make(false, STAMP_PTP, 1000), 0x4587, "EE: Z for PTP");
	is_u64(stamp_ee_make(true, STAMP_PTP, -1), 0xffff, "EE: unknown error: the largest");
	is_int(stamp_ee_err_ns(0x0587), 1006, "EE: scale 5, 135 is 1006 ns, rounded up");
	is_int(stamp_ee_err_ns(0x0001), 1, "EE: the least, 0.23 ns, reads 1 ns");
	is_int(stamp_ee_err_ns(0x8100), -1, "EE: multiplier 0 is invalid: unknown");
	is_int(stamp_ee_err_ns(0x3fff), INT64_MAX, "EE: beyond int64 ns saturates");
	is_int(stamp_ee_err_ns(0x2001), NS_PER_SEC, "EE: scale 32, multiplier 1 is one second");
	ok(stamp_ee_synced(0x8001) && !stamp_ee_synced(0x4001), "EE: S bit read");
	ok(stamp_ee_fmt(0x4001) == STAMP_PTP && stamp_ee_fmt(0x8001) == STAMP_NTP, "EE: Z bit read");
	for (int i = 0; i < 100000; i++) {
		int64_t e, got;
		uint16_t ee;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		e = (int64_t)(x >> (x % 60 + 4));
		ee = stamp_ee_make(false, STAMP_NTP, e);
		got = stamp_ee_err_ns(ee);
		if (!(ee & 0xff) || got < e || (double)got > (double)e * (1 + 1.0 / 127) + 1)
			bad++;
	}
	is_int(bad, 0, "EE: 100000 errors: never below, within 1/127 above, never multiplier 0");
}

/* The Error Estimate from what adjtimex says of the clock. */
static void test_ee_clock(void)
{
	uint16_t unknown = stamp_ee_make(false, STAMP_NTP, -1);
	int bad = 0;

	is_u64(unknown, 0x3fff, "EE clock: unknown is no S, scale 63, multiplier 255");
	is_u64(stamp_ee_clock(TIME_ERROR, 0, 100, 0, STAMP_NTP), unknown,
	       "EE clock: TIME_ERROR is not synchronized, whatever maxerror says");
	is_u64(stamp_ee_clock(-1, 0, 100, 0, STAMP_NTP), unknown, "EE clock: adjtimex failed: unknown");
	is_u64(stamp_ee_clock(TIME_OK, STA_UNSYNC | STA_PLL, 100, 0, STAMP_NTP), unknown,
	       "EE clock: STA_UNSYNC is not synchronized");
	is_u64(stamp_ee_clock(TIME_OK, STA_PLL, 1, 0, STAMP_NTP),
	       stamp_ee_make(true, STAMP_NTP, 1000), "EE clock: synchronized, maxerror 1 us: S and 1 us");
	is_u64(stamp_ee_clock(TIME_INS, 0, 16000, 0, STAMP_PTP) & 0xc000, 0xc000,
	       "EE clock: a leap second pending is still synchronized; Z for PTP");
	ok(stamp_ee_err_ns(stamp_ee_clock(TIME_OK, 0, 16000, 0, STAMP_NTP)) >= 16000000,
	   "EE clock: maxerror 16 ms states at least 16 ms");
	ok(stamp_ee_err_ns(stamp_ee_clock(TIME_OK, 0, 2, 5000000, STAMP_NTP)) >= 5002000,
	   "EE clock: a NIC's bound (5 ms) adds to the system clock's error (2 us)");
	is_u64(stamp_ee_clock(TIME_OK, 0, 2, -1, STAMP_NTP), unknown,
	       "EE clock: a PHC that failed its check: unknown");
	is_u64(stamp_ee_clock(TIME_OK, 0, LONG_MAX, 0, STAMP_NTP), unknown,
	       "EE clock: a maxerror past int64 ns: unknown, no overflow");
	for (long m = 0; m < 20000000; m = m * 3 + 1) {
		uint16_t ee = stamp_ee_clock(TIME_OK, 0, m, 0, STAMP_NTP);

		if (!(ee & 0xff) || !(ee & STAMP_EE_S) || stamp_ee_err_ns(ee) < m * 1000)
			bad++;
	}
	is_int(bad, 0, "EE clock: maxerror 0 to 20 s: S, never multiplier 0, never below it");
}

/* A packet with a reply buffer full of a canary: what a drop leaves. */
static bool untouched(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xa5)
			return false;
	return true;
}

static void test_drops(void)
{
	struct stamp_reflector ra = { .key = key, .ee = EE_R };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];
	int passed = 0;

	memset(p, 0xa5, BIG);
	build(q, NULL, 0, 44);
	is_int(stamp_reflect(&refl_open, &in, q, 40, p, BIG, &out), STAMP_DROP_SHORT,
	       "open: 40 octets is short");
	is_int(stamp_reflect(&refl_open, &in, q, 44, p, 43, &out), STAMP_DROP_LONG,
	       "longer than the reply's room is long");
	build(q, key, 0, 112);
	is_int(stamp_reflect(&ra, &in, q, 111, p, BIG, &out), STAMP_DROP_SHORT,
	       "auth: 111 octets is short");
	for (int i = 0; i < 112; i++) {
		q[i] ^= 0x01;
		passed += stamp_reflect(&ra, &in, q, 112, p, BIG, &out) != STAMP_DROP_HMAC;
		q[i] ^= 0x01;
	}
	is_int(passed, 0, "auth: a bit flipped in any of the 112 octets fails the HMAC");
	build(q, key, STAMP_WANT_PADDING, 1500);
	q[20] ^= 0x80;
	is_int(stamp_reflect(&ra, &in, q, 1500, p, BIG, &out), STAMP_DROP_HMAC,
	       "auth: long but bad is dropped");
	q[20] ^= 0x80;
	ra.key = NULL;
	is_int(stamp_reflect(&ra, &in, q, 1500, p, BIG, &out), STAMP_PASS,
	       "open reflector: an auth request's octets read as an open one");
	ok(untouched(p + 1500, BIG - 1500), "  nothing written past the request's length");
	memset(p, 0xa5, BIG);
	is_str(stamp_drop_name(STAMP_DROP_HMAC), "hmac", "drop names");
	is_str(stamp_drop_name(STAMP_DROP_COUNT), "?", "no name out of range");
}

/* A request with raw TLV octets after an open base. */
static size_t tlv_request(uint8_t *q, const uint8_t *tlvs, size_t n)
{
	build(q, NULL, 0, 44);
	memcpy(q + 44, tlvs, n);
	return 44 + n;
}

static void test_bad_tlv_lengths(void)
{
	static const uint8_t past_end[] = { 0x80, 3, 0x01, 0x00, 1, 2, 3, 4 };
	static const uint8_t fu_short[] = { 0x80, 7, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0x80, 3, 0, 4, 0, 0, 0, 0 };
	static const uint8_t tsinfo_short[] = { 0x80, 3, 0, 2, 0, 0 };
	struct stamp_reflector strict = refl_open;
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];
	size_t n;

	strict.strict = true;
	n = tlv_request(q, past_end, sizeof(past_end));
	is_int(stamp_reflect(&refl_open, &in, q, n, p, BIG, &out), STAMP_PASS,
	       "a Length past the end: answered (RFC 8972 §4)");
	is_int(p[44], STAMP_TLV_M, "  with M");
	is_mem(p + 45, q + 45, n - 45, "  the rest as it came");
	ok(out.malformed, "  counted as malformed");
	memset(p, 0xa5, BIG);
	is_int(stamp_reflect(&strict, &in, q, n, p, BIG, &out), STAMP_DROP_TLV, "  strict: dropped");
	ok(untouched(p, BIG), "  strict: nothing written");
	n = tlv_request(q, fu_short, sizeof(fu_short));
	stamp_reflect(&refl_open, &in, q, n, p, BIG, &out);
	is_int(p[44], STAMP_TLV_M, "Follow-Up of length 12: M");
	is_mem(p + 60, q + 60, 8, "  the TLV after it untouched (U as sent, value zero)");
	is_int(stamp_reflect(&strict, &in, q, n, p, BIG, &out), STAMP_DROP_TLV, "  strict: dropped");
	n = tlv_request(q, tsinfo_short, sizeof(tsinfo_short));
	stamp_reflect(&refl_open, &in, q, n, p, BIG, &out);
	is_int(p[44], STAMP_TLV_M, "Timestamp Information of length 2: M");
}

static void test_tlv_answers(void)
{
	static const uint8_t tlvs[] = {
		0x80, 42, 0, 4, 9, 9, 9, 9,		/* unknown */
		0x80, 3, 0, 8, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef,	/* sub-TLV octets */
		0x80, 7, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		0x80, 1, 0, 2, 0x77, 0x77,		/* padding */
		0xff, 2, 0, 0 };			/* Location, reserved flags set */
	struct stamp_followup fu = { .seq = 6, .t3_ns = T3 - 1000000, .method = STAMP_METHOD_HW };
	struct stamp_reflector r = refl_open;
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];
	size_t n = tlv_request(q, tlvs, sizeof(tlvs));

	in.fu = &fu;
	stamp_reflect(&r, &in, q, n, p, BIG, &out);
	is_int(p[44], STAMP_TLV_U, "unknown type 42: U");
	is_u64(be(p + 48, 4), 0x09090909, "  its value copied");
	is_int(p[52], 0, "Timestamp Information understood: flags 0");
	is_u64(be(p + 56, 4), 0x02010102, "  PTP-synced HW T2, NTP-synced SW T3");
	is_u64(be(p + 60, 4), 0xdeadbeef, "  its sub-TLV octets untouched");
	is_int(p[64], 0, "Follow-Up understood: flags 0");
	ok(zero(p + 68, 16), "  stateless: sequence, timestamp and the rest zero (RFC 8972 §4.7)");
	is_int(p[84], 0, "Extra Padding understood");
	is_u64(be(p + 88, 2), 0x7777, "  its value copied");
	is_int(p[90], STAMP_TLV_U, "Location (not acted on): U, reserved flags cleared");
	is_int(out.tlvs, 5, "out: 5 TLVs");
	is_int(out.unknown, 2, "out: 2 unknown");
	r.stateful = true;
	stamp_reflect(&r, &in, q, n, p, BIG, &out);
	is_u64(be(p + 68, 4), 6, "stateful: follow-up sequence");
	is_u64(be(p + 72, 8), stamp_ts_encode(T3 - 1000000, STAMP_NTP), "  its wire T3 (NTP)");
	is_int(p[80], STAMP_METHOD_HW, "  HW");
	ok(zero(p + 81, 3), "  reserved zero");
}

static void test_tlv_integrity(void)
{
	struct stamp_reflector r = { .key = key, .ee = EE_R };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];

	build(q, key, STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING, 200);
	is_int(stamp_reflect(&r, &in, q, 200, p, BIG, &out), STAMP_PASS, "auth with TLVs");
	ok(!out.integrity && p[112] == 0 && p[140] == 0, "  HMAC TLV verified, flags cleared");
	is_int(p[116 + 1], STAMP_METHOD_HW, "  Timestamp Information filled");
	{
		uint8_t mac[AUTH_FULL_LEN];

		auth_hmac2(key, p, 4, p + 112, 28, mac);
		is_mem(p + 144, mac, 16, "  the reply's HMAC TLV over its own seq and TLVs");
	}
	q[118] ^= 1;	/* inside the Timestamp Information value: the base HMAC holds */
	is_int(stamp_reflect(&r, &in, q, 200, p, BIG, &out), STAMP_PASS, "TLVs fail their HMAC");
	ok(out.integrity && p[112] == STAMP_TLV_I && p[120] == STAMP_TLV_I &&
	   p[140] == STAMP_TLV_I && p[160] == STAMP_TLV_I, "  every TLV returned with I");
	is_mem(p + 116, q + 116, 4, "  none acted on");
	r.strict = true;
	is_int(stamp_reflect(&r, &in, q, 200, p, BIG, &out), STAMP_DROP_TLV, "  strict: dropped");
}

static void test_tlv_hmac_rules(void)
{
	static const uint8_t tsinfo[] = { 0x80, 3, 0, 4, 0, 0, 0, 0 };
	static const uint8_t hmac_tlv[] = { 0x80, 8, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0, 0, 0, 0 };
	struct stamp_reflector r = { .key = key, .ee = EE_R };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];

	build(q, key, 0, 112);
	memcpy(q + 112, tsinfo, 8);
	stamp_reflect(&r, &in, q, 120, p, BIG, &out);
	ok(out.integrity && p[112] == STAMP_TLV_I, "auth, TLVs but no HMAC TLV: I");
	build(q, key, STAMP_WANT_PADDING, 140);
	memmove(q + 112, q + 132, 4);	/* drop the HMAC TLV: a lone Extra Padding */
	memset(q + 116, 0, 24);
	q[114] = 0;
	q[115] = 24;
	stamp_reflect(&r, &in, q, 140, p, BIG, &out);
	ok(!out.integrity && p[112] == 0, "auth, a lone Extra Padding needs no HMAC TLV");
	build(q, key, STAMP_WANT_TSINFO, 140);
	memcpy(p, q + 112, 8);		/* TS info moved after the HMAC TLV */
	memmove(q + 112, q + 120, 20);
	memcpy(q + 132, p, 8);
	stamp_reflect(&r, &in, q, 140, p, BIG, &out);
	ok(out.integrity, "a TLV after the HMAC TLV: I (RFC 8972 §4.8)");
	tlv_request(q, hmac_tlv, sizeof(hmac_tlv));
	stamp_reflect(&refl_open, &in, q, 64, p, BIG, &out);
	ok(out.integrity && p[44] == STAMP_TLV_I, "open mode: an HMAC TLV it cannot check: I");
}

static void test_padding_and_twamp(void)
{
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];

	memset(q, 0, sizeof(q));
	q[3] = 9;			/* TWAMP-Light: seq 9, timestamp, EE, padding */
	memcpy(q + 4, "\xe8\xfe\x6f\x80\x1f\x9a\xdd\x37\x00\x01", 10);
	memset(p, 0xa5, BIG);
	is_int(stamp_reflect(&refl_open, &in, q, 41, p, BIG, &out), STAMP_PASS,
	       "TWAMP-Light, 14 octets and 27 of padding: answered");
	ok(out.twamp, "  marked as TWAMP-Light");
	is_u64(be(p + 24, 4), 9, "  its sequence number echoed");
	is_u64(be(p + 28, 8), NTP_T1, "  its timestamp echoed");
	is_u64(be(p + 36, 2), 1, "  its error estimate echoed");
	is_int(p[40], 61, "  the TTL at 40, the last octet");
	ok(untouched(p + 41, BIG - 41), "  41 octets written, no more");
	is_int(stamp_reflect(&refl_open, &in, q, 40, p, BIG, &out), STAMP_DROP_SHORT,
	       "TWAMP-Light with less padding: short (no amplification)");
	q[300] = 0;
	is_int(stamp_reflect(&refl_open, &in, q, 400, p, BIG, &out), STAMP_PASS,
	       "400 octets, zero padding");
	ok(out.tlvs == 0 && zero(p + 44, 356), "  zero padding is not TLVs, returned as zeros");
}

/* Every size from the shortest to 600, open and auth, with and without
 * TLVs: the reply fills the request's length and not one octet more, and
 * reflecting in place gives the same octets. */
static void test_reply_length(void)
{
	const unsigned int wants[] = { 0, STAMP_WANT_PADDING, STAMP_WANT_TSINFO |
				       STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	uint8_t q[BIG], p[BIG];
	int bad = 0, runs = 0;

	for (int a = 0; a < 2; a++) {
		struct stamp_reflector r = { .key = a ? key : NULL, .ee = EE_R };

		for (unsigned int w = 0; w < 3; w++) {
			size_t len = stamp_request_min_len(a, wants[w]);

			for (; len <= 600; len++) {
				build(q, r.key, wants[w], len);
				memset(p, 0xa5, BIG);
				runs++;
				if (stamp_reflect(&r, &in, q, len, p, BIG, &out) ||
				    !untouched(p + len, BIG - len))
					bad++;
				if (stamp_reflect(&r, &in, q, len, q, len, &out) ||
				    memcmp(p, q, len))
					bad++;
			}
		}
	}
	is_int(bad, 0, "%d requests: each reply exactly the request's length, in place too", runs);
}

static void test_parse_reply(void)
{
	struct stamp_followup fu = { .seq = 6, .t3_ns = T3 - 1000000, .method = STAMP_METHOD_HW };
	struct stamp_reflector r = { .key = key, .ee = stamp_ee_make(true, STAMP_PTP, 100),
				     .stateful = true, .sync_hw = STAMP_SYNC_PTP };
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	struct stamp_reply rep;
	uint8_t q[BIG];

	in.fu = &fu;
	build(q, key, STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP | STAMP_WANT_PADDING, 300);
	stamp_reflect(&r, &in, q, 300, q, 300, &out);
	is_int(stamp_parse_reply(q, 300, key, T3, &rep), STAMP_PASS, "reply parsed");
	ok(rep.seq == 7 && rep.sender_seq == 0x01020304 && rep.ssid == 0xbeef && rep.ttl == 61,
	   "  sequence numbers, SSID, TTL");
	ok(rep.t1_ns == T1 && rep.t2_ns == T2 && rep.t3_ns == T3,
	   "  T1 by the sender's Z (NTP), T2 and T3 by the reflector's (PTP)");
	ok(stamp_ee_synced(rep.ee) && stamp_ee_fmt(rep.ee) == STAMP_PTP, "  its S and Z");
	is_u64(rep.tlv_understood, STAMP_TLV_BIT(1) | STAMP_TLV_BIT(3) | STAMP_TLV_BIT(7) |
	       STAMP_TLV_BIT(8), "  the TLVs it understood");
	ok(rep.has_tsinfo && rep.sync_in == STAMP_SYNC_PTP && rep.method_in == STAMP_METHOD_HW &&
	   rep.sync_out == STAMP_SYNC_NONE && rep.method_out == STAMP_METHOD_SW,
	   "  Timestamp Information: HW T2 (PTP), SW T3 (source not given)");
	ok(rep.has_followup && rep.fu_seq == 6 && rep.fu_t3_ns == T3 - 1000000 &&
	   rep.fu_method == STAMP_METHOD_HW, "  the follow-up");
	q[200] ^= 1;	/* in the padding, outside every HMAC */
	is_int(stamp_parse_reply(q, 300, key, T3, &rep), STAMP_PASS, "padding is not covered");
	q[20] ^= 1;
	is_int(stamp_parse_reply(q, 300, key, T3, &rep), STAMP_DROP_HMAC, "base HMAC: dropped");
	is_int(stamp_parse_reply(q, 100, key, T3, &rep), STAMP_DROP_SHORT, "short reply: dropped");
}

/*
 * Direct Measurement (RFC 8972 §4.5) and Class of Service (§4.4): the
 * sender's S_TxC and DSCP1 where the RFC puts them, the reflector's
 * counts and the request's DSCP2 and ECN in the reply, RP 0 and the
 * reply's TOS DSCP1 when it applies it, RP 1 and the DSCP the request
 * came with when it does not; each read back by the sender, open and
 * authenticated, with a bad length flagged M.
 */
static void test_direct_cos(const struct auth *k)
{
	unsigned int want = STAMP_WANT_DIRECT | STAMP_WANT_COS;
	struct stamp_request rq = { .key = k, .seq = 9, .t1_ns = T1, .ee = EE_S, .want = want,
				    .tx_count = 0xa1b2c3d4, .dscp = 10, .len = 200 };
	struct stamp_reflector r = { .key = k, .ee = EE_R, .cos_apply = true };
	struct stamp_reflect_in in = refl_in();
	size_t base = k ? STAMP_AUTH_BASE_LEN : STAMP_BASE_LEN;
	size_t dm = stamp_request_value_off(k, want, STAMP_WANT_DIRECT);
	size_t cos = stamp_request_value_off(k, want, STAMP_WANT_COS);
	struct stamp_reflect_out out;
	struct stamp_reply rep;
	uint8_t q[BIG];
	const char *m = k ? "auth" : "open";

	ok(stamp_build(&rq, q, BIG) == 200 && dm == base + 4 && cos == base + 20 &&
	   q[dm - 3] == STAMP_TLV_DIRECT && be_get32(q + dm) == 0xa1b2c3d4 &&
	   !be_get32(q + dm + 4) && !be_get32(q + dm + 8) && q[cos - 3] == STAMP_TLV_COS &&
	   q[cos] == 10 << 2 && !q[cos + 1], "%s: S_TxC and DSCP1 where RFC 8972 puts them", m);
	in.tos = 46 << 2 | 2;	/* EF, ECT(0) */
	in.rx_count = 12;
	in.tx_count = 11;
	is_int(stamp_reflect(&r, &in, q, 200, q, 200, &out), STAMP_PASS, "%s: reflected", m);
	ok(out.tos == 10 << 2 && be_get32(q + dm) == 0xa1b2c3d4 && be_get32(q + dm + 4) == 12 &&
	   be_get32(q + dm + 8) == 11 && q[cos] == (10 << 2 | 46 >> 4) &&
	   q[cos + 1] == ((46 & 15) << 4 | 2 << 2), "%s: counts, DSCP2 46, ECN 2, RP 0; leaves with DSCP1", m);
	is_int(stamp_parse_reply(q, 200, k, T3, &rep), STAMP_PASS, "%s: the reply parses", m);
	ok(rep.has_direct && rep.dm_s_tx == 0xa1b2c3d4 && rep.dm_r_rx == 12 && rep.dm_r_tx == 11 &&
	   rep.has_cos && rep.cos_dscp1 == 10 && rep.cos_dscp2 == 46 && rep.cos_ecn == 2 &&
	   !rep.cos_rp, "%s: the sender reads them back", m);
	stamp_build(&rq, q, BIG);
	r.cos_apply = false;
	stamp_reflect(&r, &in, q, 200, q, 200, &out);
	stamp_parse_reply(q, 200, k, T3, &rep);
	ok(out.tos == 46 << 2 && rep.cos_rp == 1 && rep.cos_dscp2 == 46,
	   "%s: not applied: RP 1, the reply leaves with the DSCP it came with", m);
	stamp_build(&rq, q, BIG);
	in.tos = -1;
	stamp_reflect(&r, &in, q, 200, q, 200, &out);
	ok(q[cos - 4] == STAMP_TLV_U && out.tos == -1 && !q[dm - 4],
	   "%s: the request's TOS unknown: Class of Service back with U (not processed)", m);
	stamp_build(&rq, q, BIG);
	q[dm - 1] = 11;	/* Direct Measurement of 11 octets */
	stamp_reflect(&r, &in, q, 200, q, 200, &out);
	ok(q[dm - 4] & STAMP_TLV_M, "%s: a Direct Measurement TLV of 11 octets: M", m);
}

/* A reflector that knows no TLVs returns them as they came; one that fails
 * them returns I; one that zeroes them reports nothing. */
static void test_parse_foreign(void)
{
	struct stamp_reflect_in in = refl_in();
	struct stamp_reflect_out out;
	struct stamp_reply rep;
	uint8_t q[BIG], p[BIG];

	build(q, NULL, STAMP_WANT_TSINFO | STAMP_WANT_FOLLOWUP, 72);
	stamp_reflect(&refl_open, &in, q, 44, p, BIG, &out);
	memcpy(p + 44, q + 44, 28);	/* the TLVs as padding, U still set */
	stamp_parse_reply(p, 72, NULL, T3, &rep);
	ok(rep.tlv_unknown == (STAMP_TLV_BIT(3) | STAMP_TLV_BIT(7)) && !rep.tlv_understood &&
	   !rep.has_tsinfo && !rep.has_followup, "TLVs returned as sent: unknown, nothing reported");
	p[44] = STAMP_TLV_I;
	p[52] = STAMP_TLV_I;
	stamp_parse_reply(p, 72, NULL, T3, &rep);
	ok(rep.tlv_integrity && !rep.tlv_understood, "I: every TLV discarded");
	p[44] = STAMP_TLV_M;
	p[52] = 0;
	stamp_parse_reply(p, 72, NULL, T3, &rep);
	ok(rep.tlv_malformed == STAMP_TLV_BIT(3) && !rep.has_followup, "M: the walk ends");
	memset(p + 44, 0, 28);
	memset(p + 4, 0, 8);
	stamp_parse_reply(p, 72, NULL, T3, &rep);
	ok(!rep.tlv_seen && rep.t3_ns == TS_NONE && rep.t2_ns == T2,
	   "zeroed TLVs and T3: not reported, never made up");
	stamp_parse_reply(p, 41, NULL, T3, &rep);
	ok(rep.ttl == 61 && rep.sender_seq == 0x01020304, "a 41-octet TWAMP reply is read");
}

static void test_peek_and_iter(void)
{
	static const uint8_t tlvs[] = { 0x80, 1, 0, 0, 0x80, 3, 0, 4, 1, 2, 3, 4, 0, 0 };
	struct stamp_tlv_iter it;
	struct stamp_tlv t;
	uint8_t q[BIG];
	uint32_t seq;
	uint16_t ssid;
	int64_t t1;
	size_t n;

	build(q, key, 0, 112);
	ok(!stamp_peek(q, 112, true, &seq, &ssid, &t1) && seq == 0x01020304 && ssid == 0xbeef &&
	   t1 == T1, "peek: sequence, SSID and T1 (auth)");
	build(q, NULL, 0, 44);
	ok(!stamp_peek(q, 44, false, &seq, &ssid, &t1) && seq == 0x01020304 && ssid == 0xbeef &&
	   t1 == T1, "peek: sequence, SSID and T1 (open)");
	is_int(stamp_peek(q, 40, false, &seq, &ssid, &t1), -EBADMSG, "peek: too short");
	n = tlv_request(q, tlvs, sizeof(tlvs));
	stamp_tlv_begin(&it, q, n, 44);
	ok(stamp_tlv_next(&it, &t) == 1 && t.type == 1 && t.len == 0 && t.off == 44,
	   "iter: an empty Extra Padding");
	ok(stamp_tlv_next(&it, &t) == 1 && t.type == 3 && t.len == 4 && t.off == 48,
	   "iter: Timestamp Information");
	is_int(stamp_tlv_next(&it, &t), 0, "iter: 2 zero octets left: the end");
	stamp_tlv_begin(&it, q, 47, 44);
	is_int(stamp_tlv_next(&it, &t), 0, "iter: 3 octets: no header");
	stamp_tlv_begin(&it, q, 54, 48);
	is_int(stamp_tlv_next(&it, &t), -EMSGSIZE, "iter: a value past the end");
	is_int(stamp_tlv_next(&it, &t), 0, "iter: then the end");
	stamp_tlv_begin(&it, q, 10, 44);
	is_int(stamp_tlv_next(&it, &t), 0, "iter: a base beyond the packet");
	ok(stamp_tlv_len_ok(3, 12) && !stamp_tlv_len_ok(7, 17) && !stamp_tlv_len_ok(8, 15) &&
	   stamp_tlv_len_ok(200, 1), "lengths by type");
}

int main(void)
{
	uint8_t k[32];

	for (int i = 0; i < 32; i++)
		k[i] = (uint8_t)i;
	key = auth_create(k, sizeof(k));
	if (!key)
		BAIL_OUT("auth_create");
	test_open_request();
	test_auth_request();
	test_request_tlvs();
	test_open_reply();
	test_auth_reply();
	test_ntp();
	test_ptp();
	test_ts_round_trips();
	test_error_estimate();
	test_ee_clock();
	test_drops();
	test_bad_tlv_lengths();
	test_tlv_answers();
	test_tlv_integrity();
	test_tlv_hmac_rules();
	test_padding_and_twamp();
	test_reply_length();
	test_parse_reply();
	test_parse_foreign();
	test_direct_cos(NULL);
	test_direct_cos(key);
	test_peek_and_iter();
	auth_destroy(key);
	return done_testing();
}
