/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant trace: the loop. TTL by TTL from 1, each path's probes (-c of
 * them, one flow identity a path: hopmatch.h) paced at --rate, then the
 * hop's answers awaited (HOPS_WAIT_NS after its last probe at most) before
 * the next TTL, so a router sees one hop's probes at a time. A probe's
 * time is its kernel (or NIC) TX stamp, an answer's its RX stamp; user
 * space only paces and waits.
 *
 * A path ends at the destination's answer, at a router's Destination
 * Unreachable, after HOPS_SILENT_STOP hops in a row with no answer, or at
 * --max-hops; the trace when every path has ended, or at SIGINT or
 * SIGTERM, with what it has. Memory is allocated in hops_create(); the
 * loop allocates nothing.
 */
#ifndef RANT_HOPS_H
#define RANT_HOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "hopmatch.h"
#include "hopsock.h"

#define HOPS_MAX_PATHS 64
#define HOPS_MAX_TTL 64
#define HOPS_MAX_COUNT 100
#define HOPS_MAX_PROBES 65534		/* udp: the checksum numbers them */
#define HOPS_SILENT_STOP 4
#define HOPS_WAIT_NS (1000 * NS_PER_MS)

struct hops_cfg {
	const char *iface, *addr;
	enum hopsock_proto proto;
	uint16_t port;			/* tcp, udp */
	unsigned int paths, count, max_hops;
	int64_t interval_ns;		/* between two probes (1 s / --rate) */
	int64_t wait_ns;		/* a hop's answers awaited */
	bool no_hw;
};

/* One probe sent. */
struct hop_probe {
	uint8_t path, ttl;
	uint16_t round;
	uint32_t key;			/* its TX stamp's OPT_ID */
	int64_t tx_ns, rx_ns;		/* wire stamps, TS_NONE: none */
	enum hop_answer answer;
	uint8_t code;			/* an unreachable's */
	uint8_t from[16];		/* the responder */
	uint16_t dups;			/* answers after the first */
};

/* How a path (or the trace) ended. */
enum hops_end {
	HOPS_RUNNING,
	HOPS_REACHED,			/* the destination answered */
	HOPS_UNREACHABLE,		/* a router's Destination Unreachable */
	HOPS_SILENT,			/* HOPS_SILENT_STOP hops without an answer */
	HOPS_MAX_HOPS,			/* --max-hops without the destination */
	HOPS_STOPPED,			/* SIGINT, SIGTERM */
	HOPS_FAILED,			/* a send failed: error says why */
};

struct hops_path {
	uint16_t sport;			/* tcp, udp; icmp: the echo identifier */
	int hold;			/* the socket that holds the port */
	enum hops_end end;
	unsigned int end_ttl;		/* the last TTL probed */
	uint8_t code;			/* HOPS_UNREACHABLE's ICMP code */
	uint8_t by[16];			/* ... and who said it */
	unsigned int silent;		/* hops in a row without an answer */
};

struct hops {
	struct hops_cfg cfg;
	struct hopsock sk;
	struct hopmatch m;
	struct hops_path path[HOPS_MAX_PATHS];
	uint16_t sport[HOPS_MAX_PATHS];
	struct hop_probe *probe;	/* [cap], the first sent of them */
	uint32_t cap, sent;
	uint32_t *by_key;		/* [cap]: a TX stamp's probe */
	unsigned int last_ttl;		/* the highest TTL probed */
	uint64_t unmatched;		/* answers to no probe of ours */
	char error[256];
	uint8_t buf[2048];
};

/* "destination reached", ...: the JSON's end.reason. */
const char *hops_end_name(enum hops_end e);

/* Open the sockets and hold the paths' ports: 0, or -errno with the line
 * for the user in err. */
int hops_create(struct hops **hp, const struct hops_cfg *c, char *err, size_t len);

/* The trace: 0, or -errno (a send failed: h->error says why). */
int hops_run(struct hops *h);

void hops_destroy(struct hops *h);

#endif
