/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * authbench: what --key costs per message, the MAC alone.
 *
 * Signs (auth_sign: HMAC-SHA-256 over all but the last 16 bytes, into
 * them) and verifies (auth_verify) one message of SIZE bytes (default 88,
 * the emitter's default with --key) a million times a round, ROUNDS
 * rounds (default 15), and prints the best and the median round in ns
 * per call:
 *
 *   mac size=88 sign_best_ns=S sign_median_ns=S verify_best_ns=V verify_median_ns=V
 *
 * One ping-pong with --key makes four such calls: the emitter signs, the
 * reflector verifies and signs, the emitter verifies.
 *
 * Build (from the top of the tree, after make):
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/authbench.c build/librant.a -lcrypto
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "wire.h"

#define CALLS 1000000
#define MAX_ROUNDS 101

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ns per call of sign (verify 0) or verify (of the message signed last:
 * the whole MAC compared), each round into ns[], sorted. */
static int time_rounds(const struct auth *a, uint8_t *msg, size_t size, int rounds,
		       int verify, double *ns)
{
	unsigned long good = 0;

	for (int r = 0; r < rounds; r++) {
		int64_t t0 = now_ns();

		for (int i = 0; i < CALLS; i++) {
			if (verify) {
				good += auth_verify(a, msg, size);
			} else {
				msg[16] = (uint8_t)i;	/* the seq changes, as in a run */
				auth_sign(a, msg, size);
			}
		}
		ns[r] = (double)(now_ns() - t0) / CALLS;
	}
	if (verify && good != (unsigned long)rounds * CALLS) {
		fprintf(stderr, "authbench: a signed message did not verify\n");
		return -1;
	}
	qsort(ns, (size_t)rounds, sizeof(*ns), cmp_dbl);
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoul(argv[1], NULL, 10) : WIRE_AUTH_PONG_LEN;
	int rounds = argc > 2 ? atoi(argv[2]) : 15;
	double sign[MAX_ROUNDS], verify[MAX_ROUNDS];
	uint8_t *msg;
	struct auth *a;

	if (size < WIRE_AUTH_MIN_LEN || size > WIRE_MAX_LEN || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: authbench [SIZE (%d to %d, default %d)] [ROUNDS (1 to %d, default 15)]\n",
			WIRE_AUTH_MIN_LEN, WIRE_MAX_LEN, WIRE_AUTH_PONG_LEN, MAX_ROUNDS);
		return 1;
	}
	msg = calloc(1, size);
	a = auth_create("authbench key, 32 bytes long....", 32);
	if (!msg || !a)
		return 1;
	if (time_rounds(a, msg, size, rounds, 0, sign) ||
	    time_rounds(a, msg, size, rounds, 1, verify))
		return 1;
	printf("mac size=%zu sign_best_ns=%.1f sign_median_ns=%.1f verify_best_ns=%.1f verify_median_ns=%.1f\n",
	       size, sign[0], sign[rounds / 2], verify[0], verify[rounds / 2]);
	auth_destroy(a);
	free(msg);
	return 0;
}
