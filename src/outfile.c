// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files written whole or not at all (see outfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <dirent.h>
#include <libgen.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

	if (asprintf(&o->tmp, "%s.rant-%ld-XXXXXX", target, (long)getpid()) < 0) {
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

int outfile_free_bytes(const struct outfile *o, uint64_t *bytes)
{
	struct statvfs sv;
	uint64_t blocks;

	if (!o->tmp || o->fd < 0)
		return -ENOTSUP;
	if (fstatvfs(o->fd, &sv))
		return -errno;
	blocks = geteuid() == 0 ? sv.f_bfree : sv.f_bavail;
	*bytes = sv.f_frsize && blocks > UINT64_MAX / sv.f_frsize ? UINT64_MAX :
		 blocks * sv.f_frsize;
	return 0;
}

long outfile_temp_pid(const char *name)
{
	const char *p = NULL, *q;
	char *end;
	long pid;

	for (q = strstr(name, ".rant-"); q; q = strstr(q + 1, ".rant-"))
		p = q;		/* the last one: a target may hold ".rant-" */
	if (!p || p == name)
		return 0;
	p += strlen(".rant-");
	if (*p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	if (*end != '-' || strlen(end + 1) != 6 || pid <= 0 || pid > INT_MAX)
		return 0;
	for (q = end + 1; *q; q++)
		if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
		      (*q >= 'A' && *q <= 'Z')))
			return 0;
	return pid;
}

/* The directory a temporary of target would be in, as an absolute path,
 * or NULL (none: "-", a device, a FIFO); malloc'ed. */
static char *temp_dir(const char *target)
{
	struct stat st;
	char *copy, *dir;

	if (!strcmp(target, "-") || (!stat(target, &st) && !S_ISREG(st.st_mode)))
		return NULL;
	copy = realpath(target, NULL);	/* a symlink's temporary is beside its file */
	if (!copy)
		copy = strdup(target);
	if (!copy)
		return NULL;
	dir = realpath(dirname(copy), NULL);
	free(copy);
	return dir;
}

/* path in single quotes for a shell ('\'' for a quote inside). */
static void shell_quote(FILE *f, const char *path)
{
	fputc('\'', f);
	for (; *path; path++) {
		if (*path == '\'')
			fputs("'\\''", f);
		else
			fputc(*path, f);
	}
	fputc('\'', f);
}

/* No process has this pid (EPERM: one runs, another user's). */
static bool pid_gone(long pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Report the stale temporaries in dir; how many. */
static unsigned int report_dir(const char *dir, FILE *f)
{
	unsigned int n = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		long pid = outfile_temp_pid(d->d_name);
		char *path;
		struct stat st;

		if (!pid || !pid_gone(pid))
			continue;	/* not one, or its writer still runs */
		if (asprintf(&path, "%s/%s", dir, d->d_name) < 0)
			break;
		if (!lstat(path, &st) && S_ISREG(st.st_mode)) {
			fprintf(f, "rant: warning: %s: a temporary output of rant pid %ld, which is gone (killed while writing?): remove it with rm -- ",
				path, pid);
			shell_quote(f, path);
			fputc('\n', f);
			n++;
		}
		free(path);
	}
	closedir(dp);
	return n;
}

unsigned int outfile_report_stale(const char *const *targets, size_t n, FILE *f)
{
	char *dirs[8] = { NULL };
	unsigned int found = 0;
	size_t nd = 0;

	for (size_t i = 0; i < n && nd < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *d = targets[i] ? temp_dir(targets[i]) : NULL;
		bool seen = false;

		for (size_t j = 0; d && j < nd; j++)
			seen |= !strcmp(dirs[j], d);
		if (!d || seen) {
			free(d);
			continue;
		}
		found += report_dir(d, f);
		dirs[nd++] = d;
	}
	for (size_t j = 0; j < nd; j++)
		free(dirs[j]);
	return found;
}
