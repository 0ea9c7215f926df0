/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGINT and SIGTERM for a loop that is not the run's (rant watch and
 * read, rant trace, rant sockets): while armed, either sets
 * stopsig_caught to its number, without SA_RESTART, so that a poll the
 * loop waits in returns EINTR at once. The handlers stay until the
 * process exits, as run.c's do: a second signal while the outputs are
 * written only sets the flag again, so that no file the user asked for
 * is cut short. The run's own loops use run.c's handler, which also
 * takes SIGHUP.
 */
#ifndef RANT_STOPSIG_H
#define RANT_STOPSIG_H

#include <signal.h>

/* The signal that asked the loop to stop, 0: none since stopsig_arm(). */
extern volatile sig_atomic_t stopsig_caught;

/* Catch SIGINT and SIGTERM from now on, stopsig_caught cleared. */
void stopsig_arm(void);

#endif
