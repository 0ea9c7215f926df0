/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cross-check of --pcap: the wire stamps rant took (SO_TIMESTAMPING)
 * against the stamps the capture gave the same packets. No libpcap here:
 * capture.c feeds frames and stamps in, so the logic is tested on
 * hand-built packets (tests/unit/test_capmatch.c).
 *
 * A packet is known by its header, as the run's message format
 * (msgfmt.h) parses it: session, sequence number and type (ping or
 * pong). Each side stamps two packets of a transaction: the emitter its
 * ping's TX (T1) and its pong's RX (T4), the reflector the
 * ping's RX (T2) and its pong's TX (T3); "tx" and "rx" below are this
 * side's directions. Only measured traffic is checked: packets flagged
 * warm-up on the wire are counted, not matched.
 *
 * The two streams meet in a table keyed by (session, seq): a captured
 * packet and the transaction's stamps fill one entry in either order. An
 * entry is settled when both packets and the stamps are in, when it has
 * waited longer than the horizon given to capmatch_expire(), or at
 * capmatch_finish(). Settling counts each of the two packets as matched
 * (both sides have it: the difference log - capture is recorded),
 * only_in_log (rant has a stamp, the capture no packet) or
 * only_in_capture (a packet of a measured transaction without a stamp:
 * a ping counted lost, a pong after --timeout, a missing stamp). A
 * transaction that rant left out on purpose (capmatch_skip) settles
 * without counting.
 */
#ifndef RANT_CAPMATCH_H
#define RANT_CAPMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msgfmt.h"
#include "timeutil.h"

/* What capmatch_parse() found in one frame. */
struct capmatch_pkt {
	uint32_t session;
	uint64_t seq;
	uint8_t type;		/* MSG_PING or MSG_PONG */
	uint16_t flags;		/* MSG_F_* of the header */
	uint16_t sport, dport;	/* UDP ports */
};

/*
 * The message header in a captured frame of link type dlt (pcap's DLT_*
 * value; caplen bytes captured): the link layer and IP as pktparse.h
 * reads them (pktparse_link_ok()'s link types, VLAN tags, IPv4, IPv6 and
 * its extension headers); UDP; the header parsed by the run's format fmt
 * as the loops parse it, against the datagram's length in the UDP
 * header. 0 with *pkt, or -1: not a (first IPv4 fragment of a) message
 * of the run's format.
 */
int capmatch_parse(const uint8_t *frame, size_t caplen, int dlt,
		   const struct msgfmt_ctx *fmt, struct capmatch_pkt *pkt);
/* The same, as a message of type want only (a format with no type field,
 * STAMP, parses a reply as a request too: the caller knows the direction). */
int capmatch_parse_as(const uint8_t *frame, size_t caplen, int dlt,
		      const struct msgfmt_ctx *fmt, enum msg_type want,
		      struct capmatch_pkt *pkt);

/* Counts of one direction. */
struct capmatch_dir {
	uint64_t matched;		/* both have the packet */
	uint64_t exact;			/* ... with equal stamps, to the ns */
	uint64_t only_in_log;		/* rant's stamp, no packet captured */
	uint64_t only_in_capture;	/* captured, no stamp of rant's */
	int64_t min_diff_ns;		/* log - capture over matched ones */
	int64_t max_diff_ns;
	double sum_diff_ns;		/* for the average */
};

struct capmatch_stats {
	struct capmatch_dir tx, rx;
	uint64_t duplicates;		/* a packet captured twice (counted only_in_capture) */
	uint64_t evicted;		/* settled early: the table was full */
};

struct capmatch;

/*
 * A table of cap entries (rounded up to a power of two), for the side
 * that sends packets of type tx_type (MSG_PING: the emitter). NULL with
 * errno set.
 */
struct capmatch *capmatch_create(size_t cap, uint8_t tx_type);
void capmatch_destroy(struct capmatch *m);

/* A captured packet of a measured transaction, stamped ts_ns by the
 * capture, seen at now_ns (any monotonic clock, as for expire). */
void capmatch_packet(struct capmatch *m, uint32_t session, uint64_t seq,
		     uint8_t type, int64_t ts_ns, int64_t now_ns);
/* rant's stamps of a measured transaction: of its ping and its pong
 * (TS_NONE where rant has none). */
void capmatch_stamps(struct capmatch *m, uint32_t session, uint64_t seq,
		     int64_t ping_ns, int64_t pong_ns, int64_t now_ns);
/* A transaction on the wire as measured that rant left out (the
 * reflector's -w): its packets are not counted. */
void capmatch_skip(struct capmatch *m, uint32_t session, uint64_t seq,
		   int64_t now_ns);
/* Settle the entries older than horizon_ns at now_ns. */
void capmatch_expire(struct capmatch *m, int64_t now_ns, int64_t horizon_ns);
/* Settle every entry (the run is over). */
void capmatch_finish(struct capmatch *m);

const struct capmatch_stats *capmatch_stats(const struct capmatch *m);
/* Entries waiting now. */
size_t capmatch_pending(const struct capmatch *m);

#endif
