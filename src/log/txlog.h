/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transaction log (-l). Two kinds:
 *
 * Streamed (the default): the packet loop copies each record into a
 * bounded ring in memory (spsc.h: no lock, no system call), and a writer
 * thread, on the CPUs the loop does not use where there are any, formats
 * the records and writes them to the file during the run. Memory stays
 * the same for a run of any length. When the writer falls behind and the
 * ring is full, the record is dropped from the log (counted by
 * txlog_dropped()), never waited for. A write error (disk full) ends the
 * writing: txlog_failed() turns true, and the loop stops the run.
 *
 * Last (-S): a ring of the last cap records in memory, written when the
 * run ends.
 *
 * Both keep the newest records in a hold-back window (holdback.h) when
 * given one, so the emitter can patch a record's T3 (learnt from the next
 * pong) by its seq before the record is written, and records may come in
 * any seq order within the window; they leave it in seq order.
 *
 * The loop is the only producer: txlog_set_format, txlog_add,
 * txlog_patch_t3 and txlog_failed are called from one thread.
 *
 * File format: one header line of column names, one line of dashes, one
 * line per record; columns separated by a space, stamps as
 * seconds.nanoseconds, latencies in ns, "-" for an absent value.
 *   emitter:   SEQ [T1_SW] T1_w T4_w [T4_SW] RTT
 *              then, when the pongs carried them,
 *              T2_w [T2_SW T3_SW] T3_w RESPONSE
 *              then, over TCP, T_ACK_KN EMIT_ACK
 *              then T1_SCHED (the ping entered the qdisc)
 *              then LOST: "LOST" for a ping without a pong in time
 *              (its row has the stamps it got, "-" for the rest), else "-"
 *              then, a fleet's (--targets, --paths), TARGET (ADDR:PORT)
 *              and with --paths PATH (its source port, or flow label)
 *   reflector: SEQ T2_w [T2_SW T3_SW] T3_w RESPONSE T3_SCHED
 * where _w is _HW or _KN by the timestamp source of that side (with
 * --stamp, the reflector's _PEER_HW, _PEER_SW or _PEER, T2's and T3's
 * each as its Timestamp Information said: stamppeer.h) and the
 * bracketed SW columns appear with -s.
 */
#ifndef RANT_TXLOG_H
#define RANT_TXLOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "txfmt.h"

struct txlog;

/*
 * Streamed log's ring, records: 2^19 (32 MiB), 2.6 s of RANT_MAX_RATE
 * transactions a second, for the writer to catch up after a stall.
 */
#define TXLOG_RING_DEFAULT (1u << 19)

struct txlog_opts {
	size_t cap;		/* streamed: records the ring holds (rounded up to
				 * a power of two); last: records kept */
	size_t window;		/* hold-back window, records; 0: none (records
				 * go on as they come) */
	bool last;		/* -S: keep the last cap, written at the end */
	bool hugepages;		/* -G: ring and window in hugepages */
};

/* Allocated and touched; NULL with errno set. */
struct txlog *txlog_create(const struct txlog_opts *o);
/* Stops a writer still running (without draining it) and frees. */
void txlog_destroy(struct txlog *l);

/*
 * The file is fd. Streamed: start the writer thread (before the first
 * packet). Returns 0 or -errno.
 */
/*
 * SIGHUP (logrotate's convention): between two writes, the streamed
 * log's writer finds *flag set, clears it and calls reopen(ctx), which
 * opens the file by its name again and returns the descriptor to write
 * to from then on (*had_data: it holds bytes already), or -errno (then
 * the log fails as on a full disk). A file without bytes starts with the
 * header; no record is lost or written twice. Set before txlog_start();
 * -S's log ignores it.
 */
void txlog_set_reopen(struct txlog *l, atomic_int *flag,
		      int (*reopen)(void *ctx, bool *had_data), void *ctx);
int txlog_start(struct txlog *l, int fd);

/* The columns of the header, once the run knows them (the peer's stamps):
 * before the first txlog_add(). */
void txlog_set_format(struct txlog *l, const struct txlog_fmt *f);

/* Hot path: a copy of r goes to the log. */
void txlog_add(struct txlog *l, const struct txrec *r);
/* Hot path: set the T3 wire stamp of record seq while it is in the
 * window; false when it is not (not logged, or gone already). */
bool txlog_patch_t3(struct txlog *l, uint64_t seq, int64_t t3_wire);
/* Hot path: the writer has failed (one relaxed load). */
bool txlog_failed(const struct txlog *l);

/*
 * End of the run: the window goes to the log (waiting for room rather
 * than dropping), the writer writes everything queued and stops (last:
 * the records are written now); f gives the header where none was set.
 * Returns 0 or the first write error, -errno.
 */
int txlog_finish(struct txlog *l, const struct txlog_fmt *f);

/* Records written (streamed) or kept (last); dropped because the ring
 * was full; overwritten in a last log. */
uint64_t txlog_logged(const struct txlog *l);
uint64_t txlog_dropped(const struct txlog *l);
uint64_t txlog_overwritten(const struct txlog *l);

/* A last log's records: the slot for the next one (zeroed; NULL in a
 * streamed log), the number held, record i oldest first. */
struct txrec *txlog_next(struct txlog *l);
size_t txlog_len(const struct txlog *l);
const struct txrec *txlog_get(const struct txlog *l, size_t i);

/*
 * Bytes of the text of a log of records records in f's columns, every
 * column filled: the header, then records lines as a typical one is
 * (stamps of this century, latencies of 5 digits, the seq of the last
 * record). What set-up checks the file system's free space against.
 */
uint64_t txlog_text_bytes(uint64_t records, const struct txlog_fmt *f);

/* Write a last log whole to fd (threads off the loop's CPU, after the
 * run). Returns 0 or -errno. */
int txlog_write(const struct txlog *l, int fd, const struct txlog_fmt *f);

#endif
