/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftrace: markers in an instance's trace_marker, and freezing the
 * instance at a breach. Every file is opened by trace_open(), before the
 * first packet; at a breach only write() calls remain.
 */
#ifndef RANT_TRACE_H
#define RANT_TRACE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace;

/* The stamps a breach marker carries, in path order (T1_SW ... T4_SW). */
#define TRACE_NSTAMPS 8

/* One breach, as the marker tells it (tools/rant-trace reads it back). */
struct trace_breach {
	uint64_t seq;
	int64_t latency_ns;
	int64_t threshold_ns;
	const char *metric;		/* the metric that breached ("rtt", ...), or NULL */
	const char *side;		/* "emit" or "reflect" */
	int cpu;			/* sched_getcpu() of the measuring thread */
	int64_t stamp[TRACE_NSTAMPS];	/* CLOCK_REALTIME ns; 0 (TS_NONE): absent */
};

/*
 * What every marker line carries besides its own fields: who wrote it
 * and the two clocks read together just before the write, so that a
 * CLOCK_REALTIME stamp S is S - rt_ns + mono_ns on CLOCK_MONOTONIC (the
 * trace's time line when its trace_clock is mono).
 */
struct trace_ctx {
	const char *side;
	int cpu;
	int pid;
	const char *clock;		/* the instance's trace_clock */
	int64_t rt_ns;
	int64_t mono_ns;
};

/* The marker lines (no newline). Return the length, or -ENOSPC when
 * buf is too small. extra: more "key=value" fields, or NULL. */
int trace_format_start(char *buf, size_t len, const struct trace_ctx *c,
		       const char *extra);
int trace_format_breach(char *buf, size_t len, const struct trace_ctx *c,
			const struct trace_breach *b);

/* The bracketed entry of a trace_clock file's text ("[local] global ..."
 * gives "local"); "" when there is none. */
void trace_parse_clock(const char *text, char *clock, size_t len);

/* A tracing_cpumask's text ("3", "00000000,00000003\n") as a CPU set.
 * 0, or -EINVAL on anything but hex digits and commas. */
int trace_parse_cpumask(const char *text, cpu_set_t *set);

/*
 * The one line on whether the CPUs traced cover mine (the CPUs the
 * measuring thread may run on), for the instance dir: 0 when they do,
 * -EXDEV (the line names the CPUs left out and the fix) when not.
 */
int trace_cover_line(const cpu_set_t *traced, const cpu_set_t *mine,
		     const char *dir, char *line, size_t len);

/*
 * instance: a name under <tracefs>/instances, or a path to an instance
 * directory (or to the tracefs top level). Where tracefs is not mounted,
 * it is mounted at /sys/kernel/tracing. snapshot: open its snapshot
 * file too (-S); a kernel without one (CONFIG_TRACER_SNAPSHOT off) is
 * not an error: trace_no_snapshot() says so and tracing_on alone
 * freezes. The instance's trace_clock is read here, and its
 * tracing_cpumask must cover every CPU this thread may run on (else
 * -EXDEV: rant refuses rather than change the instance). Returns 0, or
 * -errno with one line (problem and the command that fixes it) in err.
 */
int trace_open(struct trace **t, const char *instance, bool snapshot,
	       char *err, size_t len);
void trace_close(struct trace *t);

/* True when rant found tracefs unmounted and mounted it (at
 * /sys/kernel/tracing, in its own mount namespace under ip netns exec). */
bool trace_mounted(const struct trace *t);

/* The one line saying which CPUs the instance traces and that they
 * cover the measuring CPU (trace_open checked it). */
const char *trace_coverage(const struct trace *t);

/* The instance directory. */
const char *trace_dir(const struct trace *t);

/* The instance's trace_clock at trace_open() ("local", "mono", ...). */
const char *trace_clock_name(const struct trace *t);

/* -S was asked for but this kernel has no snapshot file. */
bool trace_no_snapshot(const struct trace *t);

/* RANT_TEST_START with the trace_ctx fields (side, cpu, this process,
 * the clocks now), then extra. 0 or -errno. */
int trace_start(struct trace *t, const char *side, int cpu, const char *extra);

/*
 * At a breach: write the RANT_BREACH marker, then freeze (trace_freeze).
 * 0; -EALREADY when the marker was refused because tracing_on was
 * already 0 (another writer, most likely the other side of a pair
 * sharing the instance, froze it first: its breach is the one in the
 * trace); other -errno: the trace is not frozen at this breach. Only
 * write() and one pread() of tracing_on: safe in the packet loop.
 */
int trace_breach(struct trace *t, const struct trace_breach *b);

/* The CPU of the breach trace_breach() wrote (or tried to), or -1. */
int trace_breach_cpu(const struct trace *t);

/* Write one marker line (a newline is added). 0 or -errno. */
int trace_mark(struct trace *t, const char *line);

/*
 * Freeze the trace: the snapshot first (with -S), then tracing_on 0.
 * Marker writes fail once tracing is off, so mark before. 0 or -errno.
 */
int trace_freeze(struct trace *t);

#endif
