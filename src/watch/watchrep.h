/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What --read and --watch measured, as data (the printing layer renders
 * it: text, JSON, Prometheus): the capture's counts, each server port's
 * and the whole capture's metrics and diagnosis, and the flows kept for
 * the report (the worst, at most --flows of them).
 *
 * While the capture is read (live), another thread may read: the counts
 * (64-bit words each written by the reading thread alone), the ports
 * (watch_report.nports, read with acquire: a port's histograms exist
 * before it is counted) and their histograms and counters. Everything
 * else (the flows kept, the diagnosis) is filled once, at the end.
 */
#ifndef RANT_WATCHREP_H
#define RANT_WATCHREP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flowstat.h"
#include "hist.h"
#include "pktparse.h"
#include "tcpana.h"

/* The percentiles every metric reports (as the rest of rant's). */
#define WATCH_NPCT 7
extern const double watch_pcts[WATCH_NPCT];

/* The metrics: each flow keeps the first four (flowstat.h); the ports and
 * the capture all five (hist.h). */
enum watch_metric {
	WM_EXCHANGE,		/* the request's first segment to the response's
				 * last: what wrk reports */
	WM_FIRST_BYTE,		/* ... to the response's first */
	WM_RTT_CLIENT,		/* the capture point to the client and back:
				 * the server's data (or tsval) acked (echoed) */
	WM_RTT_SERVER,		/* ... to the server and back */
	WM_FLOW_COUNT,
	WM_HANDSHAKE = WM_FLOW_COUNT,	/* SYN to SYN-ACK (and to the ACK), a flow */
	WM_COUNT
};

extern const char *const watch_metric_keys[WM_COUNT];
extern const char *const watch_metric_labels[WM_COUNT];

/* One end of a flow. */
struct watch_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t a[16];
	uint16_t port;
};

/* "10.0.0.1:80", "[fd00::1]:80" into buf (at least WATCH_ADDR_LEN). */
#define WATCH_ADDR_LEN 56
const char *watch_addr_str(const struct watch_addr *a, char *buf, size_t len);

/* One segment of a timeline: seq and ack relative to each side's first
 * sequence number seen. */
struct watch_seg {
	int64_t t_ns;
	uint32_t seq, ack, len, win;
	uint16_t flags;		/* TCPSEG_F_* */
	uint8_t dir;		/* enum tcpseg_dir */
};

/* The segments of a flow's most held exchange, the last WATCH_TIMELINE
 * of those seen up to its end. */
#define WATCH_TIMELINE 16
struct watch_timeline {
	struct tcpana_exchange x;
	bool partial;		/* its first segments had left the ring */
	unsigned int n;
	struct watch_seg seg[WATCH_TIMELINE];
};

/* How a flow's report came about. */
enum watch_end {
	WE_FIN,			/* both FINs seen */
	WE_RST,
	WE_IDLE,		/* nothing for --flow-idle */
	WE_CAPTURE_END,		/* the file ended, or the watch */
	WE_EVICTED,		/* the table was full (--max-flows) */
	WE_REUSED,		/* a new SYN on its addresses and ports */
	WE_COUNT
};

extern const char *const watch_end_names[WE_COUNT];

/* One flow, at its end. */
struct watch_flow {
	struct watch_addr client, server;
	bool by_syn;		/* roles from the handshake, not from the ports */
	int64_t first_ns, last_ns;
	enum watch_end end;
	uint64_t packets[2], bytes[2];	/* by enum tcpseg_dir; bytes of payload */
	uint64_t retransmits, exchanges;
	int64_t handshake_ns;	/* -1: not captured */
	uint32_t unknowns;	/* TCPANA_U_* */
	uint64_t cut_segments;	/* unreadable (noflags) or TCPSEG_F_CUT */
	struct flowstat_sum m[WM_FLOW_COUNT];
	size_t ndiag;
	struct tcpana_diag diag[TCPANA_KINDS];
	int64_t held_ns;	/* the time its exchanges were held, in all */
	bool have_timeline;
	struct watch_timeline tl;
};

/* A server port (or the whole capture: watch_report.all, whose
 * diagnosis is the capture's, or the ports beyond the first
 * WATCH_PORTS: "other"). */
#define WATCH_PORTS 8
struct watch_port {
	uint16_t port;
	bool other;		/* the ports past the first WATCH_PORTS */
	uint64_t flows, exchanges, retransmits;
	uint64_t held[TCPANA_KINDS];	/* exchanges each kind held most */
	struct hist *h[WM_COUNT];
	struct tcpana_tally *tally;
	struct tcpana_path path;	/* its flows' handshakes: the path's RTT */
	/* at the end */
	uint64_t named_flows[TCPANA_KINDS];	/* flows whose diagnosis names it */
	size_t ndiag;
	struct tcpana_diag diag[TCPANA_KINDS];
};

/* The capture's counts. */
struct watch_counts {
	uint64_t packets;
	uint64_t verdict[PKT_VERDICTS];	/* pktparse's: tcp, not_ip, ... */
	uint64_t unreadable;	/* TCP, the flags cut: its flow known only */
	uint64_t cut;		/* TCP, the options cut (TCPSEG_F_CUT) */
	uint64_t backwards;	/* stamped before the packet before it (taken
				 * as that one's time) */
	uint64_t after_close;	/* of a flow already reported (its last ACK) */
	uint64_t tunneled;	/* TCP read inside a tunnel (pktparse.h) */
	uint64_t ip_len_clamped;	/* an IP length past the frame, cut to it */
	uint64_t bad_stamps;	/* a stamp no int64_t ns holds: not read */
	uint64_t flows_active, flows_active_peak;
	uint64_t ends[WE_COUNT];
	uint64_t flows_unknown[4];	/* flows with TCPANA_U_* bit i */
	uint64_t dropped, if_dropped;	/* live: pcap_stats' ps_drop, ps_ifdrop */
	uint64_t counters_peak;		/* flowstat counter arrays in use at once */
};

struct watch_report {
	/* the source */
	bool live;
	const char *path;		/* --read, or NULL */
	const char *iface;		/* --watch's -i, or NULL */
	const char *filter;
	const char *link;		/* "EN10MB", "LINUX_SLL2", ... */
	const char *format;		/* "pcap", "pcapng", or NULL (live, stdin) */
	const char *stamps;		/* "nano", "micro", or NULL: not known */
	int snaplen;
	int64_t first_ns, last_ns;	/* the first and last packet's stamps */
	int64_t wall_ns;		/* reading it took */
	struct watch_counts cnt;
	/* all flows, and each server port */
	struct watch_port all;
	_Atomic size_t nports;
	struct watch_port ports[WATCH_PORTS + 1];
	/* at the end */
	const char *stop_reason;	/* "end of file", "-d", "signal", ... */
	char error[256];		/* a read error ("truncated ..."), or "" */
	size_t nflows;			/* the flows kept, worst first */
	struct watch_flow *flows;
	uint64_t flows_max;		/* --flows */
	size_t table_bytes;		/* the flow table at its largest */
};

#endif
