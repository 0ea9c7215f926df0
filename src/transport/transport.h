/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measuring transport, after linuxptp's transport.h: one table of
 * functions per way of carrying rant's messages (udp.c, tcp.c; others
 * plug in here, and in transport.c's selector), so the emit and reflect
 * loops never call socket(), send() or recvmsg() themselves. What the
 * bytes mean is the message format's (msgfmt.h); a transport only moves
 * them. The loops ask a transport's caps what it can do, never which
 * transport it is.
 *
 * Every transport keeps its state in struct sk (sock.h) and shares the
 * SO_TIMESTAMPING machinery there: RX stamps come with each received
 * message, TX stamps are read with sk_tx_stamp() by the key that send()
 * returns (SOF_TIMESTAMPING_OPT_ID: a datagram counter on UDP, a byte
 * offset on TCP), after the latency-critical work is done.
 */
#ifndef RANT_TRANSPORT_H
#define RANT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "sock.h"

/* What a transport can do. */
struct transport_caps {
	bool stream;		/* a byte stream over a connection (else datagrams):
				 * messages are framed, a broken connection is
				 * made again, the IP layer never fragments */
	bool ack_stamps;	/* the emitter gets ACK stamps (SOF_TIMESTAMPING_TX_ACK):
				 * emit_ack */
	uint32_t max_len;	/* the largest message it carries, bytes */
	bool batch;		/* the reflector receives and answers in batches
				 * (skbatch.h: datagrams on one socket) */
};

struct transport {
	const char *name;	/* "udp", "tcp": also the protocol's name in a
				 * capture filter */
	struct transport_caps caps;
	/*
	 * Open the socket for cfg's side (the emitter reaches the
	 * reflector, the reflector listens), with timestamping on.
	 * 0, or -errno with one line for the user (problem and fix) in err.
	 */
	int (*open)(struct sk *s, const struct rant_cfg *cfg, char *err,
		    size_t len);
	void (*close)(struct sk *s);
	/*
	 * Send one message without blocking: to the peer the socket is
	 * connected to (reply NULL), or back to the sender of reply.
	 * 0 with *key, the OPT_ID its TX stamp will carry; or -errno.
	 */
	int (*send)(struct sk *s, const void *buf, size_t len,
		    const struct sk_msg *reply, uint32_t *key);
	/* Receive one message: as sk_recv() (sock.h) says. */
	int (*recv)(struct sk *s, void *buf, size_t len, struct sk_msg *m,
		    bool sw, bool block);
};

extern const struct transport transport_udp;
extern const struct transport transport_tcp;
extern const struct transport transport_icmp;	/* --icmp: icmpsock.h */
extern const struct transport transport_syn;	/* --syn: synsock.h */
extern const struct transport transport_conn;	/* --http, --request: conn.h */

/* What happened to the connections of a --tcp run. */
struct tcp_stats {
	uint64_t accepted;		/* reflector: connections served */
	uint64_t closed;		/* connections the peer closed or broke */
	uint64_t garbage;		/* connections dropped: not rant's framing */
	uint64_t reconnects;		/* emitter: connections made again */
	uint64_t connect_failures;	/* emitter: reconnects that failed */
	uint64_t closed_before_pong;	/* emitter: of closed, those closed (or reset)
					 * before any message came on them: a
					 * reflector turning the connection away */
	/* reflector (tcpserve.c says why each is so) */
	uint64_t max_open;		/* most connections open at once */
	uint64_t refused;		/* closed at accept: its address's share open */
	uint64_t evicted;		/* closed for a newcomer: the least used */
	uint64_t idle_timeouts;		/* closed: no message in --tcp-idle-timeout */
	uint64_t partial_timeouts;	/* ... with one begun, unfinished */
	uint64_t pongs_dropped;		/* the previous pong still unsent */
};
/* The stats of s's TCP transport (all 0 for another transport). */
const struct tcp_stats *tcp_stats(const struct sk *s);

/* The transport cfg asks for (transport.c). */
const struct transport *transport_for(const struct rant_cfg *cfg);

#endif
