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
	bool lost;		/* emitter: append the LOST column */
	/* a fleet's (fleettab.h): the TARGET column, the name of the record's
	 * slot at target_names + slot * target_len; and with --paths the PATH
	 * column, its path's source port (or flow label): path_ids[path] */
	const char *target_names;	/* NULL: no TARGET column */
	size_t target_len;
	const uint32_t *path_ids;	/* NULL: no PATH column */
};

/*
 * The log's column names, written here once (txfmt.c) and read by name
 * from the header line by every reader (tools/rant-plot,
 * tests/net/logcheck.py, tests/net/lib.sh's log_awk), never by position:
 * a column added moves nothing. The breach breakdown and the JSON's
 * breach stamps (breach.c) name the stamps the same way.
 */
#define TXLOG_COL_SEQ "SEQ"
#define TXLOG_COL_RTT "RTT"
#define TXLOG_COL_RESPONSE "RESPONSE"
#define TXLOG_COL_T_ACK "T_ACK_KN"	/* a kernel stamp, always */
#define TXLOG_COL_EMIT_ACK "EMIT_ACK"
#define TXLOG_COL_T1_SCHED "T1_SCHED"	/* kernel stamps */
#define TXLOG_COL_T3_SCHED "T3_SCHED"
#define TXLOG_COL_LOST "LOST"		/* the column, and its value in a lost row */
#define TXLOG_COL_TARGET "TARGET"	/* a fleet's: the target, ADDR:PORT */
#define TXLOG_COL_PATH "PATH"		/* a fleet's: the path, its source port */
#define TXLOG_HW "_HW"			/* a wire stamp's suffix: the NIC's */
#define TXLOG_KN "_KN"			/* the kernel's */

/*
 * The name of stamp p ("T1_SW", "T3_KN" ...): a wire stamp's (T1 to T4)
 * takes suffix w (TXLOG_HW, TXLOG_KN, or --stamp's "_PEER..."), a SW
 * stamp's none. Returns buf.
 */
const char *txlog_stamp_name(enum point p, const char *w, char *buf, size_t len);
/* T1 to T4's wire stamps: their names take a suffix. */
bool txlog_point_wire(enum point p);

/* Longest line txlog_format_line() writes, newline included. */
#define TXLOG_LINE_MAX 320

/* Header (names line and dashes line) into buf; returns its length. */
size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f);
/* One record as a line into buf (TXLOG_LINE_MAX bytes); returns length. */
size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f);

#endif
