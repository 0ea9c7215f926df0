/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/stats/sweep.h: the size lists of -m (one size, a list, a range with a
 * factor or a step) and the line fitted through per-size latencies.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "tap.h"

static uint32_t sz[64];
static unsigned int n;
static char err[256];

static int parse(const char *s)
{
	err[0] = '\0';
	return sweep_parse(s, 32, 65507, sz, 32, &n, err, sizeof(err));
}

static bool sizes_are(const uint32_t *want, unsigned int wn)
{
	if (n != wn)
		return false;
	for (unsigned int i = 0; i < wn; i++)
		if (sz[i] != want[i])
			return false;
	return true;
}

static void test_parse(void)
{
	static const uint32_t list[] = { 64, 256, 1024, 1472, 4096 };
	static const uint32_t pow2[] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192,
					 16384, 32768 };
	static const uint32_t step[] = { 100, 400, 700, 1000 };

	ok(parse("72") == 0 && n == 1 && sz[0] == 72, "one size");
	ok(parse("64,256,1024,1472,4096") == 0 && sizes_are(list, 5), "a list of five");
	ok(parse("4096,64") == 0 && n == 2 && sz[0] == 4096 && sz[1] == 64,
	   "a list keeps its order");
	ok(parse("64:65507:x2") == 0 && sizes_are(pow2, 10), "64:65507:x2: powers of two up to 32768");
	ok(parse("64:32768:x2") == 0 && sizes_are(pow2, 10), "64:32768:x2: the end is included");
	ok(parse("100:1000:+300") == 0 && sizes_are(step, 4), "100:1000:+300: a step");
	ok(parse("64:64:x2") == 0 && n == 1 && sz[0] == 64, "LO = HI: one size");
	ok(parse("32") == 0 && parse("65507") == 0, "the bounds themselves");

	is_int(parse("31"), -EINVAL, "31: below the range");
	ok(strstr(err, "31") && strstr(err, "32") && strstr(err, "65507"),
	   "... names the value and the range: %s", err);
	is_int(parse("65508"), -EINVAL, "65508: above the range");
	is_int(parse("64,,128"), -EINVAL, "an empty item");
	is_int(parse(""), -EINVAL, "empty");
	is_int(parse("64,"), -EINVAL, "a trailing comma");
	is_int(parse("64x"), -EINVAL, "a unit");
	is_int(parse("-64"), -EINVAL, "a sign");
	is_int(parse("99999999999999999999"), -EINVAL, "more digits than any size");
	is_int(parse("64:128"), -EINVAL, "a range without a factor or step");
	is_int(parse("64:128:2"), -EINVAL, "a factor without x");
	is_int(parse("64:128:x1"), -EINVAL, "factor 1 never ends");
	is_int(parse("64:128:+0"), -EINVAL, "step 0 never ends");
	is_int(parse("128:64:x2"), -EINVAL, "a range that ends below its start");
	is_int(parse("64:128:x2:x2"), -EINVAL, "three colons");
	is_int(parse("32:65507:+32"), -EINVAL, "more sizes than fit");
	ok(strstr(err, "32") != NULL, "... says how many fit: %s", err);
	is_int(parse("64,128:256:x2"), -EINVAL, "a list and a range mixed");
}

static void test_fit(void)
{
	static const uint32_t s[] = { 64, 256, 1024, 4096 };
	int64_t lat[4];
	struct sweep_fit f;

	/* 10 us fixed, 8 ns per byte (1 Gbit/s) */
	for (int i = 0; i < 4; i++)
		lat[i] = 10000 + 8 * (int64_t)s[i];
	ok(sweep_fit(s, lat, 4, &f) == 0, "exact line: fitted");
	is_dbl(f.offset_ns, 10000, 1e-6, "offset 10000 ns");
	is_dbl(f.ns_per_byte, 8, 1e-9, "8 ns/byte");
	is_dbl(f.bandwidth_bps, 1e9, 1, "1 Gbit/s");

	/* noise around the line: least squares, not two points */
	lat[0] += 300;
	lat[1] -= 300;
	lat[2] -= 300;
	lat[3] += 300;
	ok(sweep_fit(s, lat, 4, &f) == 0, "noisy line: fitted");
	ok(f.ns_per_byte > 7.9 && f.ns_per_byte < 8.1 && f.offset_ns > 9500 && f.offset_ns < 10500,
	   "noisy line: close to 10000 ns + 8 ns/byte (%.1f + %.3f)", f.offset_ns, f.ns_per_byte);

	/* flat: no bandwidth to speak of */
	for (int i = 0; i < 4; i++)
		lat[i] = 5000;
	ok(sweep_fit(s, lat, 4, &f) == 0 && f.ns_per_byte == 0 && f.bandwidth_bps == 0,
	   "flat latencies: slope 0, bandwidth 0 (not infinite)");
	lat[3] = 4000;
	ok(sweep_fit(s, lat, 4, &f) == 0 && f.ns_per_byte < 0 && f.bandwidth_bps == 0,
	   "falling latencies: negative slope, bandwidth 0");

	is_int(sweep_fit(s, lat, 1, &f), -EINVAL, "one point: no line");
	is_int(sweep_fit(s, lat, 0, &f), -EINVAL, "no point: no line");
	{
		static const uint32_t same[] = { 512, 512, 512 };

		is_int(sweep_fit(same, lat, 3, &f), -EINVAL, "one size three times: no line");
	}
}

/*
 * The TCP sweep (--tcp -m 64:8192:x2 --writes 2): p50 44 ms from
 * 64 to 2048 bytes (Nagle waits for the delayed ACK), 31 us at 4096 and
 * 33 us at 8192. One line through all gives a negative slope; the
 * regimes are a level of 44 ms, a cliff down after 2048, then a line.
 */
static void test_regimes_nagle(void)
{
	static const uint32_t sizes[] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 };
	static const int64_t p50[] = { 44001000, 43998000, 44003000, 44000000, 44002000,
				       43997000, 31000, 33000 };
	struct sweep_regime g[8];
	struct sweep_fit all = { 0 };
	unsigned int k;

	ok(!sweep_fit(sizes, p50, 8, &all) && all.ns_per_byte < 0,
	   "nagle: one line through all has a negative slope (%.1f ns/byte)", all.ns_per_byte);
	sweep_regimes(sizes, p50, 8, 0, g, &k);
	is_int(k, 2, "nagle: two regimes");
	ok(g[0].first == 0 && g[0].last == 5 && g[0].ends == SWEEP_CLIFF_DOWN,
	   "nagle: 64..2048 bytes, then a cliff down");
	ok(!g[0].sloped && llabs(g[0].level_ns - 44000500) <= 1000,
	   "nagle: 64..2048 a level of 44 ms (%" PRId64 " ns), no slope", g[0].level_ns);
	ok(g[1].first == 6 && g[1].last == 7 && g[1].ends == SWEEP_END && g[1].sloped &&
	   fabs(g[1].fit.ns_per_byte - 2000.0 / 4096) < 1e-9,
	   "nagle: 4096..8192 a line of %.4f ns/byte", g[1].fit.ns_per_byte);
	is_str(sweep_break_name(g[0].ends), "cliff down", "nagle: the break named");
}

/*
 * The UDP sweep: flat 5.6 us up to 1472 bytes (MTU 1500), 29.6 us
 * at 8972, fragmented. One line through all is made by the one point
 * above; the regimes split at fragmentation, and without the MTU known
 * the jump (5.3x for 6.1x the size) is no cliff: one line, as it should.
 */
static void test_regimes_fragments(void)
{
	static const uint32_t sizes[] = { 64, 256, 512, 1024, 1472, 8972 };
	static const int64_t p50[] = { 5600, 5600, 5620, 5590, 5610, 29600 };
	struct sweep_regime g[6];
	unsigned int k;

	sweep_regimes(sizes, p50, 6, 1472, g, &k);
	is_int(k, 2, "fragments: two regimes");
	ok(g[0].last == 4 && g[0].ends == SWEEP_FRAGMENTS && g[1].first == 5,
	   "fragments: the break between 1472 and 8972, IP fragmentation");
	ok(g[0].sloped && g[0].fit.ns_per_byte < 0.05,
	   "fragments: below, nearly flat (%.4f ns/byte)", g[0].fit.ns_per_byte);
	ok(!g[1].sloped && g[1].level_ns == 29600, "fragments: above, one size: its level");
	is_str(sweep_break_name(g[0].ends), "IP fragmentation", "fragments: named");
	sweep_regimes(sizes, p50, 6, 0, g, &k);
	is_int(k, 1, "fragments: MTU unknown, no cliff: one regime");
}

/* A line that holds (3 ns/byte) has no break; a rise faster than the
 * size is a cliff up. */
static void test_regimes_line(void)
{
	static const uint32_t sizes[] = { 64, 128, 256, 512, 1024 };
	int64_t p50[5];
	struct sweep_regime g[5];
	unsigned int k;

	for (int i = 0; i < 5; i++)
		p50[i] = 3000 + 3 * sizes[i];
	sweep_regimes(sizes, p50, 5, 0, g, &k);
	ok(k == 1 && g[0].sloped && fabs(g[0].fit.ns_per_byte - 3) < 1e-9,
	   "line: one regime, 3 ns/byte");
	p50[3] = 50000;
	p50[4] = 51000;
	sweep_regimes(sizes, p50, 5, 0, g, &k);
	ok(k == 2 && g[0].last == 2 && g[0].ends == SWEEP_CLIFF_UP,
	   "line: 3768 ns to 50 us from 256 to 512 bytes is a cliff up");
}

int main(void)
{
	test_parse();
	test_fit();
	test_regimes_nagle();
	test_regimes_fragments();
	test_regimes_line();
	return done_testing();
}
