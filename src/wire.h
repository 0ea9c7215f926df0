/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rant wire format: one UDP datagram each way, big-endian, versioned.
 *
 *  offset size  field
 *   0      4    magic "RANT"
 *   4      1    version (WIRE_VERSION)
 *   5      1    type (WIRE_PING, WIRE_PONG)
 *   6      2    flags (WIRE_F_*)
 *   8      4    session id (random per emit run)
 *  12      4    length of the whole datagram, as the emitter sent it
 *  16      8    sequence number
 *  24      8    T1_SW, ns since the epoch (echoed back in the pong)
 * pong body, present when the datagram is at least WIRE_PONG_LEN long:
 *  32      8    T2 wire stamp (HW or KN, see WIRE_F_T2_HW)
 *  40      8    T2_SW
 *  48      8    T3_SW
 *  56      8    follow-up: sequence number of the previous pong
 *  64      8    follow-up: T3 wire stamp of that previous pong
 * the rest, up to --size, is padding (echoed unchanged).
 * With --key (WIRE_F_AUTH), the last WIRE_MAC_LEN bytes of the datagram
 * are its MAC (auth.h) over every byte before them, and the pong body is
 * present when the datagram is at least WIRE_AUTH_PONG_LEN long.
 */
#ifndef RANT_WIRE_H
#define RANT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC "RANT"
#define WIRE_VERSION 1
#define WIRE_HDR_LEN 32		/* smallest valid datagram */
#define WIRE_PONG_LEN 72	/* smallest datagram that carries the body */
#define WIRE_MAX_LEN 65507	/* largest UDP payload over IPv4 */
#define WIRE_MAC_LEN 16		/* --key: HMAC-SHA-256 truncated, at the end */
#define WIRE_AUTH_MIN_LEN (WIRE_HDR_LEN + WIRE_MAC_LEN)	/* smallest with --key */
#define WIRE_AUTH_PONG_LEN (WIRE_PONG_LEN + WIRE_MAC_LEN) /* body and MAC */

enum wire_type {
	WIRE_PING = 1,
	WIRE_PONG = 2,
};

/* Ping flags, echoed in the pong. */
#define WIRE_F_WARMUP	0x0001	/* not measured: reflector does not count it */
#define WIRE_F_WANT_SW	0x0002	/* emitter asks for T2_SW and T3_SW */
#define WIRE_F_AUTH	0x0004	/* ends in a MAC (--key); a reflector without
				 * --key answers with the flag cleared */
/* Pong flags: which body fields hold data. */
#define WIRE_F_T2	0x0100	/* t2_wire is valid */
#define WIRE_F_T2_HW	0x0200	/* t2_wire is a NIC stamp (else kernel) */
#define WIRE_F_SW	0x0400	/* t2_sw and t3_sw are valid */
#define WIRE_F_FU	0x0800	/* fu_seq and fu_t3_wire are valid */
#define WIRE_F_FU_HW	0x1000	/* fu_t3_wire is a NIC stamp (else kernel) */
#define WIRE_F_CLOCK_BAD 0x2000	/* the reflector's PHC and system clock differ by
				 * more than its --max-clock-offset (clock.h) */
#define WIRE_F_PING_MASK 0x00ff

struct wire_hdr {
	uint8_t type;		/* enum wire_type */
	uint16_t flags;		/* WIRE_F_* */
	uint32_t session;
	uint32_t len;		/* whole datagram, bytes */
	uint64_t seq;
	int64_t t1_sw;		/* ns */
};

struct wire_body {
	int64_t t2_wire;	/* ns */
	int64_t t2_sw;		/* ns */
	int64_t t3_sw;		/* ns */
	uint64_t fu_seq;
	int64_t fu_t3_wire;	/* ns */
};

/* Reasons a datagram is rejected; wire_parse() returns their negatives. */
enum wire_err {
	WIRE_OK = 0,
	WIRE_ESHORT,		/* shorter than WIRE_HDR_LEN */
	WIRE_EMAGIC,		/* not "RANT" */
	WIRE_EVERSION,		/* another version of the format */
	WIRE_ETYPE,		/* not the type the caller expects */
	WIRE_ELEN,		/* length field differs from the bytes received */
	WIRE_NERR
};

/* Write the header into buf (at least WIRE_HDR_LEN bytes). */
void wire_put_hdr(void *buf, const struct wire_hdr *h);
/* Write the pong body; buf must be at least WIRE_PONG_LEN bytes. */
void wire_put_body(void *buf, const struct wire_body *b);
/* Update only seq and T1_SW of a header already in buf (the emit loop). */
void wire_set_seq(void *buf, uint64_t seq, int64_t t1_sw);

/* The sequence number of the message of len bytes in buf (0 when it is
 * shorter than a header), without validating it (the sender's own). */
uint64_t wire_get_seq(const void *buf, size_t len);

/*
 * Validate n received bytes as a datagram of type want and decode its
 * header. Returns 0 or -WIRE_E*; h is filled only on success.
 */
int wire_parse(const void *buf, size_t n, enum wire_type want,
	       struct wire_hdr *h);
/* Decode the pong body; returns -WIRE_ESHORT when n < WIRE_PONG_LEN. */
int wire_parse_body(const void *buf, size_t n, struct wire_body *b);
/* A short name for a rejection reason ("short", "magic", ...), given
 * -WIRE_E* or WIRE_E*; "unknown" for any other int (INT_MIN too). */
const char *wire_strerror(int err);

#endif
