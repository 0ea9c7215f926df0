// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding (or mounting) tracefs (see tracefs.h).
 */
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tracefs.h"

/* The tracefs mount point: /proc/mounts, then the usual places; -ENOENT. */
static int tracefs_find(char *path, size_t len)
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

/*
 * The instances are the kernel's, not the mount's: mounting tracefs in
 * ip netns exec's private /sys reaches the same ones (and the mount stays
 * private to that mount namespace).
 */
int tracefs_root(char *path, size_t len, bool *mounted, char *err, size_t errlen)
{
	*mounted = false;
	if (!tracefs_find(path, len))
		return 0;
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL)) {
		int ret = -errno;

		snprintf(err, errlen, "tracefs is not mounted and mounting it failed (%s): mount -t tracefs nodev %s",
			 strerror(-ret), TRACEFS_DIR);
		return ret;
	}
	snprintf(path, len, "%s", TRACEFS_DIR);
	*mounted = true;
	return 0;
}
