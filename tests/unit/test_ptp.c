// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptp.c: the PTPv2 event header of --ptp-mode, byte by byte against
 * IEEE 1588-2008 13.3, and its parser's rejections.
 */
#include <string.h>

#include "ptp.h"
#include "tap.h"

static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

static void test_encode(void)
{
	struct ptp_hdr h = {
		.type = PTP_SYNC, .domain = PTP_RANT_DOMAIN, .length = 106,
		.flags = PTP_FLAG_TWO_STEP | PTP_FLAG_UNICAST, .port = 1, .seq = 0xbeef,
	};
	const uint8_t want[PTP_HDR_LEN] = {
		0x00, 0x02, 0x00, 106, PTP_RANT_DOMAIN, 0x00, 0x06, 0x00,	/* 0-7 */
		0, 0, 0, 0, 0, 0, 0, 0,						/* correction */
		0, 0, 0, 0,							/* reserved */
		0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55, 0x00, 0x01,	/* port id */
		0xbe, 0xef, 0x00, 0x7f,
	};
	uint8_t buf[PTP_HDR_LEN + 8];

	ptp_clock_id(mac, h.clock_id);
	memset(buf, 0xaa, sizeof(buf));
	ptp_put_hdr(buf, &h);
	ok(!memcmp(buf, want, PTP_HDR_LEN), "Sync header: every byte as 1588 lays it out");
	is_int(buf[PTP_HDR_LEN], 0xaa, "nothing written past the 34 bytes");

	h.type = PTP_DELAY_REQ;
	h.flags = PTP_FLAG_UNICAST;
	ptp_put_hdr(buf, &h);
	is_int(buf[0], 0x01, "Delay_Req: messageType 1");
	is_int(buf[6], 0x04, "... unicast flag only");
	is_int(buf[32], 0x01, "... controlField 1");

	ptp_set_len_seq(buf, 1000, 0x123456789abcULL);
	ok(buf[2] == (1034 >> 8) && buf[3] == (1034 & 0xff), "messageLength: payload + 34");
	ok(buf[30] == 0x9a && buf[31] == 0xbc, "sequenceId: the low 16 bits of rant's seq");
}

static void test_parse(void)
{
	struct ptp_hdr h = {
		.type = PTP_DELAY_REQ, .domain = PTP_RANT_DOMAIN, .flags = PTP_FLAG_UNICAST,
		.port = 1,
	}, got;
	uint8_t buf[100];

	memset(buf, 0, sizeof(buf));
	ptp_clock_id(mac, h.clock_id);
	ptp_put_hdr(buf, &h);
	ptp_set_len_seq(buf, sizeof(buf) - PTP_HDR_LEN, 77);
	is_int(ptp_parse(buf, sizeof(buf), PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got), 0,
	       "a Delay_Req of 100 bytes parses");
	ok(got.type == PTP_DELAY_REQ && got.length == 100 && got.seq == 77 && got.port == 1 &&
	   got.flags == PTP_FLAG_UNICAST && !memcmp(got.clock_id, h.clock_id, 8),
	   "... every field back");
	is_int(ptp_parse(buf, PTP_HDR_LEN - 1, PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got),
	       -PTP_ESHORT, "33 bytes: short");
	is_int(ptp_parse(buf, sizeof(buf) - 1, PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got),
	       -PTP_ELEN, "messageLength is not the datagram's length");
	is_int(ptp_parse(buf, sizeof(buf), PTP_SYNC, PTP_RANT_DOMAIN, &got), -PTP_ETYPE,
	       "a Delay_Req where a Sync is expected");
	is_int(ptp_parse(buf, sizeof(buf), PTP_DELAY_REQ, 0, &got), -PTP_EDOMAIN,
	       "another domain");
	buf[1] = 0x01;
	is_int(ptp_parse(buf, sizeof(buf), PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got), -PTP_EVERSION,
	       "PTPv1");
	buf[1] = 0x12;	/* minorVersionPTP 1 (1588-2019) in the reserved nibble */
	is_int(ptp_parse(buf, sizeof(buf), PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got), 0,
	       "version 2.1 is version 2");
	buf[0] = 0x11;	/* transportSpecific 1 */
	is_int(ptp_parse(buf, sizeof(buf), PTP_DELAY_REQ, PTP_RANT_DOMAIN, &got), 0,
	       "transportSpecific is not the messageType");
	is_str(ptp_strerror(-PTP_EDOMAIN), "domain", "strerror");
	is_str(ptp_strerror(-1000), "unknown", "strerror out of range");
	is_str(ptp_type_name(PTP_SYNC), "Sync", "type name");
}

int main(void)
{
	test_encode();
	test_parse();
	return done_testing();
}
