/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One interval of the interval reports (series.h): its row, and the row's
 * -I line and JSON object from one place. The reporter thread prints the
 * lines during the run (series.c), the summary the JSON (seriesout.c).
 */
#ifndef RANT_SERIESROW_H
#define RANT_SERIESROW_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"

/* One interval, as printed and as the JSON's "series" has it. */
struct series_row {
	int64_t t_ns;		/* the interval's start, since measuring began */
	int64_t duration_ns;	/* -I; the last one may be shorter */
	uint64_t sent, received, lost, late;	/* late: seen in it */
	uint64_t in_flight;	/* emitter: of sent, those without a fate when the
				 * row was reported (sent = received + lost + in_flight) */
	uint64_t samples;	/* events with a value of the main metric */
	int64_t min, p50, p99, max;	/* ns; meaningful when samples > 0 */
};

/* The header above the lines: the columns, metric the main metric's name. */
void series_format_header(const char *metric, char *buf, size_t len);
/* The line of row r (no newline). */
void series_format_row(const struct series_row *r, char *buf, size_t len);

/* One interval: its -I line (series_format_row()) and its JSON object. */
void series_row_print(struct out *o, const struct series_row *r);

#endif
