/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --icmp: echo requests timed from the kernel's (or NIC's) stamps of
 * the request and its reply (see probe.h): the loop, as probe_setup(),
 * probe_run() and probe_teardown() call it.
 */
#ifndef RANT_ICMP_H
#define RANT_ICMP_H

#include "run.h"

int icmp_setup(struct run *r);
int icmp_run(struct run *r);
void icmp_teardown(void);

#endif
