/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measuring socket: UDP bound to the interface, with SO_TIMESTAMPING
 * (hardware where the NIC has it, else kernel software), the busy-poll
 * options, and on the emitter connected to the reflector after checking
 * that the route to it leaves through that interface.
 */
#ifndef RANT_SOCK_H
#define RANT_SOCK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "opts.h"
#include "ts.h"

/* TX stamps read off the error queue while waiting, for sk_tx_stamp(). */
#define SK_STASH 8
struct sk_stash {
	uint32_t key;
	bool used;
	struct ts_stamps ts;
};

struct sk {
	int fd;
	int family;
	unsigned int ifindex;
	bool hw;			/* wire stamps are the NIC's */
	char hw_note[160];		/* why not, when hw is false */
	struct sockaddr_storage peer;	/* emitter: the reflector */
	socklen_t peer_len;
	uint32_t tx_key;		/* OPT_ID of the next send */
	struct sk_stash stash[SK_STASH];
};

/* Open and configure; -errno with a one-line message (problem and fix). */
int sk_open(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len);
void sk_close(struct sk *s);

/* One received datagram with its stamps. */
struct sk_msg {
	ssize_t len;
	int64_t sw_ns;			/* CLOCK_REALTIME right after recvmsg(), if asked */
	struct ts_stamps rx;		/* TS_NONE where absent */
	struct sockaddr_storage src;
	socklen_t src_len;
};

/* How long a blocking receive on the reflector waits before it checks -d. */
#define SK_REFLECT_WAKE_NS (100 * 1000 * 1000)

/*
 * Receive one datagram: without block, -EAGAIN when nothing is queued;
 * with block, wait up to SO_RCVTIMEO (the emitter's --timeout, the
 * reflector's SK_REFLECT_WAKE_NS), -EAGAIN after it, -EINTR on a signal.
 * A queued TX stamp does not end the wait (it does end poll()'s). With
 * sw, the SW stamp is taken as soon as recvmsg() returns, before parsing.
 * The socket itself is blocking; sends use MSG_DONTWAIT.
 */
int sk_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m, bool sw,
	    bool block);

/*
 * The TX stamp of send number key, from the error queue: reads reports
 * until key's arrives or wait_ns passes (0: only what is queued now).
 * Reports for other keys are discarded. Returns 0 with *ts, or -ENOENT.
 */
int sk_tx_stamp(struct sk *s, uint32_t key, int64_t wait_ns,
		struct ts_stamps *ts);

/*
 * Wait until fd is readable or deadline (CLOCK_MONOTONIC ns) passes:
 * 1 readable, 0 timeout, -EINTR on a signal. A queued TX stamp makes
 * poll() report POLLERR at once, so the error queue is drained into the
 * stash (and a pending ICMP error cleared) before sleeping again.
 */
int sk_wait(struct sk *s, int64_t deadline_ns);

#endif
