/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wire's constants the XDP reflector (xdprefl.bpf.c) answers by: the
 * frames' headers, rant's format (src/wire/wire.h, src/wire/msgfmt.h)
 * and STAMP's (src/wire/stamp.h), as numbers, since the program sees
 * none of user space's headers.
 */
#ifndef RANT_XDPWIRE_H
#define RANT_XDPWIRE_H

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define IPPROTO_UDP_ 17
#define STAMP_PORT 862
#define TTL_OUT 64		/* what a socket's pong leaves with (ip_default_ttl) */

/* rant's format (src/wire/wire.h) */
#define W_HDR 32
#define W_BODY 72
#define W_REPORT 104
#define W_MAX 65507
#define F_WARMUP 0x0001
#define F_WANT_SW 0x0002
#define F_MAC 0x0004
#define F_WANT_REPORT 0x0008
#define F_FETCH 0x0010
#define F_REPORT 0x0040
#define F_HOST 0x0080
#define F_T2 0x0100
#define F_T2_HW 0x0200
#define F_SW 0x0400
#define F_FU 0x0800
#define F_FU_HW 0x1000
#define F_PING_MASK 0x00ff
/* STAMP (src/wire/stamp.h) */
#define S_BASE 44
#define S_TWAMP_MIN 41
#define S_EE_Z 0x4000
#define NTP_UNIX 2208988800ULL

#endif
