/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant trace's report (trace/hopsum.h): the text (each path's hops, worst
 * path first: responder, sent, answered, RTT min/p50/p99/max, increment;
 * the verdict; how the trace ended) and the JSON (schema/rant.schema.json,
 * mode "trace"), from one printer.
 */
#ifndef RANT_TRACEOUT_H
#define RANT_TRACEOUT_H

#include "hopsum.h"
#include "out.h"

/* The whole report into o (text, JSON or both). */
void traceout_print(struct out *o, const struct hopsum *s);

/* The report to stdout (stderr when -j -) and, with json_path, the JSON
 * written whole (outfile.h), with metrics_path the Prometheus exposition
 * (traceprom.h) likewise: 0, or -errno (said on stderr). */
int traceout_write(const struct hopsum *s, const char *json_path, const char *metrics_path,
		   bool follow_links);

/* One line: how the trace ended (the text's last line), into buf. */
const char *traceout_end_line(const struct hopsum *s, char *buf, size_t len);

#endif
