/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * histbench: what one hist_add() costs, the call rant makes once per
 * metric and transaction inside the packet loop.
 *
 * Adds N pre-drawn values (default 1,000,000) to one histogram of the
 * default shape (-b 1 -o 100), R times (default 20), and prints the best
 * and the median round in ns per add, for two kinds of values:
 *
 *   rtt   round trips of 5..8 us with 1% tail up to 5 ms: a few hot
 *         cache lines, as in a real run
 *   wide  magnitudes spread log-uniformly over 1 ns .. 2^62 ns, both
 *         signs: a cache miss on most adds, the worst case
 *
 *   hist_add values=rtt adds=1000000 best_ns=5.1 median_ns=5.4
 *
 * Build (from the top of the tree, after make):
 *   cc -O2 -D_GNU_SOURCE -Isrc -o bench/histbench bench/histbench.c \
 *      build/librant.a -lm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;	/* xorshift64 */

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t draw(const char *kind)
{
	if (!strcmp(kind, "rtt")) {
		if (rng() % 100 == 0)
			return 8000 + (int64_t)(rng() % 5000000);
		return 5000 + (int64_t)(rng() % 3000);
	}
	{
		int bits = (int)(rng() % 63);
		int64_t m = bits ? (int64_t)(rng() >> (64 - bits)) : 0;

		return rng() & 1 ? -m - 1 : m;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int bench(const char *kind, size_t n, int rounds)
{
	int64_t *v = malloc(n * sizeof(*v));
	double *per = malloc((size_t)rounds * sizeof(*per));
	struct hist *h = hist_create(1000, 100000, false);
	struct hist_stats st;

	if (!v || !per || !h) {
		perror("histbench: allocating");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = draw(kind);
	for (int r = 0; r < rounds; r++) {
		int64_t t0 = now_ns();

		for (size_t i = 0; i < n; i++)
			hist_add(h, v[i], i);
		per[r] = (double)(now_ns() - t0) / (double)n;
	}
	hist_get_stats(h, &st);	/* keeps the adds from being optimised away */
	qsort(per, (size_t)rounds, sizeof(*per), cmp_dbl);
	printf("hist_add values=%s adds=%zu best_ns=%.2f median_ns=%.2f samples=%llu\n",
	       kind, n, per[0], per[rounds / 2], (unsigned long long)st.samples);
	hist_destroy(h);
	free(per);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 1000000;
	int rounds = 20, c;

	while ((c = getopt(argc, argv, "n:r:h")) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: histbench [-n ADDS] [-r ROUNDS]\n");
			return c == 'h' ? 0 : 1;
		}
	}
	if (n < 1 || rounds < 1) {
		fprintf(stderr, "histbench: -n and -r must be at least 1\n");
		return 1;
	}
	return bench("rtt", n, rounds) || bench("wide", n, rounds);
}
