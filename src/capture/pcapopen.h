/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live libpcap capture on an interface: the one opener of src/, as
 * every capture rant makes opens it (--pcap's capture.c, the probe's
 * segments in segcap.c, --watch's packets in pcapsrc.c): nanosecond
 * stamps, the NIC's where it stamps and the run's wire stamps are the
 * NIC's (else the kernel's), a kernel buffer of a given size, packets
 * handed over a block at a time (not in immediate mode, which would
 * wake the reader inside the paths being measured), a BPF filter,
 * non-blocking.
 */
#ifndef RANT_PCAPOPEN_H
#define RANT_PCAPOPEN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The kernel buffer's bounds, whatever the rate. */
#define PCAPOPEN_BUFFER_MIN (4 << 20)
#define PCAPOPEN_BUFFER_MAX (128 << 20)

struct pcapopen_params {
	const char *what;		/* the option it serves, for messages: "--pcap" */
	const char *iface;
	int snaplen;
	int buffer_bytes;
	int block_ms;			/* packets handed over at the latest after */
	bool hw;			/* ask for the NIC's stamps */
	const char *filter;		/* BPF (pcap-filter(7)), or NULL: every packet */
	bool user_filter;		/* the filter is --filter's (its messages name it) */
};

/*
 * 0 with the capture active in *pc and its stamps' type (PCAP_TSTAMP_*)
 * in *tstamp_type, or -errno with one line (problem and fix) in err
 * (*pc then to be closed by the caller if not NULL): -ENODEV no such
 * interface, -ENETDOWN it is down, -EPERM no right to capture,
 * -EOPNOTSUPP no nanosecond stamps, -EINVAL a filter that does not
 * compile, -EIO anything else libpcap refuses. Warnings (stamps of
 * another type than asked) go to stderr.
 */
int pcapopen(pcap_t **pc, int *tstamp_type, const struct pcapopen_params *p, char *err,
	     size_t len);

/* Packets the kernel has queued for pc so far (passed its filter, not
 * dropped): at the end, a reader reads until it has read as many. */
uint64_t pcapopen_queued(pcap_t *pc);

/* filter compiled and set on pc (a live capture's or a file's); what
 * (the option it came from: "--filter") and name (the interface, the
 * file) for the message. 0, or -EINVAL with one line in err. */
int pcapopen_setfilter(pcap_t *pc, const char *filter, const char *what, const char *name,
		       char *err, size_t len);

/*
 * The filter of rant's own traffic: "udp port 12345", "tcp port 80 and
 * host 10.0.0.2" (host: NULL, or an unspecified address, leaves it out).
 */
void pcapopen_filter(char *buf, size_t len, const char *proto, uint16_t port,
		     const struct sockaddr_storage *host);

/* The kernel buffer for hold_ms of pps packets of snaplen bytes (and
 * the kernel's headers of each), within PCAPOPEN_BUFFER_MIN/MAX. */
int pcapopen_buffer_bytes(uint64_t pps, int snaplen, int hold_ms);

#endif
