/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Datagrams in batches (a UDP reflector under load): up to
 * SKBATCH_MAX received with one recvmmsg(), each with its own RX stamp,
 * drop count and TTL as sk_recv() gives them (sock.h); the replies,
 * written in place in the same slots, sent with one sendmmsg(), each
 * with its own OPT_ID key; the TX stamp reports read off the error
 * queue up to SKBATCH_MAX a recvmmsg(). A batch of one (a lone ping,
 * its pong) goes by recvmsg() and sendto(): the same datagram with less
 * of the kernel's wrapping on the round trip's path.
 *
 * The kernel stamps each datagram on its own (its RX stamp when it
 * came, its TX stamps when it left), so batching moves no wire stamp;
 * a user-space stamp taken for a batch (m.sw_ns: when recvmmsg()
 * returned) is when each of its datagrams reached the program. A
 * blocking receive waits for the first datagram only
 * (MSG_WAITFORONE): a batch never waits to fill. The slots are one
 * allocation (mem.h: touched, hugepages with -G), each as long as the
 * largest UDP datagram. One thread.
 */
#ifndef RANT_SKBATCH_H
#define RANT_SKBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sock.h"

#define SKBATCH_MAX 32		/* datagrams a system call at most */

struct skbatch;

/* A batch of SKBATCH_MAX slots of slot_len bytes each; NULL with errno. */
struct skbatch *skbatch_create(size_t slot_len, bool hugepages);
void skbatch_destroy(struct skbatch *b);

/*
 * Receive datagrams: one when the receive before found none (the first
 * of a busy spell, answered without the kernel's look for a second;
 * without block: -EAGAIN when none is queued; with block: waiting as
 * sk_recv() waits), else up to SKBATCH_MAX of those queued, never
 * waiting (-EAGAIN when none is: skbatch_draining() says so before).
 * Returns how many (at least 1) or -errno. Slot i's bytes are
 * skbatch_buf(b, i), its datagram's length and stamps skbatch_msg(b, i).
 */
int skbatch_recv(struct sk *s, struct skbatch *b, bool sw, bool block);
/* The next skbatch_recv() drains what is queued, without waiting. */
bool skbatch_draining(const struct skbatch *b);

uint8_t *skbatch_buf(struct skbatch *b, unsigned int i);
struct sk_msg *skbatch_msg(struct skbatch *b, unsigned int i);

/* Queue slot i's buffer, len bytes, as the reply to its datagram. */
void skbatch_reply(struct skbatch *b, unsigned int i, size_t len);

/*
 * Send every reply queued (in the order queued) and empty the queue:
 * key[i] (i counting the queued replies) is the OPT_ID of reply i, or
 * SKBATCH_UNSENT when the kernel refused it. Returns how many left.
 */
#define SKBATCH_UNSENT UINT64_MAX
unsigned int skbatch_send(struct sk *s, struct skbatch *b, uint64_t key[SKBATCH_MAX]);

/*
 * Up to max TX stamp reports (SND, SCHED, ACK) of any key: those the
 * socket's stash holds first (sock.h), then the error queue's, read
 * max a recvmmsg(); foreign entries skipped. Returns how many (0: none
 * queued). Never waits.
 */
unsigned int sk_tx_read_batch(struct sk *s, struct ts_tx *tx, unsigned int max);

/* Bytes kept of what an ICMP error returned, from past its IP header: an
 * echo request's header (8), a TCP header's first 20. */
#define SK_ERR_HEAD 24

/* An ICMP error off a socket's error queue (IP_RECVERR, IPV6_RECVERR):
 * its kind and stamp, where the datagram it returned went, and that
 * datagram's first bytes past its IP header (a ping socket's: the echo
 * request's header; a raw TCP socket's: the TCP header). */
struct sk_icmp_err {
	struct ts_icmp e;
	struct sockaddr_storage to;	/* the returned datagram's destination */
	uint8_t head[SK_ERR_HEAD];
	size_t head_len;
};

/*
 * sk_tx_read_batch()'s reports, and the ICMP errors of the same reads
 * into err (max of them at most), *nerr how many: a ping socket's, whose
 * errors and TX stamps share its error queue. Each read costs the copy
 * of an entry's address and SK_ERR_HEAD bytes (a TX stamp's entry has no
 * bytes: OPT_TSONLY). Never waits.
 */
unsigned int sk_errq_read_batch(struct sk *s, struct ts_tx *tx, unsigned int max,
				struct sk_icmp_err *err, unsigned int *nerr);

#endif
