// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --key: HMAC-SHA-256 over rant's messages (see auth.h).
 *
 * Why libcrypto's SHA256_CTX and not EVP_MAC or HMAC_CTX: in OpenSSL 3.0
 * re-initialising a kept HMAC context for the next message, as
 * EVP_MAC_init(ctx, NULL, 0, NULL) or HMAC_Init_ex(ctx, NULL, 0, NULL,
 * NULL) do, duplicates its digest context on the heap (measured with
 * CRYPTO_set_mem_functions on 3.0.19: two allocations per message for
 * EVP_MAC, one for EVP_DigestInit_ex2 on a kept EVP_MD_CTX). The SHA256_*
 * functions keep their state in a plain struct, so the keyed inner and
 * outer states of RFC 2104 are computed once and copied per message: the
 * same HMAC, on the same SHA-256 code, without touching the heap. They
 * are marked deprecated in 3.0 but kept in every 3.x release.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"

#define BLOCK 64		/* SHA-256's block, bytes */

struct auth {
	SHA256_CTX inner;	/* after (key ^ ipad) */
	SHA256_CTX outer;	/* after (key ^ opad) */
};

struct auth *auth_create(const void *key, size_t key_len)
{
	uint8_t k[BLOCK] = { 0 }, pad[BLOCK];
	struct auth *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (key_len > BLOCK)
		SHA256(key, key_len, k);
	else
		memcpy(k, key, key_len);
	for (int i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	SHA256_Init(&a->inner);
	SHA256_Update(&a->inner, pad, BLOCK);
	for (int i = 0; i < BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	SHA256_Init(&a->outer);
	SHA256_Update(&a->outer, pad, BLOCK);
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(pad, sizeof(pad));
	return a;
}

void auth_destroy(struct auth *a)
{
	if (!a)
		return;
	OPENSSL_cleanse(a, sizeof(*a));
	free(a);
}

void auth_hmac2(const struct auth *a, const void *buf1, size_t n1,
		const void *buf2, size_t n2, uint8_t out[AUTH_FULL_LEN])
{
	SHA256_CTX c = a->inner;
	uint8_t ih[SHA256_DIGEST_LENGTH];

	SHA256_Update(&c, buf1, n1);
	if (n2)
		SHA256_Update(&c, buf2, n2);
	SHA256_Final(ih, &c);
	c = a->outer;
	SHA256_Update(&c, ih, sizeof(ih));
	SHA256_Final(out, &c);
	OPENSSL_cleanse(&c, sizeof(c));
}

void auth_hmac(const struct auth *a, const void *buf, size_t n,
	       uint8_t out[AUTH_FULL_LEN])
{
	auth_hmac2(a, buf, n, NULL, 0, out);
}

void auth_sign(const struct auth *a, void *buf, size_t len)
{
	uint8_t mac[AUTH_FULL_LEN];

	auth_hmac(a, buf, len - AUTH_MAC_LEN, mac);
	memcpy((uint8_t *)buf + len - AUTH_MAC_LEN, mac, AUTH_MAC_LEN);
}

bool auth_verify(const struct auth *a, const void *buf, size_t len)
{
	uint8_t mac[AUTH_FULL_LEN];

	if (len < AUTH_MAC_LEN)
		return false;
	auth_hmac(a, buf, len - AUTH_MAC_LEN, mac);
	return CRYPTO_memcmp(mac, (const uint8_t *)buf + len - AUTH_MAC_LEN,
			     AUTH_MAC_LEN) == 0;
}

bool auth_fresh(int64_t t1_sw, int64_t now_ns, int64_t window_ns)
{
	/* unsigned: no overflow on a forged T1_SW of INT64_MIN */
	uint64_t d = t1_sw > now_ns ? (uint64_t)t1_sw - (uint64_t)now_ns :
		(uint64_t)now_ns - (uint64_t)t1_sw;

	return d <= (uint64_t)window_ns;
}

bool auth_replay_check(struct auth_replay *w, uint64_t seq)
{
	uint64_t back;

	if (!seq)
		return false;
	if (seq > w->top) {
		back = seq - w->top;
		w->bits = back >= AUTH_REPLAY_BITS ? 0 : w->bits << back;
		w->bits |= 1;
		w->top = seq;
		return true;
	}
	back = w->top - seq;
	if (back >= AUTH_REPLAY_BITS || (w->bits >> back & 1))
		return false;
	w->bits |= 1ULL << back;
	return true;
}

/* The key file's checks on its inode: 0 or -errno with msg. */
static int key_file_ok(int fd, const char *path, char *msg, size_t len)
{
	struct stat st;

	if (fstat(fd, &st)) {
		int err = -errno;

		snprintf(msg, len, "--key %s: fstat: %s", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, len, "--key %s: not a regular file (%s): give the file that holds the key",
			 path, S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a socket");
		return -EINVAL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(msg, len, "--key %s: group or others may %s it (mode %04o): a key is a secret: chmod 600 %s",
			 path, st.st_mode & (S_IRGRP | S_IROTH) ? "read" : "use",
			 (unsigned int)(st.st_mode & 07777), path);
		return -EPERM;
	}
	if (st.st_size > AUTH_KEY_MAX) {
		snprintf(msg, len, "--key %s: %lld bytes is not a key (at most %d): give a file of 16 to %d bytes, e.g. from head -c 32 /dev/urandom",
			 path, (long long)st.st_size, AUTH_KEY_MAX, AUTH_KEY_MAX);
		return -EFBIG;
	}
	return 0;
}

/*
 * A passphrase written by an editor or echo ends in a newline that is not
 * part of it; a key of random bytes may end in 0x0a by chance (one in 256
 * from head -c 32 /dev/urandom), and there that byte is the key's, as
 * other tools (STAMP's) read it. So the final newline goes only when the
 * bytes before it are printable text.
 */
static bool key_is_text(const uint8_t *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (k[i] < 0x20 || k[i] > 0x7e)
			return false;
	return true;
}

/* Read the whole key into k (AUTH_KEY_MAX + 1 bytes); its length or -errno. */
static ssize_t key_read(int fd, uint8_t *k, const char *path, char *msg, size_t len)
{
	size_t have = 0;

	while (have <= AUTH_KEY_MAX) {
		ssize_t n = read(fd, k + have, AUTH_KEY_MAX + 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			snprintf(msg, len, "--key %s: read: %s", path, strerror(-err));
			return err;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > AUTH_KEY_MAX) {
		snprintf(msg, len, "--key %s: more than %d bytes is not a key: give a file of 16 to %d bytes",
			 path, AUTH_KEY_MAX, AUTH_KEY_MAX);
		return -EFBIG;
	}
	if (have && k[have - 1] == '\n' && key_is_text(k, have - 1))
		have--;
	return (ssize_t)have;
}

int auth_load(struct auth **a, const char *path, char *msg, size_t len)
{
	uint8_t k[AUTH_KEY_MAX + 1];
	ssize_t n;
	int fd, ret;

	*a = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(msg, len, "--key %s: %s: %s", path, strerror(-ret),
			 ret == -ENOENT ? "make one with (umask 077; head -c 32 /dev/urandom > FILE) and give both sides a copy" :
			 "give a key file this user can read");
		return ret;
	}
	ret = key_file_ok(fd, path, msg, len);
	n = ret ? ret : key_read(fd, k, path, msg, len);
	close(fd);
	if (n < 0)
		return (int)n;
	if (n < AUTH_KEY_MIN) {
		if (n)
			snprintf(msg, len, "--key %s: a key of %zd bytes is too short: put at least %d in it, e.g. (umask 077; head -c 32 /dev/urandom > %s)",
				 path, n, AUTH_KEY_MIN, path);
		else
			snprintf(msg, len, "--key %s: the file is empty: put a key of at least %d bytes in it, e.g. (umask 077; head -c 32 /dev/urandom > %s)",
				 path, AUTH_KEY_MIN, path);
		OPENSSL_cleanse(k, sizeof(k));
		return -EINVAL;
	}
	*a = auth_create(k, (size_t)n);
	OPENSSL_cleanse(k, sizeof(k));
	if (!*a) {
		snprintf(msg, len, "--key %s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}
