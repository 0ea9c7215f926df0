// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files written whole or not at all (see outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int outfile_open(struct outfile *o, const char *path, char *msg, size_t len)
{
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	{
		struct stat st;

		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			snprintf(msg, len, "cannot write %s: it is a directory: name a file", path);
			err = -EISDIR;
			goto failed;
		}
	}
	if (asprintf(&o->tmp, "%s.rant-XXXXXX", path) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto failed;
	}
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		err = -errno;
		free(o->tmp);
		o->tmp = NULL;
		snprintf(msg, len, "cannot create %s: %s (check that the directory exists and is writable)",
			 path, strerror(-err));
		goto failed;
	}
	/* mkstemp makes it 0600; give the file the usual umask mode. */
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(o->fd, 0666 & ~um);
	}
	return 0;
failed:
	free(o->path);
	o->path = NULL;
	return err;
}

FILE *outfile_stream(struct outfile *o)
{
	if (!o->fp && o->fd >= 0)
		o->fp = fdopen(o->tmp ? o->fd : dup(o->fd), "w");
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
		if (o->tmp)
			o->fd = -1;	/* closed with the stream */
	}
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
		if (o->tmp)
			o->fd = -1;
	}
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
