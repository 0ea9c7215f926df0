/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server's send calls (write, writev, sendto, sendmsg, sendfile) and
 * the receive calls between them (read, readv, recvfrom, recvmsg: where
 * a request was read, so the writes that follow are its response's), as
 * strace -f -e write,writev,sendto,sendmsg,sendfile,read,recvfrom would
 * show them, but
 * timed by the kernel: the syscall tracepoints of an ftrace instance of
 * rant's own, filtered to the server's threads, read from its
 * trace_pipe by a thread beside the run. The instance is removed by
 * syswrite_destroy(). Times are the trace's (CLOCK_MONOTONIC, microsecond
 * text) moved onto CLOCK_REALTIME, the clock of the packets' kernel
 * stamps, by the offset of the two read at the start.
 */
#ifndef RANT_SYSWRITE_H
#define RANT_SYSWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum syswrite_kind {
	SYSW_WRITE, SYSW_WRITEV, SYSW_SENDTO, SYSW_SENDMSG, SYSW_SENDFILE,
	SYSW_READ, SYSW_READV, SYSW_RECVFROM, SYSW_RECVMSG,	/* a request read */
	SYSW_KINDS
};

#define SYSW_FIRST_READ SYSW_READ	/* kinds from here on receive */

/* "write", "writev", ... as strace names them. */
const char *syswrite_kind_name(enum syswrite_kind k);

/* One completed call. */
struct syswrite_call {
	int pid, tid;
	int fd;
	enum syswrite_kind kind;
	int64_t t_ns;			/* its entry, CLOCK_REALTIME */
	int64_t dur_ns;			/* entry to exit */
	int64_t ret;			/* bytes sent, or -errno */
};

struct syswrite;

#define SYSWRITE_MAX_TASKS 256		/* threads traced at most */
/* The sample: tracing ends after this many events (about 5,000 calls)
 * or this long, whichever comes first (see syswrite.c's sampler). */
#define SYSWRITE_SAMPLE_EVENTS 20000
#define SYSWRITE_SAMPLE_NS (2 * 1000000000LL)

/*
 * Trace the send calls of every thread of pids[0..n) from now on. 0, or
 * -errno with one line (the problem and the fix) in err.
 */
int syswrite_start(struct syswrite **w, const int *pids, size_t n, char *err, size_t len);

/* Stop tracing and read what the buffer holds. The calls, in the order of time,
 * stay readable until syswrite_destroy(). */
void syswrite_stop(struct syswrite *w);
size_t syswrite_calls(const struct syswrite *w, const struct syswrite_call **calls);
/* Calls the trace lost (its buffer overran), and threads left out. */
uint64_t syswrite_lost(const struct syswrite *w);

void syswrite_destroy(struct syswrite *w);

/*
 * One line of the trace's text into *call: 1 a whole call (an exit
 * that closed an entry of the same thread), 0 an entry kept or a line
 * of no interest, for the parser's unit test. pend: per-thread entries
 * waiting for their exits (at most SYSWRITE_MAX_TASKS).
 */
struct syswrite_pend {
	int tid;
	int fd;
	enum syswrite_kind kind;
	int64_t t_ns;
};
int syswrite_parse(const char *line, struct syswrite_pend *pend, size_t *npend,
		   struct syswrite_call *call);

#endif
