/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's table of targets (--targets, --paths): each target's
 * identity (its address, port, DSCP, session id), counts and round-trip
 * statistics, and those of each of its paths; found by the address its
 * pongs come from. The fleet's loop (src/fleet/) writes the counts and
 * statistics; the reports (snapshots, live and final) read them.
 *
 * Sizes: a target's round trips keep latstat.h's counters of
 * FLEET_TARGET_BITS (0.8%, 17 KiB), each path's of FLEET_PATH_BITS (3.1%,
 * 4.5 KiB) when there are two or more: fleettab_target_bytes() says the
 * whole per target. Every slot is allocated, touched and zeroed at
 * set-up (cap of them: the file's targets and room for those a SIGHUP
 * adds), one allocation.
 *
 * Who writes what: a FREE slot belongs to whoever fills it (set-up, the
 * reload's thread); fleettab_activate() and fleettab_retire() are the
 * loop's, as are the counts of an ACTIVE slot. A reader of a slot that
 * may change under it (the metrics' thread) brackets its reads with
 * fleettab_read_begin() and fleettab_read_end(): a slot filled again
 * meanwhile (its generation changed) is not read this time. The counts
 * follow snap.h's SNAP_LIVE rules (64-bit words, read as they are).
 */
#ifndef RANT_FLEETTAB_H
#define RANT_FLEETTAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cfg.h"
#include "icmpwire.h"
#include "latstat.h"
#include "targets.h"

#define FLEET_TARGET_BITS 8	/* a target's percentiles: 0.8% */
#define FLEET_PATH_BITS 6	/* a path's: 3.1% */

/* What became of one target's (or path's) measured pings. */
struct fleet_counts {
	uint64_t sent;			/* measured pings sent */
	uint64_t received;		/* their pongs, within --timeout */
	uint64_t lost;			/* no pong within --timeout */
	uint64_t late;			/* a pong after its ping was counted lost */
	uint64_t duplicate;		/* another copy of a pong already taken */
	uint64_t warmup;		/* unmeasured pings (-w, each target's first) */
	uint64_t missing_tx_ts;		/* measured pings without their TX stamp */
	uint64_t missing_rx_ts;		/* pongs without their RX stamp */
	uint64_t send_errors;		/* sends the kernel refused */
	uint64_t breaches;		/* round trips above -t */
	uint64_t missed_slots;		/* pings that left an --interval or more late */
	uint64_t refused;		/* pongs saying the reflector has no session for
					 * the ping (its table full: MSG_F_REFUSED) */
	uint64_t icmp_errors[ICMPWIRE_E_N];	/* icmp, syn: pings an ICMP
						 * error returned, by its kind
						 * (icmpwire.h): not lost */
};

struct fleet_path {
	struct fleet_counts cnt;
	struct latstat rtt;
};

enum fleet_state {
	FLEET_FREE,			/* never used */
	FLEET_TAKEN,			/* handed out by fleettab_take(), filled by
					 * its owner, not yet measured */
	FLEET_ACTIVE,			/* measured */
	FLEET_RETIRED,			/* removed from the file: pongs still in
					 * flight are strays; reusable after a grace */
};

#define FLEETTAB_KEY_LEN 19

struct fleet_target {
	atomic_uint gen;		/* odd while the slot is rewritten */
	enum fleet_state state;
	struct target_spec spec;	/* address, port, DSCP, line, name */
	struct sockaddr_storage to;	/* where its pings go (IPv4-mapped on an
					 * IPv6 socket) */
	socklen_t to_len;
	uint8_t key[FLEETTAB_KEY_LEN];	/* its address as found: IPv6 or
					 * IPv4-mapped, then the port, then
					 * target_proto_of(its kind) */
	uint32_t session;		/* its session id (the format's key) */
	uint8_t src[16];		/* syn: the address its SYNs leave from (4 or
					 * 16 bytes, network order; fleetset_fill) */
	int tos;			/* its pings' TOS octet (DSCP << 2) */
	int64_t added_ns;		/* CLOCK_REALTIME: measured from */
	int64_t retired_mono;		/* CLOCK_MONOTONIC: retired at */
	struct fleet_counts cnt;
	struct latstat rtt;
	struct fleet_path *path;	/* npaths of them (NULL with one path) */
};

struct fleet {
	size_t cap;			/* slots */
	size_t used;			/* slots ever filled: [0, used) */
	size_t retired;			/* of them RETIRED (the loop retires only
					 * while the reload's thread waits) */
	unsigned int npaths;
	int family;			/* the sockets': AF_INET or AF_INET6 */
	uint32_t port[RANT_MAX_PATHS];	/* each path's source port (set-up fills) */
	uint32_t label[RANT_MAX_PATHS];	/* --flow-label: each path's label */
	bool flow_label;
	struct fleet_target *t;		/* cap slots */
	char *names;			/* cap x TARGET_LABEL_LEN: slot i's name (the
					 * log's TARGET column reads it) */
	uint32_t *hash;			/* address to slot + 1 (0: empty) */
	size_t nhash;			/* a power of 2, at least 2 x cap */
	void *mem;			/* the statistics' counters */
	size_t mem_len;
	bool huge;
};

/* Bytes a target takes with npaths paths (its slot, its counters). */
size_t fleettab_target_bytes(unsigned int npaths);

/* Slots for n targets and those a reload may add: n + max(64, n / 4). */
size_t fleettab_cap(size_t n);

/*
 * The table for cap slots of npaths paths, sockets of family: 0, or
 * -ENOMEM (the memory allocated, touched and zeroed here).
 */
int fleettab_create(struct fleet **f, size_t cap, unsigned int npaths, int family, bool huge);
void fleettab_destroy(struct fleet *f);

/*
 * Fill slot i for t (counts and statistics zeroed), its session id and
 * TOS; it is TAKEN (unseen) until fleettab_activate(). Only the slot's
 * owner (set-up, the reload: fleettab_take() gave it) calls this.
 */
void fleettab_fill(struct fleet *f, size_t i, const struct target_spec *t, uint32_t session,
		   int tos);
/* The loop's: slot i measured from now (found by its address), or
 * retired (no longer found; reusable after FLEETTAB_GRACE_NS). */
void fleettab_activate(struct fleet *f, size_t i, int64_t now_real);
void fleettab_retire(struct fleet *f, size_t i, int64_t now_mono);

/* How long a retired slot waits before it is filled again: its pongs
 * and stamps still in flight, its log rows still queued. */
#define FLEETTAB_GRACE_NS (30 * 1000000000LL)

/*
 * A slot to fill for the target of kind at address a: the slot a retired target
 * of a had (a target removed and added back is not held by its grace),
 * else one FREE, else one RETIRED for FLEETTAB_GRACE_NS (the oldest);
 * cap when none. Marks it TAKEN: no later call hands it out again until
 * it is retired.
 */
size_t fleettab_take(struct fleet *f, const struct sockaddr_storage *a, int kind,
		     int64_t now_mono);

/* The ACTIVE slot whose target has address a (a pong's source; IPv4-mapped
 * or not; an echo reply's with port 0, a SYN-ACK's with its TCP source
 * port) and a kind carried as kind's is, or -1. Hot path: no
 * allocation, a probe or two. */
long fleettab_find(const struct fleet *f, const struct sockaddr_storage *a, int kind);

/* A reader's bracket around slot i's reads: begin gives the generation
 * (odd: being rewritten, do not read); end is true when it held. */
unsigned int fleettab_read_begin(const struct fleet *f, size_t i);
bool fleettab_read_end(const struct fleet *f, size_t i, unsigned int gen);

/* The label of slot i (name=, or ADDR:PORT). */
static inline const char *fleettab_name(const struct fleet *f, size_t i)
{
	return f->names + i * TARGET_LABEL_LEN;
}

#endif
