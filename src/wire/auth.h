/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --key: messages authenticated with HMAC-SHA-256 (RFC 2104, libcrypto's
 * SHA-256) under a shared key, truncated to AUTH_MAC_LEN bytes (RFC
 * 4868's HMAC-SHA-256-128) and carried in the last AUTH_MAC_LEN bytes of
 * the message itself, so a pong stays exactly as long as its ping. The
 * MAC covers every byte before it: the header, the pong body, the
 * padding.
 *
 * The key's inner and outer SHA-256 states are computed once, at set-up;
 * signing or checking a message copies them (plain structs) and hashes
 * the message: no allocation, no system call, safe in the packet loop.
 */
#ifndef RANT_AUTH_H
#define RANT_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_KEY_MIN 16		/* bytes: shorter keys are refused */
#define AUTH_KEY_MAX 1024	/* bytes: a key file larger is not a key */
#define AUTH_FULL_LEN 32	/* bytes of an untruncated HMAC-SHA-256 */
#define AUTH_MAC_LEN 16		/* bytes of the MAC a message carries (truncated) */
#define AUTH_WINDOW_DEFAULT_NS (5LL * 1000000000)	/* --key-window */
#define AUTH_REPLAY_BITS 64	/* seqs below the highest still accepted once */

struct auth;

/* The keyed states for key (any length; above 64 bytes it is hashed
 * first, as RFC 2104 says); NULL with errno. */
struct auth *auth_create(const void *key, size_t key_len);
/* Wipes the keyed states, then frees. */
void auth_destroy(struct auth *a);

/*
 * Read the key from path: its bytes, less one final newline (so both
 * `head -c 32 /dev/urandom` and `openssl rand -hex 32` make a key file).
 * Refuses a file group or others may read or write (chmod 600), an empty
 * one, one of fewer than AUTH_KEY_MIN or more than AUTH_KEY_MAX bytes,
 * and anything but a regular file. *a on success; -errno with one line
 * (problem and fix) in msg otherwise.
 */
int auth_load(struct auth **a, const char *path, char *msg, size_t len);

/* The whole HMAC-SHA-256 of buf[0..n) into out. */
void auth_hmac(const struct auth *a, const void *buf, size_t n,
	       uint8_t out[AUTH_FULL_LEN]);

/* The whole HMAC-SHA-256 of buf1[0..n1) followed by buf2[0..n2), without
 * copying them together (STAMP's HMAC TLV covers the sequence number at
 * the start of the packet and the TLVs after the base: src/wire/stamp.h). */
void auth_hmac2(const struct auth *a, const void *buf1, size_t n1,
		const void *buf2, size_t n2, uint8_t out[AUTH_FULL_LEN]);

/* Sign a message of len bytes (len >= AUTH_MAC_LEN): the MAC of its first
 * len - AUTH_MAC_LEN bytes goes into its last AUTH_MAC_LEN. */
void auth_sign(const struct auth *a, void *buf, size_t len);

/* Whether the last AUTH_MAC_LEN bytes of buf hold the MAC of the rest,
 * compared in constant time; false when len < AUTH_MAC_LEN. */
bool auth_verify(const struct auth *a, const void *buf, size_t len);

/*
 * Replays. A keyed ping is fresh when its T1_SW (the emitter's system
 * clock, inside the MAC) is within window_ns of now_ns (this host's
 * system clock), either way: the clocks must agree to within the window
 * less the one-way delay.
 */
bool auth_fresh(int64_t t1_sw, int64_t now_ns, int64_t window_ns);

/*
 * Each sequence number once, with room for reordering (RFC 4303's
 * anti-replay window): a seq above the highest seen is new and moves
 * the window; one of the AUTH_REPLAY_BITS below it is new when its bit
 * is clear; anything older, and seq 0, is refused. Zeroed: nothing seen.
 */
struct auth_replay {
	uint64_t top;		/* highest seq accepted, 0: none yet */
	uint64_t bits;		/* bit i: top - i was accepted */
};

/* Whether seq is new for w; marks it seen when it is. */
bool auth_replay_check(struct auth_replay *w, uint64_t seq);

#endif
