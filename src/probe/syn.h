/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --syn: handshakes timed from the stamps of the SYN and the SYN-ACK (see
 * probe.h): the loop, as probe_setup(), probe_run() and probe_teardown()
 * call it.
 */
#ifndef RANT_SYN_H
#define RANT_SYN_H

#include "run.h"

int syn_setup(struct run *r);
int syn_run(struct run *r);
void syn_teardown(void);

#endif
