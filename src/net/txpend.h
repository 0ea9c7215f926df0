/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TX stamps harvested, never waited for: the sends whose TX stamp
 * (SCM_TSTAMP_SND, and the SCHED stamp that comes before it) has not
 * been read yet, in send order, each with the record it completes.
 *
 * The loop reads the error queue as it comes (txpend_harvest: never
 * waits) and matches each report to its send by its OPT_ID key, however
 * late: keys grow with every send (UDP by one, TCP by the bytes sent),
 * so the table is sorted by key and a report is found by binary search.
 * txpend_retire() hands the sends on, oldest first, once stamped or
 * given up:
 *   TXPEND_STAMPED   the SND stamp came
 *   TXPEND_TIMEOUT   it did not come within the table's cap
 *   TXPEND_DROPPED   its SCHED stamp came (it entered the qdisc), its
 *                    SND stamp did not, and a later send's did: the
 *                    qdisc dropped it (a full tbf drops at enqueue, and
 *                    UDP without IP_RECVERR says nothing): it never left
 *   TXPEND_OVERFLOW  neither came within the cap, and a later send's
 *                    did: the kernel reports a queue's stamps in send
 *                    order and drops them silently when the socket's
 *                    error queue is full
 *   TXPEND_FULL      the table was full when a newer send needed room
 * (a stamp missing for good holds the sends after it until then: their
 * records wait, they are not lost). Memory: the table, allocated by
 * txpend_create(); nothing else allocates. One thread (the loop).
 */
#ifndef RANT_TXPEND_H
#define RANT_TXPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "sock.h"

enum txpend_end {
	TXPEND_STAMPED, TXPEND_TIMEOUT, TXPEND_DROPPED, TXPEND_OVERFLOW, TXPEND_FULL,
};

struct txpend_entry {
	struct txrec rec;	/* the caller's record, for the stamp to complete */
	void *owner;		/* the caller's (the reflector: the session) */
	uint64_t owner_tag;	/* the caller's check that owner is still its
				 * (the reflector: the session's ordinal) */
	int64_t sent_mono;	/* CLOCK_MONOTONIC at the send */
	int64_t t_mono;		/* the caller's (the reflector: when the ping came) */
	int64_t aux;		/* the caller's (the emitter: the pong's T4) */
	struct ts_stamps snd;	/* the SND stamp, once stamped */
	int64_t sched_kn;	/* the SCHED stamp (KN), TS_NONE until it came */
	uint32_t key;		/* OPT_ID of the send */
	uint32_t flags;		/* the caller's */
	bool stamped;		/* the SND stamp came */
};

/* Called for each SND stamp as it is matched (before retirement). */
typedef void txpend_stamp_fn(void *ctx, struct txpend_entry *e);
/* Called for each send retired; a non-zero return stops the retiring
 * (after this entry) and is returned by txpend_retire(). */
typedef int txpend_done_fn(void *ctx, struct txpend_entry *e, enum txpend_end why);

struct txpend;

/* A table of cap sends at most (rounded up to a power of two), each
 * given up cap_ns after its send. NULL with errno set. */
struct txpend *txpend_create(size_t cap, int64_t cap_ns, bool hugepages);
void txpend_destroy(struct txpend *p);

/* Room for the send of key at now (CLOCK_MONOTONIC): the entry to fill
 * (rec, owner, t_mono, flags), or NULL when the table is full (retire
 * the oldest with txpend_evict first). */
struct txpend_entry *txpend_push(struct txpend *p, uint32_t key, int64_t now);

/* The entry of key, or NULL. */
struct txpend_entry *txpend_find(struct txpend *p, uint32_t key);

/* Every report queued now, each to its send (reports of keys not in the
 * table are dropped: sends the caller did not push). stamp (may be
 * NULL) is called for each SND matched. Reports read. */
unsigned int txpend_harvest(struct txpend *p, struct sk *s, txpend_stamp_fn *stamp,
			    void *ctx);

/* Retire the oldest sends that are stamped or past the cap at now. */
int txpend_retire(struct txpend *p, int64_t now, txpend_done_fn *done, void *ctx);

/* Retire the oldest send now: stamped, or TXPEND_FULL (TXPEND_OVERFLOW
 * when a later send's stamp came). */
int txpend_evict(struct txpend *p, txpend_done_fn *done, void *ctx);

/* Retire every send (the run ends): those without their stamp as
 * TXPEND_DROPPED when they entered the qdisc (they did not leave it
 * while the run lasted), else TXPEND_OVERFLOW or TXPEND_TIMEOUT. */
int txpend_flush(struct txpend *p, txpend_done_fn *done, void *ctx);

/*
 * Sends in the table that txpend_retire() will call TXPEND_DROPPED once
 * their cap passes (entered the qdisc, their SND stamp not come, a later
 * send's come), of those whose owner_tag is tag and whose flags have
 * every bit of flags: the count now, nothing retired. A scan of the
 * table: off the per-packet path.
 */
size_t txpend_dropped_now(const struct txpend *p, uint64_t tag, uint32_t flags);

/* Sends in the table; sends in it still waiting for their SND stamp. */
size_t txpend_len(const struct txpend *p);
size_t txpend_waiting(const struct txpend *p);

/* When the oldest send is due for txpend_retire() (CLOCK_MONOTONIC:
 * its send when stamped, its give-up time when not), INT64_MAX when the
 * table is empty: a poll() deadline. */
int64_t txpend_deadline(const struct txpend *p);

#endif
