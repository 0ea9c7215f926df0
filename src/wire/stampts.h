/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * STAMP's timestamps and Error Estimates (RFC 8762 §4.2.1, RFC 4656
 * §4.1.2), apart from the packets (stamp.h, which includes this):
 * the two timestamp formats, their coding to and from int64 ns, and the
 * Error Estimate that says which format a stamp is in and how good its
 * clock is. The encoder and the decoder without a reference are inline:
 * every packet takes them; the rest is stampts.c.
 *
 * Timestamps: NTP 64-bit (seconds since 1900, 32-bit binary fraction;
 * Z = 0 in the Error Estimate, the default) or PTPv2 truncated (seconds
 * since 1970, 32 bits, then nanoseconds; Z = 1). rant keeps int64 ns since
 * the Unix epoch; stamp_ts_encode()/stamp_ts_decode() convert. A received
 * timestamp is decoded by the Z bit of the Error Estimate that travels
 * with it (T2 and T3 by the reflector's, the echoed T1 by the sender's),
 * so the two ends need not agree. Both 32-bit second counts wrap (NTP in
 * 2036, PTP in 2106): a decoder places the stamp in the 136-year window
 * centred on a reference time the caller gives (a local stamp of the same
 * exchange). The PTP timescale is TAI, and this module does not convert
 * timescales: what goes in comes out. A caller whose clock is UTC
 * (CLOCK_REALTIME) and that wants true PTP time on the wire adds the
 * TAI-UTC offset (adjtimex's tai field, 37 s since 2017) before encoding
 * and subtracts it after decoding; a PHC that ptp4l disciplines already
 * runs on TAI.
 *
 * Error Estimate (RFC 4656 §4.1.2): S (0x8000) the clock is synchronized
 * to UTC by an external source, Z (0x4000) the timestamp format, a 6-bit
 * Scale and an 8-bit Multiplier: the error is Multiplier * 2^(Scale-32)
 * seconds. A zero Multiplier is invalid and never written.
 */
#ifndef RANT_STAMPTS_H
#define RANT_STAMPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "timeutil.h"

/* The Error Estimate's flags. */
#define STAMP_EE_S 0x8000		/* synchronized to UTC */
#define STAMP_EE_Z 0x4000		/* 1: PTPv2 truncated timestamps */

enum stamp_tsfmt { STAMP_NTP = 0, STAMP_PTP = 1 };

/*
 * The Error Estimate for a clock whose error is err_ns: S when synced, Z
 * for fmt, and the smallest Scale whose Multiplier (rounded up, so the
 * estimate is never below err_ns) fits in 8 bits. err_ns 0 gives the
 * least estimate (Multiplier 1, Scale 0: 0.23 ns); a negative err_ns (the
 * error is not known) and one beyond the largest give the largest
 * (Multiplier 255, Scale 63). The Multiplier is never zero.
 */
uint16_t stamp_ee_make(bool synced, enum stamp_tsfmt fmt, int64_t err_ns);
/* The error an Error Estimate states, in ns rounded up (INT64_MAX when it
 * is larger); -1 for a zero Multiplier (invalid: the error is unknown). */
int64_t stamp_ee_err_ns(uint16_t ee);

/*
 * The Error Estimate of a clock as adjtimex(2) reports it (state: its
 * return value; status, maxerror_us: struct timex's), honestly: S only
 * when the kernel says the clock is synchronized (state not TIME_ERROR,
 * STA_UNSYNC clear), and then the error is maxerror, the kernel's bound
 * (not esterror, the expected error: an estimate must not understate
 * it), plus extra_ns (a NIC clock's stamps: how far the PHC may be from
 * the system clock while the clock checks pass). Unsynchronized, or
 * extra_ns negative (the PHC failed its check), the error is unknown:
 * no S, the largest estimate.
 */
uint16_t stamp_ee_clock(int state, int status, long maxerror_us, int64_t extra_ns,
			enum stamp_tsfmt fmt);

static inline bool stamp_ee_synced(uint16_t ee)
{
	return ee & STAMP_EE_S;
}

static inline enum stamp_tsfmt stamp_ee_fmt(uint16_t ee)
{
	return ee & STAMP_EE_Z ? STAMP_PTP : STAMP_NTP;
}

#define STAMP_NTP_UNIX_OFFSET 2208988800LL	/* seconds from 1900 to 1970 */

/* ns as whole seconds and the ns within, rounding down. */
static inline void stamp_split_ns(int64_t ns, int64_t *sec, int64_t *frac)
{
	if (ns >= 0) {	/* unsigned: a multiply and a shift, no sign to mend */
		*sec = (int64_t)((uint64_t)ns / NS_PER_SEC);
		*frac = ns - *sec * NS_PER_SEC;
		return;
	}
	*sec = ns / NS_PER_SEC;
	*frac = ns % NS_PER_SEC;
	if (*frac < 0) {
		(*sec)--;
		*frac += NS_PER_SEC;
	}
}

/*
 * ns since the Unix epoch as a 64-bit STAMP timestamp in fmt: NTP rounds
 * to the nearest 2^-32 s (so decoding gives back the same ns), PTP keeps
 * whole ns. TS_NONE (no stamp) gives 0, which every decoder reads back as
 * TS_NONE. Inline: the reflector's reply and the sender's T1 take it per
 * packet.
 */
static inline uint64_t stamp_ts_encode(int64_t ns, enum stamp_tsfmt fmt)
{
	int64_t sec, frac;
	uint64_t w;

	if (ns == TS_NONE)
		return 0;
	stamp_split_ns(ns, &sec, &frac);
	/* the NTP fraction rounded to nearest: frac * 2^32 / 10^9, which the
	 * compiler turns into a multiply by the reciprocal (no division) */
	if (fmt == STAMP_PTP)
		w = (uint64_t)(uint32_t)sec << 32 | (uint64_t)frac;
	else
		w = (uint64_t)(uint32_t)(sec + STAMP_NTP_UNIX_OFFSET) << 32 |
		    (((uint64_t)frac << 32) + NS_PER_SEC / 2) / NS_PER_SEC;
	/* 0 reads as "not reported": a real time that codes as 0 (an era's
	 * first instant) moves by the least step instead */
	return w ? w : 1;
}
#define STAMP_ERA (1LL << 32)		/* seconds a 32-bit count spans */
#define STAMP_NTP_PIVOT_SEC (STAMP_ERA - STAMP_NTP_UNIX_OFFSET)	/* 2036-02-07: NTP era 1 */

/* stamp_ts_decode() with a reference. */
int64_t stamp_ts_decode_near(uint64_t wire, enum stamp_tsfmt fmt, int64_t ref_ns);

/*
 * A 64-bit timestamp in fmt as ns since the Unix epoch, in the 136 years
 * centred on ref_ns (a local stamp of the same exchange; TS_NONE uses the
 * NTP pivot of RFC 4330, so 1968-2104). TS_NONE for 0 (not reported), a
 * PTP nanoseconds field of 10^9 or more, and a time outside int64 ns.
 * Without a reference (every packet a loop reads), the window around the
 * pivot comes down to one test of the count in each format, and its ns
 * fit in int64 (no overflow to check): inline.
 */
static inline int64_t stamp_ts_decode(uint64_t wire, enum stamp_tsfmt fmt, int64_t ref_ns)
{
	uint32_t count = (uint32_t)(wire >> 32), f = (uint32_t)wire;
	int64_t sec = count;

	if (ref_ns != TS_NONE)
		return stamp_ts_decode_near(wire, fmt, ref_ns);
	if (!wire)
		return TS_NONE;
	if (fmt == STAMP_PTP) {
		if (f >= NS_PER_SEC)
			return TS_NONE;
		if (sec > STAMP_NTP_PIVOT_SEC + STAMP_ERA / 2)
			sec -= STAMP_ERA;
		return sec * NS_PER_SEC + f;
	}
	sec -= STAMP_NTP_UNIX_OFFSET;
	if (count <= STAMP_ERA / 2)
		sec += STAMP_ERA;
	return sec * NS_PER_SEC + (int64_t)(((uint64_t)f * NS_PER_SEC + (1ULL << 31)) >> 32);
}

#endif
