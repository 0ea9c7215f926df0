/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output files written whole or not at all: created as a temporary file
 * beside the target when the run starts (so an unwritable path is an error
 * before any packet), renamed over the target on commit, removed on abort.
 * "-" stands for stdout and is written directly, and so is a target that
 * is not a regular file (a character device such as /dev/null, a FIFO):
 * renaming over it would replace it.
 *
 * Links: a root run must never replace a file through a link another user
 * planted. A link in a sticky, world-writable directory (/tmp) that is
 * owned by neither this user nor the directory's owner is never followed
 * (the kernel's protected_symlinks rule, applied whatever the sysctl says,
 * to every link of the chain). A link to a device or FIFO that passes is
 * written as a stream (/dev/stdout). A link to a regular file is refused
 * with a line naming the file it would replace, unless OUTFILE_FOLLOW
 * (--follow-links): then the file it names is replaced and the link stays.
 *
 * A temporary is named TARGET.rant-PID-XXXXXX, PID the writer's, so one
 * left behind by a writer that is gone (SIGKILL, a crash, a power cut)
 * can be told from one being written now.
 *
 * A file streamed during a run (the log) is published instead: its
 * temporary is renamed over the target once the run is set up, and
 * written in place (O_APPEND) from then on, so that the target exists
 * while it grows and a log rotator can move or truncate it; such a file is not whole or
 * nothing (a run killed leaves the rows written so far), and
 * outfile_reopen() opens the target again by its name.
 */
#ifndef RANT_OUTFILE_H
#define RANT_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct outfile {
	char *path;		/* target */
	char *tmp;		/* temporary beside it; NULL when written directly */
	bool direct;		/* a device or FIFO, written as a stream */
	bool in_place;		/* published: a regular file written where it is */
	int fd;
	FILE *fp;		/* stdio stream on fd, opened on demand */
};

#define OUTFILE_FOLLOW 0x1	/* write through a trusted link to a file */

/* Create the temporary file; -errno on failure, with msg set for the user. */
int outfile_open(struct outfile *o, const char *path, unsigned int flags, char *msg,
		 size_t len);
/* A stdio stream for the file (for text and JSON writers). */
FILE *outfile_stream(struct outfile *o);
/* Flush, check for errors, rename over the target, free what open took.
 * 0 or -errno. */
int outfile_commit(struct outfile *o);
/* Remove the temporary file; safe to call on a committed or closed one. */
void outfile_abort(struct outfile *o);
/*
 * Rename the temporary over the target now and go on writing it in
 * place (the same descriptor): commit then only closes it, abort leaves
 * it. A stream target is left as it is. 0 or -errno, msg set.
 */
int outfile_publish(struct outfile *o, char *msg, size_t len);
/*
 * A published file: open the target by its name again (created when it
 * was moved away, appended to when it is still there, its links checked
 * as at open) and close the descriptor written so far. 0 (o->fd the new
 * one; *had_data when it already holds bytes), or -errno with msg set
 * and o->fd unchanged. Anything else (a stream, a file not published):
 * 0 and *had_data, nothing done.
 */
int outfile_reopen(struct outfile *o, bool *had_data, char *msg, size_t len);

/*
 * Free bytes on the file system o is written to (its temporary's), as
 * this user may use them (root: the reserved blocks too): 0 with *bytes,
 * -ENOTSUP for stdout, a device or a FIFO (a stream, no file to fill),
 * or -errno.
 */
int outfile_free_bytes(const struct outfile *o, uint64_t *bytes);

/*
 * The pid of the writer of a temporary named name (NAME.rant-PID-XXXXXX,
 * a file name without directory), or 0 when name is not one.
 */
long outfile_temp_pid(const char *name);

/*
 * Temporaries of writers that are gone beside each of the n targets
 * (each directory looked at once; "-", devices and FIFOs have none):
 * one line each on f, naming the file, its writer's pid and the command
 * that removes it. Nothing is removed: the user decides. Returns how
 * many were reported.
 */
unsigned int outfile_report_stale(const char *const *targets, size_t n, FILE *f);

#endif
