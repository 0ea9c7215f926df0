// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PTPv2 event header for --ptp-mode (layout in ptp.h).
 */
#include <endian.h>
#include <string.h>

#include "ptp.h"

enum {
	OFF_TYPE = 0,
	OFF_VERSION = 1,
	OFF_LENGTH = 2,
	OFF_DOMAIN = 4,
	OFF_FLAGS = 6,
	OFF_CORRECTION = 8,
	OFF_CLOCK_ID = 20,
	OFF_PORT = 28,
	OFF_SEQ = 30,
	OFF_CONTROL = 32,
	OFF_LOG_INTERVAL = 33,
};

#define LOG_INTERVAL_UNICAST 0x7f

static void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

/* controlField: obsolete in PTPv2 but still set, as PTPv1 readers need. */
static uint8_t control_of(uint8_t type)
{
	return type == PTP_SYNC ? 0 : type == PTP_DELAY_REQ ? 1 : 5;
}

void ptp_put_hdr(void *buf, const struct ptp_hdr *h)
{
	uint8_t *p = buf;

	memset(p, 0, PTP_HDR_LEN);
	p[OFF_TYPE] = h->type & 0x0f;
	p[OFF_VERSION] = PTP_VERSION;
	put16(p + OFF_LENGTH, h->length);
	p[OFF_DOMAIN] = h->domain;
	put16(p + OFF_FLAGS, h->flags);
	memcpy(p + OFF_CLOCK_ID, h->clock_id, sizeof(h->clock_id));
	put16(p + OFF_PORT, h->port);
	put16(p + OFF_SEQ, h->seq);
	p[OFF_CONTROL] = control_of(h->type);
	p[OFF_LOG_INTERVAL] = LOG_INTERVAL_UNICAST;
}

void ptp_set_len_seq(void *buf, size_t payload, uint64_t seq)
{
	uint8_t *p = buf;

	put16(p + OFF_LENGTH, (uint16_t)(payload + PTP_HDR_LEN));
	put16(p + OFF_SEQ, (uint16_t)seq);
}

int ptp_parse(const void *buf, size_t n, enum ptp_msg_type want,
	      uint8_t domain, struct ptp_hdr *h)
{
	const uint8_t *p = buf;

	if (n < PTP_HDR_LEN)
		return -PTP_ESHORT;
	if ((p[OFF_VERSION] & 0x0f) != PTP_VERSION)
		return -PTP_EVERSION;
	if ((p[OFF_TYPE] & 0x0f) != want)
		return -PTP_ETYPE;
	if (get16(p + OFF_LENGTH) != n)
		return -PTP_ELEN;
	if (p[OFF_DOMAIN] != domain)
		return -PTP_EDOMAIN;
	h->type = p[OFF_TYPE] & 0x0f;
	h->domain = p[OFF_DOMAIN];
	h->length = get16(p + OFF_LENGTH);
	h->flags = get16(p + OFF_FLAGS);
	memcpy(h->clock_id, p + OFF_CLOCK_ID, sizeof(h->clock_id));
	h->port = get16(p + OFF_PORT);
	h->seq = get16(p + OFF_SEQ);
	return 0;
}

const char *ptp_strerror(int err)
{
	static const char *const names[PTP_NERR] = {
		[PTP_OK] = "ok",
		[PTP_ESHORT] = "short",
		[PTP_EVERSION] = "version",
		[PTP_ETYPE] = "type",
		[PTP_ELEN] = "length",
		[PTP_EDOMAIN] = "domain",
	};

	if (err <= -PTP_NERR || err >= PTP_NERR)
		return "unknown";
	return names[err < 0 ? -err : err];
}

const char *ptp_type_name(enum ptp_msg_type t)
{
	switch (t) {
	case PTP_SYNC:
		return "Sync";
	case PTP_DELAY_REQ:
		return "Delay_Req";
	default:
		return "other";
	}
}

void ptp_clock_id(const uint8_t mac[6], uint8_t id[8])
{
	id[0] = mac[0];
	id[1] = mac[1];
	id[2] = mac[2];
	id[3] = 0xff;
	id[4] = 0xfe;
	id[5] = mac[3];
	id[6] = mac[4];
	id[7] = mac[5];
}
