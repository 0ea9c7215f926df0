/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --ptp-mode framing: every rant message travels behind a PTPv2 event
 * header (IEEE 1588-2008, 13.3) to and from UDP port 319, so that a NIC
 * which stamps only PTP event packets (rx filter ptpv2-l4-event, and
 * drivers that classify TX packets with the kernel's ptp_classify) stamps
 * rant's pings and pongs too.
 *
 * The emitter speaks as a PTP slave does (its pings are Delay_Req), the
 * reflector as a master (its pongs are Sync, two-step: its own stamp comes
 * in a later message, as rant's follow-up does); NICs that stamp by role
 * stamp both. Both ends send from and to the port (319), because NIC
 * classifiers match the destination port. The header:
 *
 *  offset size  field
 *   0      1    transportSpecific (0) | messageType (Sync 0x0, Delay_Req 0x1)
 *   1      1    reserved | versionPTP (2)
 *   2      2    messageLength: the header and rant's message after it
 *   4      1    domainNumber (PTP_RANT_DOMAIN)
 *   5      1    reserved
 *   6      2    flagField (unicast; two-step on Sync)
 *   8      8    correctionField (0)
 *  16      4    reserved
 *  20     10    sourcePortIdentity: clockIdentity (EUI-64 of the MAC), port 1
 *  30      2    sequenceId: the low 16 bits of rant's sequence number
 *  32      1    controlField (Sync 0, Delay_Req 1)
 *  33      1    logMessageInterval (0x7f: unicast)
 *
 * Integers are big-endian. Encoding and parsing touch only the buffer.
 */
#ifndef RANT_PTP_H
#define RANT_PTP_H

#include <stddef.h>
#include <stdint.h>

#define PTP_HDR_LEN 34
#define PTP_EVENT_PORT 319
#define PTP_VERSION 2
/* A user-defined domain (4 to 127): PTP daemons of domain 0 ignore it. */
#define PTP_RANT_DOMAIN 114
/* The largest rant message behind the header in one UDP datagram. */
#define PTP_MAX_PAYLOAD (65507 - PTP_HDR_LEN)

enum ptp_msg_type {
	PTP_SYNC = 0x0,		/* the reflector's pongs */
	PTP_DELAY_REQ = 0x1,	/* the emitter's pings */
};

/* flagField bits (the first octet is the high byte). */
#define PTP_FLAG_TWO_STEP 0x0200
#define PTP_FLAG_UNICAST 0x0400

struct ptp_hdr {
	uint8_t type;		/* enum ptp_msg_type */
	uint8_t domain;
	uint16_t length;	/* messageLength */
	uint16_t flags;		/* flagField */
	uint8_t clock_id[8];	/* sourcePortIdentity.clockIdentity */
	uint16_t port;		/* sourcePortIdentity.portNumber */
	uint16_t seq;		/* sequenceId */
};

/* Reasons a datagram is not rant's PTP message; ptp_parse() returns
 * their negatives. */
enum ptp_err {
	PTP_OK = 0,
	PTP_ESHORT,		/* shorter than the header */
	PTP_EVERSION,		/* versionPTP is not 2 */
	PTP_ETYPE,		/* not the messageType expected */
	PTP_ELEN,		/* messageLength is not the datagram's length */
	PTP_EDOMAIN,		/* another domain */
	PTP_NERR
};

/* Write h into buf (PTP_HDR_LEN bytes). */
void ptp_put_hdr(void *buf, const struct ptp_hdr *h);

/* Patch messageLength (header + payload bytes) and sequenceId of a
 * header already in buf: what changes from one message to the next. */
void ptp_set_len_seq(void *buf, size_t payload, uint64_t seq);

/*
 * Check n bytes received (header and payload) as a PTPv2 message of type
 * want in domain. 0 with h filled, or -PTP_E*.
 */
int ptp_parse(const void *buf, size_t n, enum ptp_msg_type want,
	      uint8_t domain, struct ptp_hdr *h);

/* A short name for a rejection ("short", "version", ...). */
const char *ptp_strerror(int err);

/* "Sync", "Delay_Req", or "other". */
const char *ptp_type_name(enum ptp_msg_type t);

/* clockIdentity from a 6-byte MAC: its EUI-64 (ff:fe in the middle). */
void ptp_clock_id(const uint8_t mac[6], uint8_t id[8]);

#endif
