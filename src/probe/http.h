/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --http and --request: requests over kept-alive connections (see
 * probe.h): the loop, as probe_setup(), probe_run() and probe_teardown()
 * call it.
 */
#ifndef RANT_HTTP_H
#define RANT_HTTP_H

#include "run.h"

int http_setup(struct run *r);
int http_run(struct run *r);
void http_teardown(void);

#endif
