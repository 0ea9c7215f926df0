/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ICMP echo (RFC 792) and ICMPv6 echo (RFC 4443) as --icmp sends and
 * reads them on a ping socket: the 8-byte header (type, code, checksum,
 * identifier, sequence) before the payload. On a ping socket the kernel
 * writes the identifier (the socket's own) and the checksum; the reader
 * needs only the type and the sequence. The errors (unreachable, time
 * exceeded) come as their type and code, named here. No allocation, no
 * state.
 */
#ifndef RANT_ICMPWIRE_H
#define RANT_ICMPWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ICMPWIRE_HDR_LEN 8

#define ICMPWIRE_ECHO_REPLY 0
#define ICMPWIRE_UNREACH 3
#define ICMPWIRE_ECHO 8
#define ICMPWIRE_TIME_EXCEEDED 11
#define ICMPWIRE_PARAM_PROBLEM 12
#define ICMPWIRE6_UNREACH 1
#define ICMPWIRE6_TOO_BIG 2
#define ICMPWIRE6_TIME_EXCEEDED 3
#define ICMPWIRE6_PARAM_PROBLEM 4
#define ICMPWIRE6_ECHO 128
#define ICMPWIRE6_ECHO_REPLY 129

/* An echo request's header into buf (ICMPWIRE_HDR_LEN bytes), seq in
 * network order; the identifier and checksum 0 (the kernel's). */
static inline void icmpwire_echo(uint8_t *buf, bool v6, uint16_t seq)
{
	memset(buf, 0, ICMPWIRE_HDR_LEN);
	buf[0] = v6 ? ICMPWIRE6_ECHO : ICMPWIRE_ECHO;
	buf[6] = (uint8_t)(seq >> 8);
	buf[7] = (uint8_t)seq;
}

/* An echo reply's (or a returned request's) sequence: true when buf
 * holds an ICMP header of the given type. */
static inline bool icmpwire_seq(const uint8_t *buf, size_t len, uint8_t type, uint16_t *seq)
{
	if (len < ICMPWIRE_HDR_LEN || buf[0] != type)
		return false;
	*seq = (uint16_t)(buf[6] << 8 | buf[7]);
	return true;
}

/* What an ICMP error says, in one word: unreachable, time_exceeded,
 * too_big, parameter_problem or other. */
enum icmpwire_err {
	ICMPWIRE_E_UNREACHABLE,
	ICMPWIRE_E_TIME_EXCEEDED,
	ICMPWIRE_E_OTHER,
	ICMPWIRE_E_N
};

static inline enum icmpwire_err icmpwire_err_kind(bool v6, uint8_t type)
{
	if (type == (v6 ? ICMPWIRE6_UNREACH : ICMPWIRE_UNREACH))
		return ICMPWIRE_E_UNREACHABLE;
	if (type == (v6 ? ICMPWIRE6_TIME_EXCEEDED : ICMPWIRE_TIME_EXCEEDED))
		return ICMPWIRE_E_TIME_EXCEEDED;
	return ICMPWIRE_E_OTHER;
}

static inline const char *icmpwire_err_name(enum icmpwire_err e)
{
	static const char *const names[ICMPWIRE_E_N] = {
		"unreachable", "time_exceeded", "other_error",
	};

	return e < ICMPWIRE_E_N ? names[e] : "other_error";
}

#endif
