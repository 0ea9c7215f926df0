// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The boot id and its per-session tag (see hostid.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "hostid.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hostid_read(const char *path, uint8_t key[HOSTID_KEY_LEN])
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), nib = 0, err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	for (ssize_t i = 0; i < n && buf[i] != '\n'; i++) {
		int d = hex_digit(buf[i]);

		if (buf[i] == '-')
			continue;
		if (d < 0 || nib >= 2 * HOSTID_KEY_LEN)
			return -EINVAL;
		key[nib / 2] = (uint8_t)(nib % 2 ? key[nib / 2] | d : d << 4);
		nib++;
	}
	return nib == 2 * HOSTID_KEY_LEN ? 0 : -EINVAL;
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

uint64_t hostid_siphash(const uint8_t key[HOSTID_KEY_LEN], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = get_le64(key), k1 = get_le64(key + 8), m, last;
	uint64_t v[4] = {
		k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
		k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL,
	};
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		m = get_le64(p + i);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	last = (uint64_t)len << 56;
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)p[i + j] << (8 * j);
	v[3] ^= last;
	sip_round(v);
	sip_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t hostid_tag(const uint8_t key[HOSTID_KEY_LEN], uint32_t session)
{
	uint8_t m[4] = { (uint8_t)(session >> 24), (uint8_t)(session >> 16),
			 (uint8_t)(session >> 8), (uint8_t)session };

	return hostid_siphash(key, m, sizeof(m));
}
