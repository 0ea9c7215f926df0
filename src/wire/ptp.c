// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PTPv2 event header for --ptp-mode (layout in ptp.h), and the message
 * format that wraps rant's own behind it (msgfmt.h: msgfmt_ptp).
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "be.h"
#include "msgfmt.h"
#include "ptp.h"
#include "wire.h"

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
	be_put16(p + OFF_LENGTH, h->length);
	p[OFF_DOMAIN] = h->domain;
	be_put16(p + OFF_FLAGS, h->flags);
	memcpy(p + OFF_CLOCK_ID, h->clock_id, sizeof(h->clock_id));
	be_put16(p + OFF_PORT, h->port);
	be_put16(p + OFF_SEQ, h->seq);
	p[OFF_CONTROL] = control_of(h->type);
	p[OFF_LOG_INTERVAL] = LOG_INTERVAL_UNICAST;
}

void ptp_set_len_seq(void *buf, size_t payload, uint64_t seq)
{
	uint8_t *p = buf;

	be_put16(p + OFF_LENGTH, (uint16_t)(payload + PTP_HDR_LEN));
	be_put16(p + OFF_SEQ, (uint16_t)seq);
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
	if (be_get16(p + OFF_LENGTH) != n)
		return -PTP_ELEN;
	if (p[OFF_DOMAIN] != domain)
		return -PTP_EDOMAIN;
	h->type = p[OFF_TYPE] & 0x0f;
	h->domain = p[OFF_DOMAIN];
	h->length = be_get16(p + OFF_LENGTH);
	h->flags = be_get16(p + OFF_FLAGS);
	memcpy(h->clock_id, p + OFF_CLOCK_ID, sizeof(h->clock_id));
	h->port = be_get16(p + OFF_PORT);
	h->seq = be_get16(p + OFF_SEQ);
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

/* ---- msgfmt_ptp: rant's message behind the header ---- */

struct ptp_priv {
	uint8_t clock_id[8];	/* EUI-64 of the interface's MAC, zeros without one */
};

_Static_assert(sizeof(struct ptp_priv) <= MSGFMT_PRIV_LEN, "fits struct msgfmt_ctx");

static const struct ptp_priv *priv(const struct msgfmt_ctx *ctx)
{
	return (const struct ptp_priv *)ctx->priv.b;
}

/* The clock identity, as ptp4l makes it, from the interface's MAC. */
static int ptp_init(struct msgfmt_ctx *ctx, const struct msgfmt_side *side, char *err,
		    size_t len)
{
	struct ptp_priv *p = (struct ptp_priv *)ctx->priv.b;
	struct ifreq ifr;
	int fd;

	(void)err;
	(void)len;
	memset(p, 0, sizeof(*p));
	if (!side->iface)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", side->iface);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr))
		ptp_clock_id((const uint8_t *)ifr.ifr_hwaddr.sa_data, p->clock_id);
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * The header of a datagram of len bytes: a ping is the Delay_Req of a
 * slave, a pong the Sync of a two-step master; sequenceId holds seq's
 * low 16 bits.
 */
static void ptp_frame(const struct msgfmt_ctx *ctx, uint8_t *p, uint8_t type, uint32_t len,
		      uint64_t seq)
{
	bool ping = type == MSG_PING;
	struct ptp_hdr h = {
		.type = ping ? PTP_DELAY_REQ : PTP_SYNC,
		.domain = PTP_RANT_DOMAIN,
		.length = (uint16_t)len,
		.flags = PTP_FLAG_UNICAST | (ping ? 0 : PTP_FLAG_TWO_STEP),
		.port = 1,
		.seq = (uint16_t)seq,
	};

	memcpy(h.clock_id, priv(ctx)->clock_id, sizeof(h.clock_id));
	ptp_put_hdr(p, &h);
}

/* rant's header as the message after the PTP header sees it. */
static struct msg_hdr inner(const struct msg_hdr *h)
{
	struct msg_hdr in = *h;

	in.len = h->len - PTP_HDR_LEN;
	return in;
}

static void ptp_put_ping(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *h)
{
	struct msg_hdr in = inner(h);

	msgfmt_rant.put_ping(ctx, (uint8_t *)buf + PTP_HDR_LEN, &in);
	ptp_frame(ctx, buf, MSG_PING, h->len, h->seq);
}

static void ptp_set_seq(struct msgfmt_ctx *ctx, void *buf, uint64_t seq, int64_t t1_sw)
{
	msgfmt_rant.set_seq(ctx, (uint8_t *)buf + PTP_HDR_LEN, seq, t1_sw);
	be_put16((uint8_t *)buf + OFF_SEQ, (uint16_t)seq);
}

static uint64_t ptp_get_seq(const struct msgfmt_ctx *ctx, const void *buf, size_t len,
			    int64_t *t1_sw)
{
	*t1_sw = 0;
	if (len < PTP_HDR_LEN)
		return 0;
	return msgfmt_rant.get_seq(ctx, (const uint8_t *)buf + PTP_HDR_LEN,
				   len - PTP_HDR_LEN, t1_sw);
}

static int ptp_parse_msg(const struct msgfmt_ctx *ctx, const void *buf, size_t n,
			 enum msg_type want, struct msg_hdr *h)
{
	static const int err[PTP_NERR] = {
		[PTP_ESHORT] = MSG_ESHORT, [PTP_EVERSION] = MSG_EVERSION,
		[PTP_ETYPE] = MSG_ETYPE, [PTP_ELEN] = MSG_ELEN, [PTP_EDOMAIN] = MSG_EMAGIC,
	};
	struct ptp_hdr ph;
	int ret;

	if (n < PTP_HDR_LEN + WIRE_HDR_LEN)
		return -MSG_ESHORT;	/* whatever its messageLength says */
	ret = ptp_parse(buf, n, want == MSG_PING ? PTP_DELAY_REQ : PTP_SYNC,
			PTP_RANT_DOMAIN, &ph);
	if (ret)
		return -err[-ret];
	ret = msgfmt_rant.parse(ctx, (const uint8_t *)buf + PTP_HDR_LEN, n - PTP_HDR_LEN,
				want, h);
	if (!ret)
		h->len = (uint32_t)n;
	return ret;
}

static void ptp_put_pong(struct msgfmt_ctx *ctx, void *buf, const struct msg_hdr *ping,
			 uint16_t flags, const struct msg_body *b)
{
	struct msg_hdr in = inner(ping);

	msgfmt_rant.put_pong(ctx, (uint8_t *)buf + PTP_HDR_LEN, &in, flags, b);
	ptp_frame(ctx, buf, MSG_PONG, ping->len, ping->seq);
}

static int ptp_parse_body(const struct msgfmt_ctx *ctx, const void *buf,
			  const struct msg_hdr *h, struct msg_body *b)
{
	struct msg_hdr in = inner(h);

	return msgfmt_rant.parse_body(ctx, (const uint8_t *)buf + PTP_HDR_LEN, &in, b);
}

/* --key signs rant's message: the PTP header is outside the MAC. */
static struct msgfmt_span ptp_mac_span(const struct msgfmt_ctx *ctx, size_t len)
{
	(void)ctx;
	return (struct msgfmt_span){ .off = PTP_HDR_LEN, .len = len - PTP_HDR_LEN };
}

const struct msgfmt msgfmt_ptp = {
	.name = "ptp",
	.caps = {
		.overhead = PTP_HDR_LEN,
		.min_len = WIRE_HDR_LEN,	/* rant's message, after the header */
		.body_len = WIRE_PONG_LEN,
		.auth_min_len = WIRE_AUTH_MIN_LEN,
		.auth_body_len = WIRE_AUTH_PONG_LEN,
		.report_len = WIRE_REPORT_LEN,
		.auth_report_len = WIRE_AUTH_REPORT_LEN,
		.parse_len = PTP_HDR_LEN + WIRE_HDR_LEN,
		.seq_mask = UINT64_MAX,
		.reflector_stamps = true,
		.follow_up = true,
		.refusal = true,
		.ts = MSGFMT_TS_NS64,
	},
	.init = ptp_init,
	.put_ping = ptp_put_ping,
	.set_seq = ptp_set_seq,
	.get_seq = ptp_get_seq,
	.parse = ptp_parse_msg,
	.put_pong = ptp_put_pong,
	.parse_body = ptp_parse_body,
	.mac_span = ptp_mac_span,
};
