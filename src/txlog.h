/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transaction log: records kept in memory during the run (allocated
 * and touched before the first packet), written as text at the end.
 *
 * Linear: holds up to cap records, then txlog_next() returns NULL.
 * Ring (-S): holds the last cap records, written oldest first.
 *
 * File format: one header line of column names, one line of dashes, one
 * line per record; columns separated by a space, stamps as
 * seconds.nanoseconds, latencies in ns, "-" for an absent value.
 *   emitter:   SEQ [T1_SW] T1_w T4_w [T4_SW] RTT
 *              then, when the pongs carried them,
 *              T2_w [T2_SW T3_SW] T3_w RESPONSE
 *              then, over TCP, T_ACK_KN EMIT_ACK
 *              then LOST: "LOST" for a ping without a pong in time
 *              (its row has the stamps it got, "-" for the rest), else "-"
 *   reflector: SEQ T2_w [T2_SW T3_SW] T3_w RESPONSE
 * where _w is _HW or _KN by the timestamp source of that side and the
 * bracketed SW columns appear with -s.
 */
#ifndef RANT_TXLOG_H
#define RANT_TXLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct txlog;

struct txlog_fmt {
	bool emit;		/* emitter columns (else reflector) */
	bool sw;		/* SW columns (-s) */
	bool hw;		/* this side's wire stamps are HW (else KN) */
	bool peer;		/* emitter: append the reflector's columns */
	bool peer_hw;		/* the reflector's wire stamps are HW */
	bool ack;		/* emitter over TCP: append T_ACK_KN and EMIT_ACK */
	bool lost;		/* emitter: append the LOST column, last */
};

/* Longest line txlog_format_line() writes, newline included. */
#define TXLOG_LINE_MAX 320

struct txlog *txlog_create(size_t cap, bool ring, bool hugepages);
void txlog_destroy(struct txlog *l);

/* The slot for the next record (zeroed), or NULL when a linear log is full. */
struct txrec *txlog_next(struct txlog *l);
/* Records held now, and records a ring has overwritten. */
size_t txlog_len(const struct txlog *l);
uint64_t txlog_overwritten(const struct txlog *l);
/* Record i, oldest first (0 <= i < txlog_len()). */
const struct txrec *txlog_get(const struct txlog *l, size_t i);

/* Header (names line and dashes line) into buf; returns its length. */
size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f);
/* One record as a line into buf (TXLOG_LINE_MAX bytes); returns length. */
size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f);

/* Write the whole log to fd. Returns 0 or -errno. */
int txlog_write(const struct txlog *l, int fd, const struct txlog_fmt *f);

#endif
