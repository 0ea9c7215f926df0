// SPDX-License-Identifier: GPL-2.0-or-later
/* SIGINT and SIGTERM for the loops that are not the run's (stopsig.h). */
#include <string.h>

#include "stopsig.h"

volatile sig_atomic_t stopsig_caught;

static void on_signal(int sig)
{
	stopsig_caught = sig;
}

void stopsig_arm(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll returns EINTR */
	sigemptyset(&sa.sa_mask);
	stopsig_caught = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
