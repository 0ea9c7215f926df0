// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files written whole or not at all (see outfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/*
 * A target that is not a regular file (a character device such as
 * /dev/null, a FIFO, a socket) is written directly, as a stream: renaming
 * a file over it would replace the device. A FIFO without a reader is an
 * error now rather than a hang at the end of the run.
 */
static int open_direct(struct outfile *o, const char *path, char *msg, size_t len)
{
	int flags;

	o->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (o->fd < 0) {
		int err = -errno;

		snprintf(msg, len, "cannot write %s: %s%s", path, strerror(-err),
			 err == -ENXIO ? " (a FIFO with no reader: start the reader first)" : "");
		return err;
	}
	flags = fcntl(o->fd, F_GETFL);
	if (flags >= 0)
		fcntl(o->fd, F_SETFL, flags & ~O_NONBLOCK);
	o->direct = true;
	return 0;
}

/* The temporary file beside target (the real path, not a symlink to it). */
static int open_temp(struct outfile *o, const char *target, char *msg, size_t len)
{
	int err;

	if (asprintf(&o->tmp, "%s.rant-XXXXXX", target) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		err = -errno;
		free(o->tmp);
		o->tmp = NULL;
		snprintf(msg, len, "cannot create %s: %s (check that the directory exists and is writable)",
			 target, strerror(-err));
		return err;
	}
	/* mkstemp makes it 0600; give the file the usual umask mode. */
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(o->fd, 0666 & ~um);
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, char *msg, size_t len)
{
	struct stat st;
	char *real = NULL;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->path = strdup(path);
		if (!o->path)
			return -ENOMEM;
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "cannot write %s: it is a directory: name a file", path);
		return -EISDIR;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->path = strdup(path);
		if (!o->path)
			return -ENOMEM;
		err = open_direct(o, path, msg, len);
		goto done;
	}
	/* A symlink to a file: write the file it names, keep the link. */
	real = realpath(path, NULL);
	o->path = real ? real : strdup(path);
	if (!o->path)
		return -ENOMEM;
	err = open_temp(o, o->path, msg, len);
done:
	if (err) {
		free(o->path);
		o->path = NULL;
	}
	return err;
}

FILE *outfile_stream(struct outfile *o)
{
	if (!o->fp && o->fd >= 0)
		o->fp = fdopen(o->tmp || o->direct ? o->fd : dup(o->fd), "w");
	return o->fp;
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (o->fp) {
		if (fflush(o->fp) || ferror(o->fp))
			err = -(errno ? errno : EIO);
		if (fclose(o->fp) && !err)
			err = -(errno ? errno : EIO);
		o->fp = NULL;
		if (o->tmp || o->direct)
			o->fd = -1;	/* closed with the stream */
	}
	if (o->direct && o->fd >= 0 && close(o->fd) && !err)
		err = -errno;
	if (o->direct)
		o->fd = -1;
	if (!o->tmp)
		return err;
	if (o->fd >= 0 && close(o->fd) && !err)
		err = -errno;
	o->fd = -1;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (o->fp) {
		fclose(o->fp);
		o->fp = NULL;
		if (o->tmp || o->direct)
			o->fd = -1;
	}
	if (o->direct && o->fd >= 0)
		close(o->fd);
	if (o->tmp) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	o->fd = -1;
	free(o->path);
	o->path = NULL;
}
