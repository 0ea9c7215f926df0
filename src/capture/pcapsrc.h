/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where --read and --watch get their packets: libpcap reading a file
 * (pcap or pcapng, microsecond or nanosecond stamps: libpcap gives them
 * all in nanoseconds; "-" is standard input) or capturing live on an
 * interface (nanosecond host stamps, a kernel buffer of buffer_bytes,
 * the packets handed over a block at a time), with a BPF filter.
 *
 * One line (the problem and the fix) for what cannot be read: a file
 * that is not a capture, a link type pktparse.h does not read, an
 * interface that does not exist or may not be captured on, a filter
 * that does not compile.
 */
#ifndef RANT_PCAPSRC_H
#define RANT_PCAPSRC_H

#include <stddef.h>
#include <stdint.h>

struct pcapsrc_params {
	const char *path;	/* --read FILE ("-": stdin), or NULL: live */
	const char *iface;	/* live: -i */
	const char *filter;	/* --filter, or NULL */
	int snaplen;		/* live: bytes kept of each packet */
	int buffer_bytes;	/* live: the kernel's buffer */
	int block_ms;		/* live: a block handed over at the latest after */
};

/* What the source is. */
struct pcapsrc_info {
	int dlt;
	const char *link;	/* pcap's name: "EN10MB", "LINUX_SLL2", ... */
	const char *format;	/* "pcap", "pcapng", or NULL (live, a stream) */
	const char *stamps;	/* "nano", "micro", or NULL: not known */
	int snaplen;
};

struct pcapsrc;

/* 0, or -errno with one line in err. */
int pcapsrc_open(struct pcapsrc **sp, const struct pcapsrc_params *p, char *err, size_t len);
const struct pcapsrc_info *pcapsrc_info(const struct pcapsrc *s);

/* Each packet: its stamp (CLOCK_REALTIME ns), bytes, captured and wire
 * lengths. */
typedef void (*pcapsrc_fn)(void *ctx, int64_t t_ns, const uint8_t *p, uint32_t caplen,
			   uint32_t wirelen);

/*
 * Hand up to max packets to fn: a file's next ones; live, those queued,
 * after waiting up to wait_ms for some. The number handed over, 0 at the
 * file's end (live: none came), or -EIO with the reason in err (a file
 * cut short: what came before it was handed over).
 */
int pcapsrc_next(struct pcapsrc *s, pcapsrc_fn fn, void *ctx, int max, int wait_ms,
		 char *err, size_t len);
/* Packets not handed over: a stamp past what an int64_t of ns holds
 * (year 2262), as a pcapng's if_tsoffset can give. */
uint64_t pcapsrc_bad_stamps(const struct pcapsrc *s);
/* Live: packets the kernel dropped (buffer full) and the interface
 * dropped, so far. 0, or -EIO. */
int pcapsrc_drops(struct pcapsrc *s, uint64_t *dropped, uint64_t *if_dropped);
void pcapsrc_close(struct pcapsrc *s);

#endif
