/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Are the emitter and the reflector one kernel (two network namespaces
 * of one host, say), and so stamped by one system clock? The kernel's
 * boot id (/proc/sys/kernel/random/boot_id: random at each boot, the
 * same in every namespace) says so. It does not travel as it is (it
 * would name the host to anyone who pings it): a reflector's warm-up
 * pongs carry a tag, SipHash-2-4 of the emitter's session id keyed by
 * the boot id (wire.h, MSG_F_HOST), and an emitter whose own tag for
 * its session is the same shares the reflector's kernel. Another
 * session's tag tells nothing about the key.
 */
#ifndef RANT_HOSTID_H
#define RANT_HOSTID_H

#include <stddef.h>
#include <stdint.h>

#define HOSTID_KEY_LEN 16
#define HOSTID_BOOT_ID "/proc/sys/kernel/random/boot_id"

/* This kernel's boot id (path: HOSTID_BOOT_ID, or a test's file) as 16
 * bytes: 0, or -errno (-EINVAL: not 32 hex digits). */
int hostid_read(const char *path, uint8_t key[HOSTID_KEY_LEN]);

/* SipHash-2-4 of len bytes at msg under key (Aumasson and Bernstein). */
uint64_t hostid_siphash(const uint8_t key[HOSTID_KEY_LEN], const void *msg, size_t len);

/* The tag of session under key: SipHash-2-4 of its 4 bytes, big-endian. */
uint64_t hostid_tag(const uint8_t key[HOSTID_KEY_LEN], uint32_t session);

#endif
