/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGINT and SIGTERM for a loop that is not the run's (rant watch and
 * read, rant trace, rant sockets): while armed, either sets
 * stopsig_caught to its number, without SA_RESTART, so that a poll the
 * loop waits in returns EINTR at once; disarmed, the handlers found are
 * put back. The run's own loops use run.c's handler, which also takes
 * SIGHUP.
 */
#ifndef RANT_STOPSIG_H
#define RANT_STOPSIG_H

#include <signal.h>

struct stopsig {
	struct sigaction old_int, old_term;
};

/* The signal that asked the loop to stop, 0: none since stopsig_arm(). */
extern volatile sig_atomic_t stopsig_caught;

void stopsig_arm(struct stopsig *s);
void stopsig_disarm(const struct stopsig *s);

#endif
