/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP segments between this host and one server (address and port)
 * as the interface saw them: libpcap on -i (pcapopen.h), read on a
 * thread off the measuring CPU, each segment's headers (pktparse.h) handed
 * to a callback on that thread with the capture's stamp (the kernel's,
 * or the NIC's where it stamps and the run's stamps are the NIC's). Only
 * headers are captured (snaplen SEGCAP_SNAPLEN); the payload's length
 * comes from the IP header.
 *
 * The loop that probes the server is never touched: packets reach the
 * thread a block at a time from the kernel's buffer, which is sized for
 * the rate asked.
 */
#ifndef RANT_SEGCAP_H
#define RANT_SEGCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "pktparse.h"

/* IPv6 and TCP headers with options behind an Ethernet header and two
 * VLAN tags. */
#define SEGCAP_SNAPLEN 144

struct segcap_params {
	const char *iface;
	const struct sockaddr_storage *server;	/* its address and port */
	bool hw;			/* ask for the NIC's stamps */
	uint64_t rate;			/* segments a second at most: sizes the buffer */
	/* Each segment, on the capture's thread, in the order captured, its
	 * flags read (s->seg.t_ns the capture's stamp). */
	void (*seg)(void *ctx, const struct pkt_tcp *s);
	void *ctx;
};

struct segcap_stats {
	uint64_t packets;		/* handed to seg() */
	uint64_t dropped;		/* by the kernel: its buffer was full */
	uint64_t unread;		/* captured but not TCP the parser reads,
					 * or cut before its flags */
	const char *tstamp_type;	/* pcap's name: "host", "adapter", ... */
};

struct segcap;

/* Open the capture and start the thread: 0, or -errno with one line in
 * err. */
int segcap_start(struct segcap **cp, const struct segcap_params *p, char *err, size_t len);

/* Read what the kernel still holds (the last block), stop the thread;
 * no seg() call after it returns. Its stats. */
void segcap_stop(struct segcap *c, struct segcap_stats *st);

/* Given up, from the loop, without waiting: the thread closes the
 * capture itself (the kernel stops copying the interface's packets) and
 * ends, unread packets and all; segcap_stop() or segcap_destroy() joins
 * it later. One atomic store. */
void segcap_abandon(struct segcap *c);

void segcap_destroy(struct segcap *c);

#endif
