/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measuring socket, whatever the transport (transport.h) carries on
 * it: bound to the interface, with SO_TIMESTAMPING (hardware where the
 * NIC has it, else kernel software) and the busy-poll options; on the
 * emitter, the reflector's address after checking that the route to it
 * leaves through that interface. Receiving with RX stamps, TX stamps
 * from the error queue, waiting in poll().
 */
#ifndef RANT_SOCK_H
#define RANT_SOCK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hwts.h"
#include "cfg.h"
#include "skpeer.h"
#include "ts.h"

/* Control data of one received message or error-queue report, bytes. */
#define SK_CMSG_BUF 256

/* TX stamps read off the error queue while waiting, for sk_tx_stamp(). */
#define SK_STASH 8
struct sk_stash {
	uint32_t key;
	uint32_t type;			/* SCM_TSTAMP_SND, _SCHED or _ACK */
	bool used;
	struct ts_stamps ts;
};

struct sk {
	int fd;
	int family;
	unsigned int ifindex;
	bool hw;			/* wire stamps are the NIC's */
	char hw_note[320];		/* why not, when hw is false */
	struct hwts hwts;		/* the interface's timestamping (hwts.h) */
	struct sockaddr_storage peer;	/* emitter: the reflector */
	socklen_t peer_len;
	uint32_t tx_key;		/* OPT_ID of the next send */
	uint64_t drops;			/* datagrams the receive queue dropped */
	uint32_t drops_raw;		/* the kernel's u32 count, as last seen */
	bool want_ttl;			/* sk_recv() reads each datagram's TTL (a
					 * STAMP reflector's) ... */
	bool want_tos;			/* ... its TOS (the UDP reflector's, from
					 * set-up: the DSCP that arrived, a STAMP
					 * Class of Service TLV's) ... */
	bool want_dst;			/* ... the address it was sent to (the UDP
					 * reflector's on an interface of several
					 * addresses: its reply leaves from it) */
	bool dst_watched;		/* ... or not yet: the kernel may be asked
					 * for it later (addrwatch.h); the first
					 * datagram that brings it sets want_dst */
	struct sk_stash stash[SK_STASH];
	void *priv;			/* the transport's own state (tcp.c), or NULL */
};

void sk_close(struct sk *s);

/* One received datagram with its stamps. */
struct sk_msg {
	ssize_t len;
	int64_t sw_ns;			/* CLOCK_REALTIME right after recvmsg(), if asked */
	struct ts_stamps rx;		/* TS_NONE where absent */
	struct sockaddr_storage src;	/* the sender; not read (src_len 0) on
					 * a connected socket: the emitter's */
	socklen_t src_len;
	/* The socket it came on, where its reply goes and that reply's TX
	 * stamps are read: a TCP reflector's connection; NULL: the one
	 * received on. */
	struct sk *via;
	uint8_t ttl;			/* IPv4 TTL or IPv6 Hop Limit as received
					 * (sk_recv_ttl() asked for it), 0: unknown */
	int16_t tos;			/* IPv4 TOS or IPv6 Traffic Class (DSCP and
					 * ECN) as received, -1: unknown */
	int16_t tos_out;		/* the reply's, which the reflector sets
					 * before its send (UDP): -1 the socket's */
	bool dst_known;			/* dst holds the address it was sent to */
	uint8_t dst[16];		/* IPv6, or IPv4 mapped (s->want_dst) */
	bool unstamped;			/* the reply asks for no TX stamp (a
					 * refusal: none would be read), so
					 * it takes no OPT_ID key (UDP); set
					 * by the reflector before its send */
};

/*
 * Look up the interface and, on the emitter, the reflector's address and
 * the route to it; sets family (the reflector: dual-stack IPv6). Opens
 * nothing. 0, or -errno with one line (problem and fix) in err.
 */
int sk_init(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len);

/*
 * The SO_TIMESTAMPING flags the run asks for on its sockets (ts.h's
 * ts_flags(), with the ACK stamp on a TCP emitter's connection): the
 * stamp layers its start-up line and JSON name. Known once s->hw is.
 */
unsigned int sk_ts_flags(const struct sk *s, const struct rant_cfg *cfg);

/*
 * On the transport's open socket s->fd: bind it to the interface, set
 * the busy-poll options, turn on timestamping (deciding s->hw) and the
 * receive timeout. 0, or -errno with one line in err.
 */
int sk_configure(struct sk *s, const struct rant_cfg *cfg, char *err,
		 size_t len);

/*
 * sk_configure()'s checks (interface, busy poll, timestamping: deciding
 * s->hw) made at start-up on a throwaway UDP socket, for a transport whose
 * own sockets come later (a TCP connection: OPT_ID cannot be set before
 * it is made), so that a problem is said before anything connects. 0, or
 * -errno with one line in err; s->fd is closed again.
 */
int sk_configure_check(struct sk *s, const struct rant_cfg *cfg, char *err, size_t len);

/*
 * s->fd = a new socket of type (SOCK_DGRAM, SOCK_STREAM) in s->family; a
 * reflector falls back to IPv4 where IPv6 is disabled. 0, or -errno with
 * the message in err.
 */
int sk_socket(struct sk *s, const struct rant_cfg *cfg, int type, char *err,
	      size_t len);

/* The reflector's address: any address of family, port; on IPv6 the
 * socket fd is made dual-stack (IPv4 too). Returns the address length. */
socklen_t sk_any_addr(int fd, int family, uint16_t port, struct sockaddr_storage *ss);

/*
 * The TOS octet of s's sends (--dscp: DSCP << 2; 0: as the kernel sends),
 * IPV6_TCLASS and IP_TOS (an IPv6 socket's IPv4-mapped sends). 0, or
 * -errno with one line in err. sk_configure() sets the emitter's.
 */
int sk_set_tos(struct sk *s, int tos, char *err, size_t len);

/* Addresses of iface: IPv4, and IPv6 other than link-local. 0 or -errno. */
int sk_iface_addrs(const char *iface, unsigned int *v4, unsigned int *v6);

/* Whether iface has more than one address of a family (sk_iface_addrs):
 * a reflector's replies must then each leave from its ping's. */
bool sk_iface_several(const char *iface);

/*
 * Ask the kernel for each datagram's destination on the socket fd of
 * family (IPV6_RECVPKTINFO, which covers a dual-stack socket's IPv4
 * senders, or IP_PKTINFO). 0 or -errno. Any thread may: the receive
 * finds it in the control data (sk_rx_cmsg, with s->dst_watched).
 */
int sk_ask_dst(int fd, int family);

/* setsockopt of an int; 0 or -errno. */
int sk_sockopt_int(int fd, int level, int name, int v);

/* How long a blocking receive on the reflector waits before it checks -d. */
#define SK_REFLECT_WAKE_NS (100 * 1000 * 1000)

/*
 * Receive one datagram: without block, -EAGAIN when nothing is queued;
 * with block, wait up to SO_RCVTIMEO (the emitter's --timeout, the
 * reflector's SK_REFLECT_WAKE_NS), -EAGAIN after it, -EINTR on a signal.
 * A queued TX stamp does not end the wait (it does end poll()'s). With
 * sw, the SW stamp is taken as soon as recvmsg() returns, before parsing.
 * The socket itself is blocking; sends use MSG_DONTWAIT. m->len is the
 * datagram's length, or -1 when it was longer than len (truncated).
 */
int sk_recv(struct sk *s, void *buf, size_t len, struct sk_msg *m, bool sw,
	    bool block);

/*
 * A received datagram's control data into m (its stamps, its TTL and TOS
 * when s->want_ttl; tos_out -1) and s (the receive queue's drop count), in one walk:
 * what sk_recv() does after recvmsg(), for a caller that received
 * otherwise (a batch).
 */
void sk_rx_cmsg(struct sk *s, const struct msghdr *msg, struct sk_msg *m);

/* The same, the common datagram (stamps alone: ts_parse_rx_only; with
 * the TTL a STAMP reflector asks for: ts_parse_rx_ttl) read without the
 * walk: a receive's fast path (sk_recv, skbatch). */
static inline void sk_rx_msg(struct sk *s, const struct msghdr *msg, struct sk_msg *m)
{
	m->tos_out = -1;
	m->unstamped = false;
	m->dst_known = false;
	m->ttl = 0;	/* none came */
	m->tos = -1;
	if (ts_parse_rx_only(msg, &m->rx))
		return;
	if (s->want_tos ? ts_parse_rx_dst(msg, &m->rx, s->want_dst ? m->dst : NULL,
					  s->want_ttl ? &m->ttl : NULL, &m->tos) :
	    s->want_ttl && ts_parse_rx_ttl(msg, &m->rx, &m->ttl, &m->tos))
		m->dst_known = s->want_dst;
	else
		sk_rx_cmsg(s, msg, m);
}

/*
 * The control data that sends a reply with the TOS (IPv4) or Traffic
 * Class (IPv6) reply->tos_out, into buf (SK_TOS_CMSG_LEN bytes): its
 * length, 0 when tos_out is -1 (the socket's own). An IPv4-mapped
 * destination of the dual-stack socket takes IPv4's IP_TOS.
 */
#define SK_TOS_CMSG_LEN CMSG_SPACE(sizeof(int))
size_t sk_tos_cmsg(const struct sk_msg *reply, void *buf);

/*
 * The control data that sends a reply from the address its datagram was
 * sent to (IPV6_PKTINFO, or IP_PKTINFO on an IPv4 socket), so that one
 * reflector on a host of many addresses answers each from its own: into
 * buf (SK_REPLY_CMSG_LEN bytes), its length; 0 when the address is not
 * known (the kernel picks the source as for any send).
 */
#define SK_REPLY_CMSG_LEN CMSG_SPACE(sizeof(struct in6_pktinfo))
size_t sk_reply_cmsg(const struct sk *s, const struct sk_msg *reply, void *buf);

/* A reply's whole control data: its source (sk_reply_cmsg), its TOS
 * (sk_tos_cmsg) and, unstamped, the socket's TX stamps turned off for it
 * (ts_no_tx_cmsg) where it has them, into buf (SK_REPLY_CTL_LEN bytes,
 * aligned for a cmsghdr); its length, 0: none. */
#define SK_REPLY_CTL_LEN (SK_REPLY_CMSG_LEN + SK_TOS_CMSG_LEN + TS_NO_TX_CMSG_LEN)
static inline size_t sk_reply_ctl(const struct sk *s, const struct sk_msg *reply, void *buf)
{
	size_t n = sk_reply_cmsg(s, reply, buf);

	n += sk_tos_cmsg(reply, (char *)buf + n);
	return n + (reply->unstamped ? ts_no_tx_cmsg((char *)buf + n) : 0);
}

/*
 * The kernel's SO_RXQ_OVFL count as seen now (a u32 that wraps): adds the
 * drops since the last one seen to s->drops.
 */
void sk_drops_seen(struct sk *s, uint32_t count);

/*
 * Datagrams the socket's receive queue dropped since it was opened (its
 * queue was full, or the kernel refused them): what came with the
 * datagrams received, brought up to date from SO_MEMINFO where the kernel
 * has it (drops after the last datagram read come with no datagram).
 * Not for the hot path: one getsockopt().
 */
uint64_t sk_drops(struct sk *s);

/* The kernel's count of s's drops now (SO_MEMINFO, a u32 that wraps),
 * for a thread beside the loop: s itself is not read; 0 where the
 * kernel cannot say. */
uint64_t sk_drops_peek(const struct sk *s);

/*
 * The TX stamp of send number key, from the error queue: reads reports
 * until key's arrives or wait_ns passes (0: only what is queued now), or
 * a message is waiting to be received (a backlog: no time to wait).
 * Reports for other keys are kept in a small stash (SK_STASH, by key),
 * where a later call for them finds them. Returns 0 with *ts, or -ENOENT.
 */
int sk_tx_stamp(struct sk *s, uint32_t key, int64_t wait_ns,
		struct ts_stamps *ts);

/*
 * The same for the SCHED stamp of key (SOF_TIMESTAMPING_TX_SCHED: when
 * the packet entered the qdisc, a kernel stamp in kn_ns). It comes
 * before the SND stamp, so after sk_tx_stamp() it is in the stash.
 */
int sk_tx_sched(struct sk *s, uint32_t key, int64_t wait_ns, struct ts_stamps *ts);

/*
 * The same for the TCP ACK stamp (SOF_TIMESTAMPING_TX_ACK) of key: when
 * the peer acknowledged the byte at offset key. Software stamp (kn_ns).
 */
int sk_tx_ack(struct sk *s, uint32_t key, int64_t wait_ns, struct ts_stamps *ts);

/*
 * The next TX stamp (SCM_TSTAMP_SND) of any key, from the stash or the
 * error queue, for a caller that routes them itself (several sends in
 * flight); other reports met on the way are stashed. 0 with *key and
 * *ts, or -EAGAIN when none is queued. Never waits.
 */
int sk_tx_next(struct sk *s, uint32_t *key, struct ts_stamps *ts);

/*
 * The next TX stamp report of any key and type (SND, SCHED, ACK), from
 * the stash or the error queue, for a caller that matches them to its
 * sends itself (txpend.h). 0 with *tx, -EAGAIN when none is queued.
 * Never waits.
 */
int sk_tx_read(struct sk *s, struct ts_tx *tx);

/*
 * One poll() until a datagram, a TX stamp or an error is queued, or
 * deadline (CLOCK_MONOTONIC ns): >0 ready, 0 timeout, -errno. Unlike
 * sk_wait() it reads nothing: the caller drains the error queue
 * (sk_tx_next) and the receive queue (which clears a pending ICMP error).
 */
int sk_poll(struct sk *s, int64_t deadline_ns);

/*
 * Wait until fd is readable or deadline (CLOCK_MONOTONIC ns) passes:
 * 1 readable, 0 timeout, -EINTR on a signal. A queued TX stamp makes
 * poll() report POLLERR at once, so the error queue is drained into the
 * stash (and a pending ICMP error cleared) before sleeping again.
 */
int sk_wait(struct sk *s, int64_t deadline_ns);

#endif
