/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --read FILE and -i IFACE --watch: what the wire saw of TCP traffic rant
 * did not send, flow by flow (flowtab.h), each flow's exchanges timed
 * and what held them named by the one TCP analysis (tcpana.h), summed up
 * by server port and for the whole capture (watchagg.h) into a report
 * (watchrep.h) that the printing layer renders.
 *
 *	watch_create()	the source opened (one line and exit 1 when it
 *			cannot be: before any packet is read)
 *	watch_run()	every packet of the file, or live until -d or
 *			SIGINT/SIGTERM; then every open flow reported
 *	watch_report()	the numbers (live-readable parts: watchrep.h)
 *	watch_destroy()
 */
#ifndef RANT_WATCH_H
#define RANT_WATCH_H

#include <stddef.h>

#include "cfg.h"
#include "watchrep.h"

#define WATCH_LINGER_NS (2 * 1000000000LL)	/* a closed flow's last ACK */
#define WATCH_COUNTERS_MAX 4096			/* flowstat counter arrays at once */
#define WATCH_SNAPLEN 256			/* live: every header, no payload */
#define WATCH_BUFFER_BYTES (32 << 20)		/* live: the kernel's buffer */

struct watch;

/* 0 with *wp set, or -errno with one line (the problem, the fix) in err. */
int watch_create(struct watch **wp, const struct rant_cfg *c, char *err, size_t len);
/* Read until the end (see above). 0, or -EIO after a read error (the
 * report has it, and what came before it). */
int watch_run(struct watch *w);
struct watch_report *watch_report(struct watch *w);
void watch_destroy(struct watch *w);

#endif
