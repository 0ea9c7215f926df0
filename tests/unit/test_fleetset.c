/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/run/fleetset.h's plan of a fleet's sockets: as many a source port
 * as the table's pongs a second need at FLEETSET_SOCK_RATE each (one
 * with --flow-label, 256 sockets in all at most), each buffer its share
 * of a --timeout's pongs and TX stamp reports within its bounds, or
 * --rcvbuf's; and the socket each ping leaves by.
 */
#include "fleetset.h"
#include "pathsk.h"
#include "tap.h"
#include "timeutil.h"

#define WIRE 72			/* a 72-byte ping */
#define PER_PING (WIRE + PATHSK_DGRAM_BYTES + PATHSK_STAMP_BYTES)

static struct rant_cfg cfg(int64_t timeout_ns)
{
	return (struct rant_cfg){ .interval_ns = 100 * NS_PER_MS, .timeout_ns = timeout_ns };
}

int main(void)
{
	struct rant_cfg c = cfg(NS_PER_SEC);
	struct fleetset fs = { 0 };

	plan(17);
	/* 1,000 targets (a table of 1,250) at 10/s: 12,500 pongs a second */
	fleetset_plan(&fs, &c, 1250, 1, WIRE);
	ok(fs.ngroup == 1 && fs.share == 1, "1,000 targets: one socket");
	ok(fs.rcvbuf_asked == 12500 * PER_PING,
	       "... its buffer the pongs and stamps of a 1 s --timeout (%d)", fs.rcvbuf_asked);
	/* 10,000 (12,500): 125,000 a second */
	fleetset_plan(&fs, &c, 12500, 1, WIRE);
	ok(fs.share == 5, "10,000 targets: 5 sockets on the port (%u)", fs.share);
	ok(fs.rcvbuf_asked == 25000 * PER_PING, "... each a fifth of the pongs (%d)",
	       fs.rcvbuf_asked);
	fleetset_plan(&fs, &c, 12501, 1, WIRE);
	ok(fs.share == 6, "one target more: 6 (%u)", fs.share);
	/* --paths 4: a group a path, the rate shared */
	fleetset_plan(&fs, &c, 12500, 4, WIRE);
	ok(fs.ngroup == 4 && fs.share == 5, "--paths 4: 4 ports of 5 (%u x %u)", fs.ngroup,
	       fs.share);
	fleetset_plan(&fs, &c, 1250, 4, WIRE);
	ok(fs.ngroup == 4 && fs.share == 1, "1,000 targets over 4 paths: 4 ports of 1");
	/* 64 paths: 256 sockets at most */
	fleetset_plan(&fs, &c, 12500, 64, WIRE);
	ok(fs.ngroup == 64 && fs.share == 4, "--paths 64: 4 a port, 256 in all (%u)",
	       fs.share);
	ok(fs.rcvbuf_asked == 31250 * PER_PING, "... each a quarter of its port's pongs (%d)",
	       fs.rcvbuf_asked);
	/* --flow-label: one socket, whatever the rate */
	c.flow_label = true;
	fleetset_plan(&fs, &c, 12500, 4, WIRE);
	ok(fs.ngroup == 1 && fs.share == 1, "--flow-label: one socket (%u x %u)", fs.ngroup,
	       fs.share);
	ok(fs.rcvbuf_asked == FLEETSET_RCVBUF_MAX, "... its buffer at most 256 MiB");
	c.flow_label = false;
	/* the default --timeout (100 ms), few targets: the floor */
	c = cfg(100 * NS_PER_MS);
	fleetset_plan(&fs, &c, 125, 1, WIRE);
	ok(fs.share == 1 && fs.rcvbuf_asked == FLEETSET_RCVBUF_MIN, "100 targets: 8 MiB (%d)",
	       fs.rcvbuf_asked);
	/* --rcvbuf as given, even below the floor */
	c.rcvbuf = 4096;
	fleetset_plan(&fs, &c, 12500, 1, WIRE);
	ok(fs.rcvbuf_asked == 4096 && fs.share == 5, "--rcvbuf 4096: as given, 5 sockets");
	/* a ping's socket: its path's group, its slot's member */
	fs = (struct fleetset){ .ngroup = 4, .share = 5 };
	ok(fleetset_sock(&fs, 0, 0) == 0, "path 0, slot 0: the run's own socket");
	ok(fleetset_sock(&fs, 0, 7) == 2, "path 0, slot 7: its group's third");
	ok(fleetset_sock(&fs, 3, 9) == 19, "path 3, slot 9: the last group's last");
	ok(fleetset_sock(&fs, 5, 1) == 6, "path 5 of 4 groups (--flow-label's one): group 1");
	return done_testing();
}
