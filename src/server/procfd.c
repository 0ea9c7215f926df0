// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Processes from /proc (see procfd.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfd.h"

static int is_pid(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	v = strtol(name, &end, 10);
	return *end || v <= 0 || v > INT_MAX ? 0 : (int)v;
}

/* "socket:[123]" as 123, else 0. */
static uint64_t socket_inode(const char *link)
{
	uint64_t ino = 0;

	if (sscanf(link, "socket:[%" SCNu64 "]", &ino) != 1)
		return 0;
	return ino;
}

/* Each socket descriptor of pid: fn(inode, fd, arg). */
static bool denied;	/* an fd directory refused (procfd_owners_denied) */

static void each_socket(int pid, void (*fn)(uint64_t, int, int, void *), void *arg)
{
	char dir[64], path[PATH_MAX], link[64];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d) {
		if (errno == EACCES || errno == EPERM)
			denied = true;
		return;
	}
	while ((e = readdir(d))) {
		ssize_t n;
		uint64_t ino;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0 && (errno == EACCES || errno == EPERM))
			denied = true;
		if (n <= 0)
			continue;
		link[n] = '\0';
		ino = socket_inode(link);
		if (ino)
			fn(ino, pid, atoi(e->d_name), arg);
	}
	closedir(d);
}

/* Each process: fn(pid, arg). */
static void each_pid(void (*fn)(int, void *), void *arg)
{
	struct dirent *e;
	DIR *d = opendir("/proc");
	int pid;

	while (d && (e = readdir(d)))
		if ((pid = is_pid(e->d_name)))
			fn(pid, arg);
	if (d)
		closedir(d);
}

struct owners {
	struct srv_sock *s;
	size_t n;
	int *last;		/* per socket: the last pid counted */
};

static void owner_fd(uint64_t ino, int pid, int fd, void *arg)
{
	struct owners *o = arg;

	for (size_t i = 0; i < o->n; i++) {
		struct srv_sock *s = &o->s[i];

		if (s->inode != ino)
			continue;
		if (o->last[i] != pid) {
			o->last[i] = pid;
			s->nowners++;
		}
		if (!s->pid || pid < s->pid || (pid == s->pid && fd < s->fd)) {
			s->pid = pid;
			s->fd = fd;
		}
	}
}

static void owner_pid(int pid, void *arg)
{
	each_socket(pid, owner_fd, arg);
}

void procfd_owners(struct srv_sock *s, size_t n, int pid)
{
	struct owners o = { s, n, calloc(n ? n : 1, sizeof(int)) };

	for (size_t i = 0; i < n; i++)
		s[i].pid = s[i].fd = s[i].nowners = 0;
	denied = false;
	if (!o.last)
		return;
	if (pid)
		owner_pid(pid, &o);
	else
		each_pid(owner_pid, &o);
	free(o.last);
}

struct holders {
	uint64_t inode;
	int *out;
	size_t max, n;
	int last;
};

static void holder_fd(uint64_t ino, int pid, int fd, void *arg)
{
	struct holders *h = arg;

	(void)fd;
	if (ino != h->inode || pid == h->last)
		return;
	h->last = pid;
	if (h->n < h->max)
		h->out[h->n++] = pid;
}

static void holder_pid(int pid, void *arg)
{
	each_socket(pid, holder_fd, arg);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

size_t procfd_holders(uint64_t inode, int *out, size_t max)
{
	struct holders h = { .inode = inode, .out = out, .max = max };

	each_pid(holder_pid, &h);
	qsort(out, h.n, sizeof(*out), int_cmp);
	return h.n;
}

void procfd_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

size_t procfd_tasks(int pid, int *out, size_t max)
{
	char dir[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;
	int tid;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if ((tid = is_pid(e->d_name)) && n < max)
			out[n++] = tid;
	if (d)
		closedir(d);
	qsort(out, n, sizeof(*out), int_cmp);
	return n;
}

uint64_t procfd_netns(int pid)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/ns/net");
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

static bool ns_seen(const struct procfd_ns *out, size_t n, uint64_t ino)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].inode == ino)
			return true;
	return false;
}

static size_t ns_add(struct procfd_ns *out, size_t n, size_t max, const char *path)
{
	struct stat st;

	if (n >= max || stat(path, &st) || ns_seen(out, n, (uint64_t)st.st_ino))
		return n;
	snprintf(out[n].path, sizeof(out[n].path), "%s", path);
	out[n].inode = (uint64_t)st.st_ino;
	return n + 1;
}

struct nsall {
	struct procfd_ns *out;
	size_t max, n;
};

static void ns_pid(int pid, void *arg)
{
	struct nsall *a = arg;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	a->n = ns_add(a->out, a->n, a->max, path);
}

size_t procfd_netns_all(struct procfd_ns *out, size_t max)
{
	struct nsall a = { out, max, 0 };
	char path[sizeof(out->path)];
	struct dirent *e;
	DIR *d;

	a.n = ns_add(out, 0, max, "/proc/thread-self/ns/net");
	each_pid(ns_pid, &a);
	d = opendir("/run/netns");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		a.n = ns_add(out, a.n, max, path);
	}
	if (d)
		closedir(d);
	return a.n;
}

int procfd_netns_of(int pid, struct procfd_ns *ns)
{
	struct stat st;

	snprintf(ns->path, sizeof(ns->path), "/proc/%d/ns/net", pid);
	if (stat(ns->path, &st))
		return -errno;
	ns->inode = (uint64_t)st.st_ino;
	return 0;
}

int procfd_in_netns(const struct procfd_ns *ns, int (*fn)(void *), void *arg)
{
	int self, other, ret;

	if (ns->inode == procfd_netns(0))
		return fn(arg);
	other = open(ns->path, O_RDONLY | O_CLOEXEC);
	if (other < 0)
		return -errno;
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		ret = -errno;
		close(other);
		return ret;
	}
	if (setns(other, CLONE_NEWNET)) {
		ret = -errno;
	} else {
		ret = fn(arg);
		if (setns(self, CLONE_NEWNET))
			abort();	/* in the server's namespace for good: never go on */
	}
	close(self);
	close(other);
	return ret;
}

bool procfd_owners_denied(void)
{
	return denied;
}
