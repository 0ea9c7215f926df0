/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sockopt: an LD_PRELOAD library that records what a program asks of
 * SO_TIMESTAMPING, so the bench can give the floor exactly rant's flags
 * (bench/run.sh, rant_flags). Every setsockopt(SOL_SOCKET,
 * SO_TIMESTAMPING) the program makes appends one line to the file named
 * by $BENCH_SOCKOPT_LOG once the call returned:
 *
 *   fd=N so_timestamping=0xFLAGS rc=0
 *
 * (rc=-1 when the kernel refused it). The call is passed on unchanged.
 * The bench preloads it only in its short probe runs (rant_flags), never
 * in a measured one.
 *
 *   cc -O2 -shared -fPIC -o libsockopt.so bench/sockopt.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/net_tstamp.h>

#ifndef SO_TIMESTAMPING
#define SO_TIMESTAMPING 37
#endif

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);

static void note(int fd, const void *val, socklen_t len, int rc)
{
	const char *path = getenv("BENCH_SOCKOPT_LOG");
	unsigned int flags;
	char line[80];
	int out, n;

	if (!path || !val || len < sizeof(flags))
		return;
	memcpy(&flags, val, sizeof(flags));
	n = snprintf(line, sizeof(line), "fd=%d so_timestamping=0x%x rc=%d\n", fd,
		     flags, rc);
	out = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (out < 0)
		return;
	if (write(out, line, (size_t)n) < 0)
		perror("sockopt: write $BENCH_SOCKOPT_LOG");
	close(out);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static setsockopt_fn next;
	int rc, saved;

	if (!next)
		next = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	rc = next(fd, level, name, val, len);
	if (level == SOL_SOCKET && name == SO_TIMESTAMPING) {
		saved = errno;
		note(fd, val, len, rc);
		errno = saved;
	}
	return rc;
}
