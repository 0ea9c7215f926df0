/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace's sockets: the raw socket its probes leave on, each with the TTL
 * (IPv6: hop limit) of its hop, and the raw ICMP socket the answers come
 * back on, both bound to the interface, both with SO_TIMESTAMPING (the
 * NIC's stamps where it has them, hwts.h; else the kernel's).
 *
 *   tcp   a raw IPPROTO_TCP socket connected to the destination: SYNs
 *         out (tcpwire_syn), its SYN-ACKs and RSTs in (only segments
 *         from the port pass its filter, synsock_filter); each path's
 *         source port held by a bound TCP socket (synsock_hold), so this
 *         host's kernel answers a SYN-ACK with an RST
 *   udp   a raw IPPROTO_UDP socket: datagrams out (tcpwire_udp), their
 *         ports held by bound UDP sockets
 *   icmp  the ICMP socket itself sends the echo requests
 *
 * The TX stamp of each send comes off the error queue by its OPT_ID key
 * (the sends counted from 0).
 */
#ifndef RANT_HOPSOCK_H
#define RANT_HOPSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hwts.h"
#include "ts.h"

enum hopsock_proto {
	HOPSOCK_TCP,
	HOPSOCK_UDP,
	HOPSOCK_ICMP,
};

struct hopsock {
	int family;			/* AF_INET or AF_INET6 */
	enum hopsock_proto proto;
	int tx;				/* the probes' socket (icmp: == icmp) */
	int icmp;			/* the answers' */
	uint16_t port;			/* the destination's (tcp, udp) */
	struct sockaddr_storage peer, local;	/* ports 0 */
	socklen_t peer_len, local_len;
	uint8_t src[16], dst[16];	/* the addresses, network order */
	uint32_t tx_key;		/* the next send's OPT_ID key */
	bool hw;			/* the stamps are the NIC's */
	struct hwts hwts;
	char hw_note[320];		/* why not, when not */
};

/* "tcp", "udp", "icmp" into *p: 0, or -EINVAL. */
int hopsock_proto_parse(const char *name, enum hopsock_proto *p);
const char *hopsock_proto_name(enum hopsock_proto p);

/*
 * Open both sockets for probes to addr (IPv4 or IPv6; port for tcp and
 * udp) through iface; no_hw: the kernel's stamps even where the NIC has
 * its own. 0, or -errno with the line for the user in err (the socket
 * closed again).
 */
int hopsock_open(struct hopsock *h, const char *iface, const char *addr, enum hopsock_proto proto,
		 uint16_t port, bool no_hw, char *err, size_t len);
void hopsock_close(struct hopsock *h);

/* A source port held for a path (tcp, udp): 0 with the socket that holds
 * it in *fd (close it at the end) and the port in *port, or -errno. */
int hopsock_hold(const struct hopsock *h, int *fd, uint16_t *port);

/* One probe of len bytes with TTL (hop limit) ttl: 0 with its OPT_ID key
 * in *key, or -errno. */
int hopsock_send(struct hopsock *h, const void *buf, size_t len, int ttl, uint32_t *key);

/* A TX stamp off the error queue: 0, or -EAGAIN when there is none. */
int hopsock_tx(struct hopsock *h, struct ts_tx *tx);

/*
 * An answer off socket fd (h->icmp, or h->tx for tcp): its length, or
 * -errno (-EAGAIN: none waiting); its RX stamps in *rx (TS_NONE where
 * absent) and its sender in from[16] (IPv4: the first 4 bytes).
 */
int hopsock_recv(const struct hopsock *h, int fd, uint8_t *buf, size_t len, struct ts_stamps *rx,
		 uint8_t from[16]);

/* Wait up to timeout_ns for an answer or a TX stamp on either socket:
 * 0 (something may be there), or -errno. */
int hopsock_wait(const struct hopsock *h, int64_t timeout_ns);

#endif
