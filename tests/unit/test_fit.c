// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fit.c: the running least-squares line (theta's drift in ppb, a size
 * sweep's cost per byte) and the binned fit that keeps the least-delayed
 * transaction of each bin of time.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "fit.h"
#include "tap.h"
#include "timeutil.h"

#define BASE (1700000000LL * NS_PER_SEC)

static void test_fit(void)
{
	struct fit f = { .x_unit = NS_PER_SEC };
	double ppb = 0;
	bool valid;
	int i;

	ok(!fit_slope(&f, &ppb), "fit: no point, no slope");
	fit_add(&f, BASE, 100);
	ok(!fit_slope(&f, &ppb), "fit: one point, no slope");
	fit_add(&f, BASE, 200);
	ok(!fit_slope(&f, &ppb), "fit: no spread in time, no slope");

	/* 50 ppm over an hour, every 100 us (36 million points is too many
	 * for a unit test: every 10 ms, 360000), around a 1 ms offset */
	f = (struct fit){ .x_unit = NS_PER_SEC };
	for (i = 0; i < 360000; i++) {
		int64_t t = BASE + (int64_t)i * 10 * NS_PER_MS;

		fit_add(&f, t, 1000000 + (t - BASE) / 20000);
	}
	valid = fit_slope(&f, &ppb);
	ok(valid && fabs(ppb - 50000) < 0.01, "fit: 50000 ppb over an hour of points, got %.4f",
	   ppb);
	ok(fabs(f.x_last - 3599.99) < 1e-6, "fit: spans 3599.99 s (%.6f)", f.x_last);

	/* noise of +-400 ns alternating: the slope stays */
	f = (struct fit){ .x_unit = NS_PER_SEC };
	for (i = 0; i < 10000; i++) {
		int64_t t = BASE + (int64_t)i * NS_PER_MS;

		fit_add(&f, t, -7000 + (i & 1 ? 400 : -400) - (t - BASE) / 1000000);
	}
	valid = fit_slope(&f, &ppb);
	ok(valid && fabs(ppb + 1000) < 5, "fit: -1000 ppb through +-400 ns of noise, got %.2f", ppb);
}

/* The bins keep the least-delayed theta: delayed pongs leave the fit alone. */
static void test_binfit(void)
{
	struct fit_bins b;
	struct fit plain = { .x_unit = NS_PER_SEC }, f;
	double ppb = 0, plain_ppb = 0;
	unsigned int kept = 0;
	bool valid;
	int i;

	if (!ok(!fit_bins_init(&b), "binfit: init"))
		return;
	fit_bins_result(&b, &f, &kept);
	ok(!fit_slope(&f, &ppb) && kept == 0, "binfit: empty");
	/* every 100 us for 2 s, 20 ppm; every 3rd pong held up 2 ms on the way
	 * back, from 0.5 s on (theta 1 ms low) */
	for (i = 0; i < 20000; i++) {
		int64_t t = BASE + (int64_t)i * 100 * NS_PER_US;
		int64_t th = 7000 + (t - BASE) / 50000, net = 9000 + (i % 4) * 10;

		if (i % 3 == 0 && i > 5000) {
			net += 2 * NS_PER_MS;
			th -= NS_PER_MS;
		}
		fit_bins_add(&b, t, net, th);
		fit_add(&plain, t, th);
	}
	/* then a stall: one transaction in 30 ms, 5 ms late on the way back */
	fit_bins_add(&b, BASE + 2030 * NS_PER_MS, 5 * NS_PER_MS, -2500000);
	fit_bins_add(&b, BASE + 2060 * NS_PER_MS, 9000, 7000 + 2060000000LL / 50000);
	ok(!fit_bins_result(&b, &f, &kept), "binfit: result");
	valid = fit_slope(&f, &ppb);
	ok(valid && fabs(ppb - 20000) < 1, "binfit: 20000 ppb through delayed pongs, got %.3f", ppb);
	is_int(kept, 201, "binfit: one point per 10 ms bin, the stalled one left out");
	valid = fit_slope(&plain, &plain_ppb);
	ok(valid && fabs(plain_ppb - 20000) > 10000, "the plain fit is thrown off by them (%.0f ppb)",
	   plain_ppb);
	fit_bins_free(&b);

	/* 5 h of bins: merged down to at most FIT_PICKS, still exact */
	fit_bins_init(&b);
	for (i = 0; i < 1800000; i++) {
		int64_t t = BASE + (int64_t)i * 10 * NS_PER_MS;

		fit_bins_add(&b, t, 9000 + (i % 7) * 10, -300 - (t - BASE) / 100000);
	}
	fit_bins_result(&b, &f, &kept);
	valid = fit_slope(&f, &ppb);
	ok(kept <= FIT_PICKS + 1 && kept > FIT_PICKS / 2,
	   "binfit: 1800000 bins kept in %u picks", kept);
	ok(valid && fabs(ppb + 10000) < 0.5, "binfit: -10000 ppb over 5 h, got %.3f", ppb);
	ok(fabs(f.x_last - 18000) < 10, "binfit: spans 5 h, to a bin (%.1f s)", f.x_last);
	fit_bins_free(&b);
}

/* x in bytes (unit 1): the line's value at 0 and its slope. */
static void test_line(void)
{
	struct fit f = { 0 };
	double slope = 0;

	for (int64_t x = 64; x <= 8192; x *= 2)
		fit_add(&f, x, 3000 + 3 * x);
	ok(fit_slope(&f, &slope) && fabs(slope - 3) < 1e-9, "line: 3 ns/byte (%.12f)", slope);
	ok(fabs(fit_at(&f, 0) - 3000) < 1e-6, "line: 3000 ns at 0 bytes (%.6f)", fit_at(&f, 0));
	ok(fabs(fit_at(&f, 1000) - 6000) < 1e-6, "line: 6000 ns at 1000 bytes");
	f = (struct fit){ 0 };
	fit_add(&f, 100, 5);
	ok(!fit_slope(&f, &slope) && fit_at(&f, 0) == 5, "line: one point, no slope, its value");
}

int main(void)
{
	test_fit();
	test_binfit();
	test_line();
	return done_testing();
}
