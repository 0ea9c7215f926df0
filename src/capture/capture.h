/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --pcap FILE: rant captures its own test traffic with libpcap on the
 * measuring interface, on a thread of its own off the measuring CPU, and
 * writes it as a nanosecond pcap (tcpdump -r, Wireshark). At the end it
 * cross-checks the wire stamps of every measured transaction against the
 * capture's stamps of the same packets (capmatch.h).
 *
 * The hot path only hands each measured transaction's stamps to the
 * capture thread through a single-producer single-consumer ring (a copy
 * and one release store: no lock, no system call); when the ring is full
 * the transaction is counted unchecked, never waited for.
 *
 * Life: capture_start() before the first packet (file created, capture
 * active, thread running); capture_stop() after the last (every packet
 * the kernel queued read, the check settled, the file committed);
 * capture_destroy() frees it (and removes the file if it was not
 * committed).
 */
#ifndef RANT_CAPTURE_H
#define RANT_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "capmatch.h"
#include "msgfmt.h"
#include "out.h"
#include "record.h"
#include "transport.h"

struct capture_params {
	const char *iface;
	const char *path;		/* --pcap as given; "-" = stdout */
	bool follow_links;		/* --follow-links (outfile.h) */
	uint16_t port;			/* the reflector's */
	const struct transport *tp;	/* its name filters; a stream is not checked */
	const struct msgfmt_ctx *fmt;	/* the run's format: the check parses with it */
	bool emit;			/* emitter (pings are this side's TX) */
	uint32_t session;		/* emitter: its own; packets of others are not checked */
	const struct sockaddr_storage *peer;	/* emitter: the reflector; else NULL */
	bool hw;			/* rant's wire stamps are the NIC's */
	uint64_t rate;			/* transactions/s at most: sizes the buffer */
	int verbose;
};

/* What the capture saw and how the check came out (after capture_stop). */
struct capture_result {
	const char *file;
	const char *tstamp_type;	/* pcap's name: "host", "adapter", ... */
	const char *filter;
	bool checked;			/* the stamps were checked (not over TCP) */
	uint64_t packets;		/* written to the file */
	uint64_t dropped;		/* by the kernel: the capture buffer was full */
	uint64_t unchecked;		/* transactions not checked: the hand-over ring was full */
	struct capmatch_stats st;
};

struct capture;

/*
 * Create the file, open and activate the capture, start the thread; 0
 * once it captures, or -errno with one line (problem and fix) in err.
 * Warnings (stamps of another kind than asked) are printed to stderr.
 */
int capture_start(struct capture **cp, const struct capture_params *p,
		  char *err, size_t len);

/* Hot path: a measured transaction's wire stamps, for the check. */
void capture_expect(struct capture *c, uint32_t session, const struct txrec *rec);
/* Hot path: a transaction measured on the wire that rant left out. */
void capture_skip(struct capture *c, uint32_t session, uint64_t seq);

/* Start-up lines: file, stamps, filter (and with -v the thread's CPUs). */
void capture_describe(const struct capture *c, FILE *f);

/* Read what is queued, stop the thread, settle the check, commit the
 * file. 0, or -errno when writing the file failed (message printed). */
int capture_stop(struct capture *c);
const struct capture_result *capture_result(const struct capture *c);

/* The summary's "capture:" lines and "capture" object (emit: the
 * emitter's, whose tx stamps are T1 and rx T4). */
void capture_print(struct out *o, const struct capture_result *cr, bool emit);

void capture_destroy(struct capture *c);

#endif
