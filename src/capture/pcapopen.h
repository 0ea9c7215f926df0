/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A live libpcap capture on an interface, as rant's captures open it
 * (--pcap's capture.c, the probe's segments in segcap.c): nanosecond
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

struct pcapopen_params {
	const char *what;		/* the option it serves, for messages: "--pcap" */
	const char *iface;
	int snaplen;
	int buffer_bytes;
	int block_ms;			/* packets handed over at the latest after */
	bool hw;			/* ask for the NIC's stamps */
	const char *filter;
};

/*
 * 0 with the capture active in *pc and its stamps' type (PCAP_TSTAMP_*)
 * in *tstamp_type, or -errno with one line (problem and fix) in err
 * (*pc then to be closed by the caller if not NULL). Warnings (stamps
 * of another type than asked) go to stderr.
 */
int pcapopen(pcap_t **pc, int *tstamp_type, const struct pcapopen_params *p, char *err,
	     size_t len);

/* Packets the kernel has queued for pc so far (passed its filter, not
 * dropped): at the end, a reader reads until it has read as many. */
uint64_t pcapopen_queued(pcap_t *pc);

#endif
