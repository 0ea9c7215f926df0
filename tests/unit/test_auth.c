/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/wire/auth.h: HMAC-SHA-256 against RFC 4231's vectors and OpenSSL's own
 * HMAC(); messages signed and checked (every flipped bit, another key,
 * a truncated message refused); no allocation per message; the key
 * file's checks (missing, mode, empty, short, long, not a file).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "tap.h"
#include "wire.h"

static long allocs;	/* OpenSSL's allocations since the start */

static void *count_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	allocs++;
	return malloc(n);
}

static void *count_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	allocs++;
	return realloc(p, n);
}

static void count_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	free(p);
}

static void unhex(const char *s, uint8_t *out)
{
	for (size_t i = 0; s[2 * i]; i++) {
		unsigned int v;

		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static void test_rfc4231(void)
{
	uint8_t key[131], want[32], got[32];
	struct auth *a;

	memset(key, 0x0b, 20);
	a = auth_create(key, 20);
	auth_hmac(a, "Hi There", 8, got);
	unhex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", want);
	is_mem(got, want, 32, "RFC 4231 test case 1");
	auth_destroy(a);
	a = auth_create("Jefe", 4);
	auth_hmac(a, "what do ya want for nothing?", 28, got);
	unhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", want);
	is_mem(got, want, 32, "RFC 4231 test case 2 (a key shorter than the block)");
	auth_destroy(a);
	memset(key, 0xaa, sizeof(key));
	a = auth_create(key, sizeof(key));
	auth_hmac(a, "Test Using Larger Than Block-Size Key - Hash Key First", 54, got);
	unhex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", want);
	is_mem(got, want, 32, "RFC 4231 test case 6 (a key longer than the block is hashed)");
	auth_destroy(a);
}

/* Against OpenSSL's HMAC() for keys and messages of many lengths. */
static void test_vs_openssl(void)
{
	uint8_t key[200], msg[2000], got[32], want[32];
	unsigned int wlen;
	int bad = 0, n = 0;

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13 + 5);
	for (size_t kl = 16; kl <= sizeof(key); kl += 23) {
		struct auth *a = auth_create(key, kl);

		for (size_t ml = 0; ml <= sizeof(msg); ml += 97, n++) {
			auth_hmac(a, msg, ml, got);
			HMAC(EVP_sha256(), key, (int)kl, msg, ml, want, &wlen);
			bad += wlen != 32 || memcmp(got, want, 32) != 0;
		}
		auth_destroy(a);
	}
	is_int(bad, 0, "the same MAC as OpenSSL's HMAC() in %d cases (keys 16 to 200, messages 0 to 2000 bytes)",
	       n);
}

static void test_sign_verify(void)
{
	uint8_t msg[WIRE_AUTH_PONG_LEN], copy[sizeof(msg)];
	struct auth *a = auth_create("0123456789abcdef", 16);
	struct auth *b = auth_create("0123456789abcdeF", 16);
	uint8_t full[32];
	int flips = 0;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	auth_sign(a, msg, sizeof(msg));
	auth_hmac(a, msg, sizeof(msg) - WIRE_MAC_LEN, full);
	is_mem(msg + sizeof(msg) - WIRE_MAC_LEN, full, WIRE_MAC_LEN,
	       "the MAC is the first 16 bytes of the HMAC, in the last 16 of the message");
	ok(auth_verify(a, msg, sizeof(msg)), "a signed message verifies");
	ok(!auth_verify(b, msg, sizeof(msg)), "not under another key");
	for (size_t bit = 0; bit < sizeof(msg) * 8; bit++) {
		memcpy(copy, msg, sizeof(msg));
		copy[bit / 8] ^= (uint8_t)(1 << (bit % 8));
		flips += auth_verify(a, copy, sizeof(copy));
	}
	is_int(flips, 0, "none of the %zu one-bit changes verifies", sizeof(msg) * 8);
	ok(!auth_verify(a, msg, sizeof(msg) - 1), "a message one byte short does not");
	ok(!auth_verify(a, msg, WIRE_MAC_LEN - 1), "nor one shorter than a MAC");
	memset(copy, 0, sizeof(copy));
	ok(!auth_verify(a, copy, sizeof(copy)), "nor zeros");
	auth_sign(a, msg, WIRE_AUTH_MIN_LEN);
	ok(auth_verify(a, msg, WIRE_AUTH_MIN_LEN), "the smallest message with --key (48 bytes)");
	auth_destroy(a);
	auth_destroy(b);
}

/* The packet loop's calls allocate nothing (OpenSSL's EVP_MAC would). */
static void test_no_alloc(void)
{
	uint8_t msg[1500] = { 0 };
	struct auth *a = auth_create("0123456789abcdef", 16);
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM p[] = { OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
			   OSSL_PARAM_construct_end() };
	uint8_t out[32];
	size_t olen;
	long before;
	int good = 0;

	before = allocs;
	for (int i = 0; i < 1000; i++) {
		msg[0] = (uint8_t)i;
		auth_sign(a, msg, sizeof(msg));
		good += auth_verify(a, msg, sizeof(msg));
	}
	is_int(good, 1000, "1000 messages signed and verified");
	is_int(allocs - before, 0, "with no allocation in libcrypto");
	auth_destroy(a);
	if (ctx && EVP_MAC_init(ctx, (const uint8_t *)"0123456789abcdef", 16, p)) {
		before = allocs;
		for (int i = 0; i < 100; i++) {
			EVP_MAC_init(ctx, NULL, 0, NULL);
			EVP_MAC_update(ctx, msg, sizeof(msg));
			EVP_MAC_final(ctx, out, &olen, sizeof(out));
		}
		note("for comparison: EVP_MAC_init on a kept context allocates %.1f times per message",
		     (double)(allocs - before) / 100);
	}
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

static char dir[] = "/tmp/rant-auth-XXXXXX";

/* A file in dir with content (n bytes) and mode; its path. */
static const char *key_file(const char *name, const void *content, size_t n, mode_t mode)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n)
		BAIL_OUT("cannot write a key file");
	fchmod(fd, mode);
	close(fd);
	return path;
}

static int load(const char *path, char *msg, size_t len, struct auth **a)
{
	msg[0] = '\0';
	return auth_load(a, path, msg, len);
}

static void test_key_files(void)
{
	char msg[512], big[AUTH_KEY_MAX + 2];
	uint8_t m1[WIRE_AUTH_PONG_LEN] = { 1 }, m2[WIRE_AUTH_PONG_LEN] = { 1 };
	struct auth *a, *b;
	const char *p;

	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp");
	snprintf(big, sizeof(big), "%s/none", dir);
	ok(load(big, msg, sizeof(msg), &a) == -ENOENT && !a, "a missing file: -ENOENT");
	ok(strstr(msg, "head -c 32 /dev/urandom") != NULL, "says how to make one: %s", msg);
	p = key_file("open", "0123456789abcdef", 16, 0644);
	ok(load(p, msg, sizeof(msg), &a) == -EPERM && !a, "mode 0644: refused");
	ok(strstr(msg, "chmod 600") && strstr(msg, "0644"), "naming chmod 600: %s", msg);
	p = key_file("group", "0123456789abcdef", 16, 0620);
	ok(load(p, msg, sizeof(msg), &a) == -EPERM, "group-writable (0620): refused too");
	p = key_file("empty", "", 0, 0600);
	ok(load(p, msg, sizeof(msg), &a) == -EINVAL && strstr(msg, "empty"), "empty: %s", msg);
	p = key_file("newline", "\n", 1, 0600);
	ok(load(p, msg, sizeof(msg), &a) == -EINVAL && strstr(msg, "empty"), "a newline alone is empty");
	p = key_file("short", "0123456789abcde", 15, 0600);
	ok(load(p, msg, sizeof(msg), &a) == -EINVAL && strstr(msg, "15 bytes is too short"),
	   "15 bytes: %s", msg);
	memset(big, 'k', sizeof(big));
	p = key_file("long", big, AUTH_KEY_MAX + 1, 0600);
	ok(load(p, msg, sizeof(msg), &a) == -EFBIG && !a, "%d bytes: %s", AUTH_KEY_MAX + 1, msg);
	ok(load(dir, msg, sizeof(msg), &a) == -EINVAL && strstr(msg, "not a regular file"),
	   "a directory: %s", msg);

	p = key_file("k16", "0123456789abcdef", 16, 0600);
	ok(load(p, msg, sizeof(msg), &a) == 0 && a, "16 bytes, mode 0600: taken");
	p = key_file("k16nl", "0123456789abcdef\n", 17, 0400);
	ok(load(p, msg, sizeof(msg), &b) == 0 && b, "the same with a final newline, mode 0400");
	if (a && b) {
		auth_sign(a, m1, sizeof(m1));
		auth_sign(b, m2, sizeof(m2));
		is_mem(m1, m2, sizeof(m1), "the final newline is not part of the key");
	}
	auth_destroy(a);
	auth_destroy(b);
	p = key_file("k17", "0123456789abcdef\r", 17, 0600);
	ok(load(p, msg, sizeof(msg), &b) == 0 && b, "other bytes are kept (a final CR)");
	if (b) {
		auth_sign(b, m2, sizeof(m2));
		ok(memcmp(m1, m2, sizeof(m1)) != 0, "and make another key");
	}
	auth_destroy(b);
	p = key_file("bin16", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0b\x0c\x0d\x0e\x0f\x10\x11", 16, 0600);
	ok(load(p, msg, sizeof(msg), &a) == 0 && a, "16 random bytes: taken");
	p = key_file("bin17", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0b\x0c\x0d\x0e\x0f\x10\x11\n", 17, 0600);
	ok(load(p, msg, sizeof(msg), &b) == 0 && b, "17 random bytes ending in 0x0a: taken");
	if (a && b) {
		auth_sign(a, m1, sizeof(m1));
		auth_sign(b, m2, sizeof(m2));
		ok(memcmp(m1, m2, sizeof(m1)) != 0,
		   "a random key's final 0x0a is its own (as STAMP peers read it)");
	}
	auth_destroy(a);
	auth_destroy(b);
	p = key_file("max", big, AUTH_KEY_MAX, 0600);
	ok(load(p, msg, sizeof(msg), &a) == 0, "%d bytes: taken", AUTH_KEY_MAX);
	auth_destroy(a);
	snprintf(big, sizeof(big), "rm -rf '%s'", dir);
	if (system(big))
		diag("could not remove %s", dir);
}

/* T1_SW within the window either way, the edges included; a forged
 * extreme T1_SW does not overflow into the window. */
static void test_fresh(void)
{
	const int64_t now = 1700000000LL * 1000000000, w = 5000000000LL;

	ok(auth_fresh(now, now, w), "now is fresh");
	ok(auth_fresh(now - w, now, w) && auth_fresh(now + w, now, w), "the window's edges are in");
	ok(!auth_fresh(now - w - 1, now, w), "1 ns older than the window: refused");
	ok(!auth_fresh(now + w + 1, now, w), "1 ns ahead of it: refused");
	ok(!auth_fresh(INT64_MIN, now, w) && !auth_fresh(INT64_MAX, now, w),
	   "INT64_MIN and INT64_MAX: refused");
	ok(!auth_fresh(INT64_MAX, INT64_MIN, w), "the widest distance: refused");
}

/* Each seq once; reordering within AUTH_REPLAY_BITS answered once. */
static void test_replay_window(void)
{
	struct auth_replay w = { 0 };
	int n = 0;

	ok(!auth_replay_check(&w, 0), "seq 0 is never new");
	ok(auth_replay_check(&w, 1), "seq 1 is new");
	ok(!auth_replay_check(&w, 1), "seq 1 again: a replay");
	ok(auth_replay_check(&w, 10), "a jump to 10 is new");
	ok(auth_replay_check(&w, 5), "5 came late (reordered): new");
	ok(!auth_replay_check(&w, 5), "5 again: a replay");
	ok(!auth_replay_check(&w, 10), "10 again: a replay");
	ok(auth_replay_check(&w, 10 + AUTH_REPLAY_BITS - 1), "the top moves to 73");
	ok(auth_replay_check(&w, 10 + 1), "11: the oldest still in the window, new");
	ok(!auth_replay_check(&w, 10), "10: out of the window now, refused");
	ok(!auth_replay_check(&w, 2), "2: far below it, refused");
	ok(auth_replay_check(&w, 1000), "a jump past the whole window");
	for (uint64_t s = 1000 - AUTH_REPLAY_BITS + 1; s < 1000; s++)
		n += auth_replay_check(&w, s);
	is_int(n, AUTH_REPLAY_BITS - 1, "the 63 seqs below it each new once (the bits were cleared)");
	for (uint64_t s = 1000 - AUTH_REPLAY_BITS + 1; s <= 1000; s++)
		n -= auth_replay_check(&w, s);
	is_int(n, AUTH_REPLAY_BITS - 1, "and none of the 64 a second time");
	ok(auth_replay_check(&w, UINT64_MAX) && !auth_replay_check(&w, UINT64_MAX),
	   "the largest seq once");
}

int main(void)
{
	/* First, before libcrypto allocates anything. */
	if (!CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free))
		BAIL_OUT("CRYPTO_set_mem_functions refused");
	test_rfc4231();
	test_vs_openssl();
	test_sign_verify();
	test_no_alloc();
	test_key_files();
	test_fresh();
	test_replay_window();
	return done_testing();
}
