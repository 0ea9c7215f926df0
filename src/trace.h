/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftrace: markers in an instance's trace_marker, and freezing the
 * instance at a breach. Every file is opened by trace_open(), before the
 * first packet; at a breach only write() calls remain.
 */
#ifndef RANT_TRACE_H
#define RANT_TRACE_H

#include <stdbool.h>
#include <stddef.h>

struct trace;

/*
 * instance: a name under <tracefs>/instances, or a path to an instance
 * directory (or to the tracefs top level). Where tracefs is not mounted,
 * it is mounted at /sys/kernel/tracing. snapshot: open its snapshot
 * file too (-S). Returns 0, or -errno with one line (problem and the
 * command that fixes it) in err.
 */
int trace_open(struct trace **t, const char *instance, bool snapshot,
	       char *err, size_t len);
void trace_close(struct trace *t);

/* True when rant found tracefs unmounted and mounted it (at
 * /sys/kernel/tracing, in its own mount namespace under ip netns exec). */
bool trace_mounted(const struct trace *t);

/* The instance directory. */
const char *trace_dir(const struct trace *t);

/* Write one marker line (a newline is added). 0 or -errno. */
int trace_mark(struct trace *t, const char *line);

/*
 * Freeze the trace: the snapshot first (with -S), then tracing_on 0.
 * Marker writes fail once tracing is off, so mark before. 0 or -errno.
 */
int trace_freeze(struct trace *t);

#endif
