/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One TCP segment as seen at one point of the path: the header's fields
 * that the analysis reads (analysis/tcpana.h), with the stamp of when it
 * was seen. A captured frame's parser (pktparse.h) fills it; the feeds
 * of the analysis (a capture file, a live interface, a socket's stamps)
 * hand it over, each with its direction.
 */
#ifndef RANT_TCPSEG_H
#define RANT_TCPSEG_H

#include <stdint.h>

/* Which way a segment went. */
enum tcpseg_dir {
	TCPSEG_C2S,	/* client to server: the side that sent the SYN, or the
			 * higher port when the handshake was not seen */
	TCPSEG_S2C,	/* server to client */
};

/* struct tcpseg's flags: the TCP header's, and what the feed knows. */
#define TCPSEG_F_SYN	0x0001u
#define TCPSEG_F_ACK	0x0002u
#define TCPSEG_F_FIN	0x0004u
#define TCPSEG_F_RST	0x0008u
#define TCPSEG_F_PSH	0x0010u
#define TCPSEG_F_TS	0x0020u	/* tsval and tsecr hold the timestamps option */
#define TCPSEG_F_CUT	0x0040u	/* the capture cut the TCP header or its
				 * options: seq, ack, win may be absent (0) */

/* One segment as seen at one point of the path. */
struct tcpseg {
	int64_t t_ns;		/* when it was seen, CLOCK_REALTIME ns */
	uint32_t seq;		/* sequence number (absolute: differences only) */
	uint32_t ack;		/* acknowledgment number, with TCPSEG_F_ACK */
	uint32_t len;		/* payload bytes, as the IP header says (a cut
				 * capture still knows them) */
	uint32_t win;		/* receive window in bytes, scaled when the
				 * handshake gave the scale, else as sent */
	uint32_t tsval, tsecr;	/* with TCPSEG_F_TS */
	uint16_t mss;		/* a SYN's MSS option, 0: none (Nagle holds
				 * segments below the peer's MSS) */
	uint16_t flags;		/* TCPSEG_F_* */
	uint8_t dir;		/* enum tcpseg_dir */
};

#endif
