/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests that also run under the simulated PHC NIC (tests/sim): the
 * test runs its plain part, sets the SIMNIC_* variables it wants and
 * executes itself again with tests/sim/libsimnic.so preloaded; the child
 * carries on the parent's TAP numbering and ends the output.
 *
 *	int main(int argc, char **argv)
 *	{
 *		if (sim_child(argc, argv)) {
 *			run_sim();
 *			return done_testing();
 *		}
 *		plain tests...
 *		setenv("SIMNIC_IFACES", "lo", 1);
 *		sim_exec(argv);
 *		skip(1, SIM_NOT_BUILT);
 *		return done_testing();
 *	}
 */
#ifndef RANT_SIMEXEC_H
#define RANT_SIMEXEC_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define SIM_NOT_BUILT "tests/sim/libsimnic.so is not built or cannot be run (make sim)"

/* In the re-executed test ("--sim RUN FAILED"): take over the counts. */
static TAP_UNUSED bool sim_child(int argc, char **argv)
{
	if (argc != 4 || strcmp(argv[1], "--sim"))
		return false;
	tap_started = true;
	setvbuf(stdout, NULL, _IONBF, 0);
	tap_run = atoi(argv[2]);
	tap_failed = atoi(argv[3]);
	return true;
}

/* Execute this test again under the shim (../sim/libsimnic.so from the
 * test binary), with the environment as set; returns only when that
 * cannot be done. */
static TAP_UNUSED void sim_exec(char **argv)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32], run[16], failed[16];
	const char *asan = getenv("ASAN_OPTIONS");
	char asan_opts[512];
	ssize_t n;
	char *slash;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	snprintf(lib, sizeof(lib), "%.*s/../sim/libsimnic.so", (int)(slash - exe), exe);
	if (access(lib, R_OK))
		return;
	setenv("LD_PRELOAD", lib, 1);
	/* A sanitized build: the shim comes before the ASan runtime. */
	snprintf(asan_opts, sizeof(asan_opts), "%s%sverify_asan_link_order=0",
		 asan ? asan : "", asan ? ":" : "");
	setenv("ASAN_OPTIONS", asan_opts, 1);
	snprintf(run, sizeof(run), "%d", tap_run);
	snprintf(failed, sizeof(failed), "%d", tap_failed);
	execl(exe, argv[0], "--sim", run, failed, (char *)NULL);
}

#endif
