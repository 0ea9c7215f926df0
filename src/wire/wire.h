/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rant wire format: one UDP datagram each way, big-endian, versioned.
 * It is the first row of the message-format interface (msgfmt.h):
 * msgfmt_rant; the functions below are its byte-level parts.
 *
 *  offset size  field
 *   0      4    magic "RANT"
 *   4      1    version (WIRE_VERSION)
 *   5      1    type (MSG_PING 1, MSG_PONG 2)
 *   6      2    flags (the MSG_F_* bits of msgfmt.h, as they are)
 *   8      4    session id (random per emit run)
 *  12      4    length of the whole datagram, as the emitter sent it
 *  16      8    sequence number
 *  24      8    T1_SW, ns since the epoch (echoed back in the pong)
 * pong body, present when the datagram is at least WIRE_PONG_LEN long:
 *  32      8    T2 wire stamp (HW or KN, see MSG_F_T2_HW)
 *  40      8    T2_SW
 *  48      8    T3_SW
 *  56      8    follow-up: sequence number of the previous pong
 *  64      8    follow-up: T3 wire stamp of that previous pong
 * the reflector's report, when the ping asks for it (MSG_F_WANT_REPORT)
 * and the datagram is at least WIRE_REPORT_LEN long (MSG_F_REPORT says
 * it is there; struct msg_report):
 *  72      1    the report's version (WIRE_REPORT_VERSION)
 *  73      7    zero
 *  80      8    the session's pongs the reflector's kernel refused (send errors)
 *  88      8    ... its qdisc dropped
 *  96      8    the longest a pong of the session waited in the qdisc, ns
 * the rest, up to --size, is padding (echoed unchanged).
 * A warm-up pong (MSG_F_WARMUP echoed) with a body may carry, in the
 * place of T2_SW, the reflector's host tag (hostid.h: SipHash-2-4 of
 * the session id keyed by its boot id), with MSG_F_HOST set and MSG_F_SW
 * clear (T3_SW then 0): an emitter with the same tag for its session is
 * on the same kernel. Older emitters skip the SW fields without
 * MSG_F_SW, older reflectors never set MSG_F_HOST: still version 1.
 * With --key (MSG_F_MAC), the last WIRE_MAC_LEN bytes of the datagram
 * are its MAC (auth.h) over every byte before them, and the pong body is
 * present when the datagram is at least WIRE_AUTH_PONG_LEN long (the
 * report: WIRE_AUTH_REPORT_LEN). Older reflectors echo
 * MSG_F_WANT_REPORT and never set MSG_F_REPORT; a report of another
 * version is not read: still version 1.
 */
#ifndef RANT_WIRE_H
#define RANT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "msgfmt.h"

#define WIRE_MAGIC "RANT"
#define WIRE_VERSION 1
#define WIRE_HDR_LEN 32		/* smallest valid datagram */
#define WIRE_PONG_LEN 72	/* smallest datagram that carries the body */
#define WIRE_MAX_LEN 65507	/* largest UDP payload over IPv4 */
#define WIRE_MAC_LEN AUTH_MAC_LEN	/* --key: HMAC-SHA-256 truncated, at the end */
#define WIRE_AUTH_MIN_LEN (WIRE_HDR_LEN + WIRE_MAC_LEN)	/* smallest with --key */
#define WIRE_AUTH_PONG_LEN (WIRE_PONG_LEN + WIRE_MAC_LEN) /* body and MAC */
#define WIRE_REPORT_LEN 104	/* smallest datagram that carries the report */
#define WIRE_AUTH_REPORT_LEN (WIRE_REPORT_LEN + WIRE_MAC_LEN)
#define WIRE_REPORT_VERSION 1

/* The ping flags a pong echoes. */
#define WIRE_F_PING_MASK 0x00ff

/* Write the header into buf (at least WIRE_HDR_LEN bytes). */
void wire_put_hdr(void *buf, const struct msg_hdr *h);
/* Write the pong body; buf must be at least WIRE_PONG_LEN bytes. */
void wire_put_body(void *buf, const struct msg_body *b);
/* Update only seq and T1_SW of a header already in buf (the emit loop). */
void wire_set_seq(void *buf, uint64_t seq, int64_t t1_sw);

/* The sequence number of the message of len bytes in buf (0 when it is
 * shorter than a header), without validating it (the sender's own). */
uint64_t wire_get_seq(const void *buf, size_t len);

/*
 * Validate n received bytes as a datagram of type want and decode its
 * header. Returns 0 or -MSG_E*; h is filled only on success.
 */
int wire_parse(const void *buf, size_t n, enum msg_type want,
	       struct msg_hdr *h);
/* Decode the pong body; returns -MSG_ESHORT when n < WIRE_PONG_LEN. */
int wire_parse_body(const void *buf, size_t n, struct msg_body *b);

/* Write the report; buf must be at least WIRE_REPORT_LEN bytes. */
void wire_put_report(void *buf, const struct msg_report *r);
/* Decode the report: 0, -MSG_ESHORT when n < WIRE_REPORT_LEN,
 * -MSG_EVERSION for a version this rant does not read. */
int wire_parse_report(const void *buf, size_t n, struct msg_report *r);

#endif
