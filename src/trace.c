// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace markers and freezing (see trace.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

struct trace {
	char dir[PATH_MAX];
	int marker_fd;
	int on_fd;
	int snapshot_fd;	/* -1 without -S */
	bool frozen;
	bool mounted;		/* rant mounted tracefs itself */
};

#define TRACEFS_DIR "/sys/kernel/tracing"

/*
 * ip netns exec gives the command a mount namespace with a fresh /sys, so
 * tracefs is often not mounted where rant runs even when it is on the
 * host. The instances are the kernel's, not the mount's: mounting tracefs
 * here reaches the same ones (and stays private to that namespace).
 */
static int mount_tracefs(char *path, size_t len)
{
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL))
		return -errno;
	snprintf(path, len, "%s", TRACEFS_DIR);
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The tracefs mount point: /proc/mounts, then the usual places; -ENOENT. */
static int trace_find_tracefs(char *path, size_t len)
{
	static const char *const usual[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	struct mntent *m;
	FILE *f = setmntent("/proc/mounts", "r");
	char probe[PATH_MAX];

	while (f && (m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			snprintf(path, len, "%s", m->mnt_dir);
			endmntent(f);
			return 0;
		}
	}
	if (f)
		endmntent(f);
	for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/trace_marker", usual[i]);
		if (!access(probe, F_OK)) {
			snprintf(path, len, "%s", usual[i]);
			return 0;
		}
	}
	return -ENOENT;
}

static int open_file(struct trace *t, const char *name, int flags, char *err,
		     size_t len)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = -errno;
	if (fd == -ENOENT && !strcmp(name, "snapshot"))
		snprintf(err, len, "%s: this kernel has no ftrace snapshot (CONFIG_TRACER_SNAPSHOT is off): drop -S, the trace is still frozen by tracing_on",
			 path);
	else if (fd == -EACCES || fd == -EPERM)
		snprintf(err, len, "%s: %s: run as root", path, strerror(-fd));
	else
		snprintf(err, len, "%s: %s", path, strerror(-fd));
	return fd;
}

int trace_open(struct trace **tp, const char *instance, bool snapshot,
	       char *err, size_t len)
{
	char top[PATH_MAX / 2], state[4] = "";
	struct trace *t;
	int ret;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->marker_fd = t->on_fd = t->snapshot_fd = -1;

	if (strchr(instance, '/')) {
		snprintf(t->dir, sizeof(t->dir), "%s", instance);
	} else {
		if (trace_find_tracefs(top, sizeof(top))) {
			ret = mount_tracefs(top, sizeof(top));
			if (ret) {
				snprintf(err, len, "tracefs is not mounted and mounting it failed (%s): mount -t tracefs nodev %s",
					 strerror(-ret), TRACEFS_DIR);
				goto failed;
			}
			t->mounted = true;
		}
		snprintf(t->dir, sizeof(t->dir), "%s/instances/%s", top, instance);
	}
	if (!is_dir(t->dir)) {
		snprintf(err, len, "ftrace instance %s does not exist: create it with config.sh IFACE ... --trace, or mkdir %s",
			 t->dir, t->dir);
		ret = -ENOENT;
		goto failed;
	}
	ret = t->marker_fd = open_file(t, "trace_marker", O_WRONLY, err, len);
	if (ret < 0)
		goto failed;
	ret = t->on_fd = open_file(t, "tracing_on", O_RDWR, err, len);
	if (ret < 0)
		goto failed;
	if (snapshot) {
		ret = t->snapshot_fd = open_file(t, "snapshot", O_WRONLY, err, len);
		if (ret < 0)
			goto failed;
	}
	if (pread(t->on_fd, state, sizeof(state) - 1, 0) > 0 && state[0] == '0') {
		snprintf(err, len, "tracing is off in %s (a previous breach froze it?): save %s/trace, then echo 1 > %s/tracing_on",
			 t->dir, t->dir, t->dir);
		ret = -EBADF;
		goto failed;
	}
	*tp = t;
	return 0;
failed:
	trace_close(t);
	return ret;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->marker_fd >= 0)
		close(t->marker_fd);
	if (t->on_fd >= 0)
		close(t->on_fd);
	if (t->snapshot_fd >= 0)
		close(t->snapshot_fd);
	free(t);
}

bool trace_mounted(const struct trace *t)
{
	return t->mounted;
}

const char *trace_dir(const struct trace *t)
{
	return t->dir;
}

static int write_str(int fd, const char *s)
{
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);

	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int trace_mark(struct trace *t, const char *line)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s\n", line);
	return write_str(t->marker_fd, buf);
}

int trace_freeze(struct trace *t)
{
	int ret = 0;

	if (t->frozen)
		return 0;
	if (t->snapshot_fd >= 0)
		ret = write_str(t->snapshot_fd, "1");
	if (write_str(t->on_fd, "0") && !ret)
		ret = -errno;
	t->frozen = true;
	return ret;
}
