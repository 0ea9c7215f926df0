// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * STAMP's timestamps and Error Estimates (RFC 8762 §4.2.1, RFC 4656
 * §4.1.2; stampts.h): the decoder around a reference and the estimate's
 * coding. The encoder and the decoder without a reference are inline in
 * stampts.h: every packet takes them.
 */
#include <stdint.h>
#include <sys/timex.h>

#include "stampts.h"
#include "timeutil.h"

uint16_t stamp_ee_make(bool synced, enum stamp_tsfmt fmt, int64_t err_ns)
{
	uint16_t ee = (uint16_t)((synced ? STAMP_EE_S : 0) | (fmt == STAMP_PTP ? STAMP_EE_Z : 0));
	unsigned __int128 num = (unsigned __int128)(err_ns > 0 ? err_ns : 0) << 32;

	if (err_ns < 0)
		return ee | 63 << 8 | 255;
	/* error = mult * 2^(scale - 32) s, so mult = err_ns * 2^32 / (1e9 * 2^scale) */
	for (unsigned int scale = 0; scale < 64; scale++) {
		unsigned __int128 den = (unsigned __int128)NS_PER_SEC << scale;
		unsigned __int128 mult = (num + den - 1) / den;

		if (mult <= 255)
			return (uint16_t)(ee | scale << 8 | (mult ? (unsigned int)mult : 1));
	}
	return ee | 63 << 8 | 255;
}

int64_t stamp_ee_err_ns(uint16_t ee)
{
	unsigned int scale = ee >> 8 & 63, mult = ee & 255;
	unsigned __int128 v;

	if (!mult)
		return -1;
	v = (((unsigned __int128)mult * NS_PER_SEC << scale) + (STAMP_ERA - 1)) >> 32;
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

uint16_t stamp_ee_clock(int state, int status, long maxerror_us, int64_t extra_ns,
			enum stamp_tsfmt fmt)
{
	bool synced = state >= 0 && state != TIME_ERROR && !(status & STA_UNSYNC) &&
		      maxerror_us >= 0 && extra_ns >= 0;
	int64_t err;

	if (!synced || __builtin_mul_overflow((int64_t)maxerror_us, NS_PER_US, &err) ||
	    __builtin_add_overflow(err, extra_ns, &err))
		return stamp_ee_make(false, fmt, -1);
	return stamp_ee_make(true, fmt, err);
}

/* A 32-bit count of seconds from epoch_sec (Unix time) placed in the era
 * whose window [ref_sec - 2^31, ref_sec + 2^31) holds it. */
static int64_t unfold(uint32_t count, int64_t epoch_sec, int64_t ref_sec)
{
	int64_t sec = (int64_t)count + epoch_sec;
	int64_t d = ref_sec - sec + STAMP_ERA / 2;
	int64_t k = d >= 0 ? d / STAMP_ERA : -((-d + STAMP_ERA - 1) / STAMP_ERA);

	return sec + k * STAMP_ERA;
}

int64_t stamp_ts_decode_near(uint64_t wire, enum stamp_tsfmt fmt, int64_t ref_ns)
{
	uint32_t count = (uint32_t)(wire >> 32), f = (uint32_t)wire;
	int64_t ref_sec, sec, frac, ns;

	if (!wire)
		return TS_NONE;
	stamp_split_ns(ref_ns, &ref_sec, &frac);
	if (fmt == STAMP_PTP) {
		if (f >= NS_PER_SEC)
			return TS_NONE;
		frac = f;
		sec = unfold(count, 0, ref_sec);
	} else {
		frac = (int64_t)(((uint64_t)f * NS_PER_SEC + (1ULL << 31)) >> 32);
		sec = unfold(count, -STAMP_NTP_UNIX_OFFSET, ref_sec);
	}
	if (__builtin_mul_overflow(sec, NS_PER_SEC, &ns) || __builtin_add_overflow(ns, frac, &ns))
		return TS_NONE;
	return ns;
}
