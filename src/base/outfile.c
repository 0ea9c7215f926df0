// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files written whole or not at all (see outfile.h).
 */
#include <errno.h>
#include <stdbool.h>
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
static int open_direct(struct outfile *o, const char *path, bool via_link, char *msg,
		       size_t len)
{
	struct stat st;
	int flags;

	/* Not through a link that appeared since the check (check_links). */
	o->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
		     (via_link ? 0 : O_NOFOLLOW));
	if (o->fd < 0) {
		int err = -errno;

		snprintf(msg, len, "cannot write %s: %s%s", path, strerror(-err),
			 err == -ENXIO ? " (a FIFO with no reader: start the reader first)" : "");
		return err;
	}
	if (fstat(o->fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		/* It was swapped for a file since it was looked at. */
		close(o->fd);
		o->fd = -1;
		snprintf(msg, len, "cannot write %s: it changed while rant opened it (a device or FIFO became a file): try again",
			 path);
		return -EAGAIN;
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

/*
 * May this process follow the link at path, whose directory is dir? The
 * kernel's protected_symlinks rule (fs.protected_symlinks=1), applied
 * whatever the sysctl says: a link in a sticky directory that others may
 * write (/tmp, /var/tmp) is followed only when its owner is this user or
 * the directory's owner. rant resolves links itself, so the kernel's own
 * check never sees them.
 */
static bool link_trusted(const struct stat *link, const char *path, char *why, size_t len)
{
	char *copy = strdup(path), *dir;
	struct stat dst;
	bool ok = true;

	if (!copy)
		return false;
	dir = dirname(copy);	/* once: dirname() may cut copy in place */
	if (!stat(dir, &dst) && (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH) &&
	    link->st_uid != geteuid() && link->st_uid != dst.st_uid) {
		snprintf(why, len, "%s is a symbolic link owned by uid %u in the sticky, world-writable directory %s, which another user may have planted: rant never follows such a link (the kernel's protected_symlinks rule); remove it or write elsewhere",
			 path, (unsigned int)link->st_uid, dir);
		ok = false;
	}
	free(copy);
	return ok;
}

/* The directories named on the way to path ("/tmp/a" of "/tmp/a/x.log"):
 * every one that is a link must be trusted too. 0 or -EPERM with msg. */
static int check_dir_links(const char *path, char *msg, size_t len)
{
	char pre[PATH_MAX];
	struct stat st;

	for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(pre, sizeof(pre), "%.*s", (int)(p - path), path);
		if (!lstat(pre, &st) && S_ISLNK(st.st_mode) && !link_trusted(&st, pre, msg, len))
			return -EPERM;
	}
	return 0;
}

/*
 * Walk the chain of links from path (at most 40, as the kernel), each one
 * checked by link_trusted(), and the links among the directories path
 * names. 0 with *is_link (path is a link at all), or -EPERM (an untrusted
 * link, msg says which) or -ELOOP.
 */
static int check_links(const char *path, bool *is_link, char *msg, size_t len)
{
	char cur[PATH_MAX], next[PATH_MAX], tgt[PATH_MAX];
	struct stat st;
	int err = check_dir_links(path, msg, len);

	*is_link = false;
	if (err)
		return err;
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		const char *slash;
		ssize_t n;

		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return 0;
		*is_link = true;
		if (!link_trusted(&st, cur, msg, len))
			return -EPERM;
		n = readlink(cur, tgt, sizeof(tgt) - 1);
		if (n < 0)
			return 0;
		tgt[n] = 0;
		slash = tgt[0] == '/' ? NULL : strrchr(cur, '/');
		if ((size_t)snprintf(next, sizeof(next), "%.*s%s", slash ? (int)(slash - cur + 1) : 0,
				     cur, tgt) >= sizeof(next))
			return 0;	/* too long to follow: open() will say */
		err = check_dir_links(next, msg, len);
		if (err)
			return err;
		memcpy(cur, next, sizeof(cur));
	}
	snprintf(msg, len, "%s: too many levels of symbolic links", path);
	return -ELOOP;
}

int outfile_open(struct outfile *o, const char *path, unsigned int flags, char *msg,
		 size_t len)
{
	struct stat st;
	char *real = NULL;
	bool is_link;
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
	err = check_links(path, &is_link, msg, len);
	if (err)
		return err;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "cannot write %s: it is a directory: name a file", path);
		return -EISDIR;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->path = strdup(path);
		if (!o->path)
			return -ENOMEM;
		err = open_direct(o, path, is_link, msg, len);
		goto done;
	}
	if (is_link) {
		/* A file is replaced whole: through a link, the file it names. */
		real = realpath(path, NULL);
		if (!(flags & OUTFILE_FOLLOW)) {
			snprintf(msg, len, "%s is a symbolic link to %s: rant replaces an output file whole, so it would replace that file: name it instead, or give --follow-links to write through the link",
				 path, real ? real : "a file that does not exist");
			free(real);
			return -ELOOP;
		}
		if (!real) {
			err = -errno;
			snprintf(msg, len, "cannot follow %s: %s", path, strerror(-err));
			return err;
		}
	}
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
		errno = 0;	/* an earlier write's failure left no errno of its own */
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
	if (o->tmp) {
		if (o->fd >= 0 && close(o->fd) && !err)
			err = -errno;
		o->fd = -1;
		if (!err && rename(o->tmp, o->path))
			err = -errno;
		if (err)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->path);	/* done with: a writer that commits every interval frees it */
	o->path = NULL;
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

int outfile_publish(struct outfile *o, char *msg, size_t len)
{
	int err;

	if (!o->tmp)
		return 0;	/* stdout, a device, a FIFO: already in place */
	/* written at its end from now on: a rotator's copytruncate leaves no
	 * hole of NUL bytes where the rows were */
	if (fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) | O_APPEND)) {
		err = -errno;
		snprintf(msg, len, "cannot append to %s: fcntl: %s", o->tmp, strerror(-err));
		return err;
	}
	if (rename(o->tmp, o->path)) {
		err = -errno;
		snprintf(msg, len, "cannot create %s: %s", o->path, strerror(-err));
		return err;
	}
	free(o->tmp);
	o->tmp = NULL;
	o->direct = true;	/* commit closes it, abort leaves it */
	o->in_place = true;
	return 0;
}

int outfile_reopen(struct outfile *o, bool *had_data, char *msg, size_t len)
{
	struct stat st;
	bool is_link;
	int fd, err;

	*had_data = true;	/* not published: the same stream goes on */
	if (!o->in_place || o->fp)
		return 0;
	err = check_links(o->path, &is_link, msg, len);
	if (err)
		return err;
	fd = open(o->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
		  0666);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, len, "cannot open %s again: %s", o->path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(msg, len, "cannot open %s again: it is no longer a regular file", o->path);
		return -EINVAL;
	}
	close(o->fd);
	o->fd = fd;
	*had_data = st.st_size > 0;
	return 0;
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
