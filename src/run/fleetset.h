/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fleet's set-up (--targets, or -a over --paths), a part of
 * run_setup(): the targets read and checked, the table made (fleettab.h)
 * with room for those a reload adds, a session id and TOS for each, and
 * the sockets opened (pathsk.h: the run's own socket the first path's,
 * so that what a run says of its socket, its stamps, holds for the
 * fleet's); what a reload (fleetreload.c) checks and fills the same way.
 *
 * The sockets: a group a path (with --flow-label, one socket that the
 * labels are leased to), each group's sockets on one source port
 * (SO_REUSEPORT), as many as its pongs a second need
 * (FLEETSET_SOCK_RATE each), so that the kernel spreads the
 * pongs of many targets over several queues; a target's pings leave by
 * one socket of its path's group (fleetset_sock), whose error queue has
 * their TX stamps. Each socket's receive buffer holds its share of the
 * pongs and TX stamp reports of a --timeout (the loop may be held back
 * that long without a pong lost), 8 MiB at least, or --rcvbuf's.
 * The fleet's loop (src/fleet/) measures them.
 *
 * Beside them, for the kinds of target that are not rant's (targets.h):
 * stamp targets' pings leave by the same UDP sockets in STAMP's format
 * (fs->stamp, set up at open whatever the file holds, so that a reload
 * may add one); icmp targets' echo requests by an unconnected ping
 * socket a family (fs->icmp: AF_INET's, AF_INET6's), opened at set-up
 * for each family the file's icmp targets have (a reload cannot add
 * another), whose error queue has their TX stamps as a fleet socket's
 * does; syn targets' SYNs by a raw TCP socket a family (fs->syn,
 * synsock.h; opened as the ping sockets are), every SYN from one source
 * port (fs->syn_port) that a TCP socket holds (so the kernel answers each
 * SYN-ACK with an RST), each SYN's sequence number its target's session
 * XOR its seq, so that the SYN-ACK's acknowledgement names both.
 */
#ifndef RANT_FLEETSET_H
#define RANT_FLEETSET_H

#include <stdio.h>

#include "auth.h"
#include "cfg.h"
#include "fleettab.h"
#include "msgfmt.h"
#include "sock.h"
#include "transport.h"

/* Pongs a second a socket of a group takes at most (the table's
 * targets and a reload's room, at --interval, over --paths). */
#define FLEETSET_SOCK_RATE 25000
#define FLEETSET_MAX_SK 256		/* UDP sockets of a fleet at most */
/* Where the TX stamp keys of a ping socket are kept (the loop's tables
 * by socket: the UDP ones', then these): family 0 AF_INET, 1 AF_INET6. */
#define FLEETSET_ICMP_SK(fam) (FLEETSET_MAX_SK + (fam))
#define FLEETSET_SYN_SK(fam) (FLEETSET_MAX_SK + 2 + (fam))	/* the raw sockets' */
#define FLEETSET_ALL_SK (FLEETSET_MAX_SK + 4)
#define FLEETSET_RCVBUF_MIN (8 * 1024 * 1024)
#define FLEETSET_RCVBUF_MAX (256 * 1024 * 1024)

/* What a fleet's set-up makes (struct run holds it). */
struct fleetset {
	struct fleet *fleet;		/* its targets, or NULL: not a fleet */
	struct sk *sk[FLEETSET_MAX_SK];	/* its sockets: sk[0] is the run's own */
	unsigned int nsk;		/* ngroup x share */
	unsigned int ngroup;		/* source ports: a path's each (one with
					 * --flow-label) */
	unsigned int share;		/* sockets a port (SO_REUSEPORT) */
	int rcvbuf_asked;		/* each socket's receive buffer: asked, */
	int rcvbuf;			/* ... and as the kernel set it (bytes) */
	const struct msgfmt_ctx *fmt;	/* the run's format: rant targets' */
	struct msgfmt_ctx stamp;	/* stamp targets' (the run's own with --stamp) */
	bool have_stamp;		/* stamp set up (fini at close) */
	struct sk *icmp[2];		/* ping sockets: AF_INET's, AF_INET6's, or NULL */
	struct sk *syn[2];		/* raw TCP sockets likewise */
	int syn_hold[2];		/* the TCP sockets holding their ports */
	uint16_t syn_port[2];		/* the SYNs' source port, a family */
	size_t nkind[TARGET_NKINDS];	/* the file's targets of each kind at start */
};

/* The format of a UDP target of kind (TARGET_RANT or TARGET_STAMP). */
static inline const struct msgfmt_ctx *fleetset_fmt(const struct fleetset *fs, int kind)
{
	return kind == TARGET_STAMP ? &fs->stamp : fs->fmt;
}

/* The raw TCP socket for an address of family, or NULL. */
static inline struct sk *fleetset_syn(const struct fleetset *fs, int family)
{
	return fs->syn[family == AF_INET6];
}

/* The ping socket for an address of family, or NULL. */
static inline struct sk *fleetset_icmp(const struct fleetset *fs, int family)
{
	return fs->icmp[family == AF_INET6];
}

/*
 * The sockets for a table of cap targets over npaths, each ping wire_len
 * bytes (fs's ngroup, share, rcvbuf_asked): how many a group (the
 * table's pongs a second at --interval, FLEETSET_SOCK_RATE each; one
 * with --flow-label), and each one's receive buffer (its share of the
 * pongs of a --timeout and their TX stamp reports, FLEETSET_RCVBUF_MIN
 * to _MAX; --rcvbuf's when given).
 */
void fleetset_plan(struct fleetset *fs, const struct rant_cfg *c, size_t cap, unsigned int npaths,
		   size_t wire_len);

/* The socket that path's pings of slot's target leave by: its group's
 * (path), one of the group's by slot. */
static inline unsigned int fleetset_sock(const struct fleetset *fs, unsigned int path,
					 size_t slot)
{
	return path % fs->ngroup * fs->share + (unsigned int)(slot % fs->share);
}

/*
 * For c's targets, with the run's format fmt (session ids) and --key's
 * auth (STAMP's HMAC; NULL: none): the table, STAMP's format, and the
 * sockets, first (its socket's r->sk, opened here). 0, or -errno
 * after a line (problem and fix) on stderr.
 */
int fleetset_open(struct fleetset *fs, const struct rant_cfg *c, const struct msgfmt_ctx *fmt,
		  const struct auth *auth, struct sk *first);
void fleetset_close(struct fleetset *fs);

/* What --targets' lines are checked against in this run (f NULL: before
 * the table, any family). */
void fleetset_ctx(const struct rant_cfg *c, const struct fleet *f, struct targets_ctx *ctx);

/* Slot i of f filled for target t (fleettab_fill) with a new session id
 * (its format's key) and its TOS. */
void fleetset_fill(const struct rant_cfg *c, const struct fleetset *fs, struct fleet *f,
		   size_t i, const struct target_spec *t);

/* Whether the fleet measures target t: 0, or -EINVAL with the problem
 * and fix in msg (an icmp or syn line of a family without its socket:
 * reloads cannot open one; an http line with --paths). */
int fleetset_check(const struct fleetset *fs, const struct rant_cfg *c,
		   const struct target_spec *t, char *msg, size_t len);

/* The TOS octet of target t's pings. */
static inline int fleetset_tos(const struct rant_cfg *c, const struct target_spec *t)
{
	return (t->dscp >= 0 ? t->dscp : c->dscp) << 2;
}

#endif
