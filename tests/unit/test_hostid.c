/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/hostid.h: SipHash-2-4 against the reference vectors of its paper
 * (key 00..0f, messages 00, 00 01, ... of 0 to 15 bytes), the boot id
 * read from a file (hex with dashes, as the kernel writes it) and the
 * bad ones refused, and tags that differ by key and by session.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostid.h"
#include "tap.h"

/* SipHash-2-4's vectors[] (reference implementation), first 16. */
static const uint64_t want[16] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL,
};

static int write_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	return close(fd);
}

static void test_siphash(void)
{
	uint8_t key[16], msg[16];
	int bad = 0;

	for (int i = 0; i < 16; i++)
		key[i] = msg[i] = (uint8_t)i;
	for (size_t n = 0; n < 16; n++)
		bad += hostid_siphash(key, msg, n) != want[n];
	is_int(bad, 0, "SipHash-2-4: the reference vectors of 0 to 15 bytes");
}

static void test_read(void)
{
	char p[] = "/tmp/rant-hostid.XXXXXX", q[] = "/tmp/rant-hostid.XXXXXX";
	uint8_t key[16], other[16];

	if (write_file(p, "3f1d2c7a-0b9e-4c55-8a21-6d0e9f4b7c13\n") ||
	    write_file(q, "3f1d2c7a-0b9e-4c55-8a21-6d0e9f4b7c1\n"))
		BAIL_OUT("temporary file");
	is_int(hostid_read(p, key), 0, "a boot id as the kernel writes it");
	ok(key[0] == 0x3f && key[1] == 0x1d && key[15] == 0x13, "its 16 bytes in order");
	is_int(hostid_read(q, other), -EINVAL, "31 hex digits: refused");
	is_int(hostid_read("/nonexistent/boot_id", other), -ENOENT, "no file: -ENOENT");
	unlink(p);
	unlink(q);
	memcpy(other, key, sizeof(key));
	other[7] ^= 1;
	ok(hostid_tag(key, 0x12345678) == hostid_tag(key, 0x12345678), "one key, one session: one tag");
	ok(hostid_tag(key, 0x12345678) != hostid_tag(other, 0x12345678), "another boot id: another tag");
	ok(hostid_tag(key, 0x12345678) != hostid_tag(key, 0x12345679), "another session: another tag");
	ok(hostid_read(HOSTID_BOOT_ID, key) == 0, "this kernel's boot id reads");
}

int main(void)
{
	test_siphash();
	test_read();
	return done_testing();
}
