/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where tracefs is: its mount point, found in /proc/mounts or at the
 * usual places, or mounted at TRACEFS_DIR where it is not mounted at all
 * (ip netns exec gives a command a fresh /sys without it). Both ftrace's
 * markers (run/trace.c) and a server's syscall events (server/syswrite.c)
 * start here.
 */
#ifndef RANT_TRACEFS_H
#define RANT_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

#define TRACEFS_DIR "/sys/kernel/tracing"

/*
 * The top of tracefs into path. *mounted: rant mounted it here. 0, or
 * -errno with one line (problem and the command that fixes it) in err.
 */
int tracefs_root(char *path, size_t len, bool *mounted, char *err, size_t errlen);

#endif
