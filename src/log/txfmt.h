/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log's text (txlog.h says the file format): which columns a run's
 * log has, its header and one line per record; txlog.c writes them.
 */
#ifndef RANT_TXFMT_H
#define RANT_TXFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct txlog_fmt {
	bool emit;		/* emitter columns (else reflector) */
	bool sw;		/* SW columns (-s) */
	bool hw;		/* this side's wire stamps are HW (else KN) */
	bool peer;		/* emitter: append the reflector's columns */
	bool peer_hw;		/* the reflector's wire stamps are HW */
	const char *peer_w;	/* or, when not NULL, their suffix as given
				 * (--stamp: stamppeer_suffix()) */
	const char *peer_w3;	/* T3's when not NULL (--stamp:
				 * stamppeer_suffix_t3()), else peer_w's */
	bool ack;		/* emitter over TCP: append T_ACK_KN and EMIT_ACK */
	bool sched;		/* append the side's SCHED stamp: T1_SCHED
				 * (emitter) or T3_SCHED (reflector); "-" where
				 * the wire stamps are HW */
	bool lost;		/* emitter: append the LOST column, last */
};

/* Longest line txlog_format_line() writes, newline included. */
#define TXLOG_LINE_MAX 320

/* Header (names line and dashes line) into buf; returns its length. */
size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f);
/* One record as a line into buf (TXLOG_LINE_MAX bytes); returns length. */
size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f);

#endif
