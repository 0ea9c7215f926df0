/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's configuration: what the command line asked for (opts.h fills
 * it and checks it; every module reads it), and the limits it is held
 * to.
 */
#ifndef RANT_CFG_H
#define RANT_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "allow.h"

enum rant_mode {
	MODE_REFLECT,		/* no -a: server */
	MODE_EMIT,		/* -a ADDR or --targets FILE: client */
	MODE_WATCH,		/* --read FILE, or -i IFACE --watch: traffic
				 * rant did not send, from a capture */
	MODE_TRACE,		/* rant trace: the hops to an address, src/trace/ */
	MODE_SOCKETS,		/* rant sockets: a server's side, read */
};

/* The subcommand (src/cfg/subcmd.c holds their table; rant.c dispatches
 * on it). A new one goes before SUB_N. */
enum rant_sub {
	SUB_EMIT,		/* rant emit */
	SUB_REFLECT,		/* rant reflect */
	SUB_PROBE,		/* rant probe syn|http|request */
	SUB_READ,		/* rant read FILE */
	SUB_WATCH,		/* rant watch -i IFACE */
	SUB_TRACE,		/* rant trace -i IFACE ADDR */
	SUB_SOCKETS,		/* rant sockets PID|[ADDR]:PORT */
	SUB_N
};

/* --xdp (struct rant_cfg.xdp) */
enum { XDP_OFF, XDP_ON, XDP_REQUIRED };

#define RANT_DEFAULT_PORT 12345
#define RANT_RING_RECORDS 500000	/* -S: the log keeps the last N */
#define RANT_MAX_RATE 200000		/* transactions/s at most: sizing from -d */
#define RANT_MAX_SIZES 32		/* -m: sizes in one sweep */
#define RANT_TCP_MAX_LEN (1024 * 1024)	/* -m over --tcp: one message */
#define PROBE_DEFAULT_PORT 80		/* --syn, --http without --port */
#define PROBE_MAX_THREADS 64		/* --threads: the range parsed */
#define PROBE_MAX_CONNECTIONS 1000000	/* --connections: the range parsed (the
					 * open-file limit is checked at start) */
#define PROBE_MAX_REQUEST (64 * 1024)	/* --request FILE: bytes */
#define PROBE_MAX_RESPONSE (1u << 30)	/* --response-bytes */
#define PROBE_SOLO_REQUESTS 100		/* --http, --request: the server alone, */
#define PROBE_SOLO_NS (300 * 1000000LL)	/* ... one at a time, before the load, */
#define PROBE_SOLO_MORE_NS (1000 * 1000000LL)	/* ... longer for the first few */
#define RANT_WATCH_FLOWS 1000		/* --flows: the worst flows reported */
#define RANT_WATCH_MAX_FLOWS 65536	/* --max-flows: tracked at once */
#define RANT_WATCH_IDLE_NS (60 * 1000000000LL)	/* --flow-idle */
#define RANT_MAX_PATHS 64		/* --paths: flows per target */
#define RANT_FLEET_INTERVAL_NS (100 * 1000000LL)	/* --interval with --targets */
#define RANT_FLEET_WARMUP 2		/* -w with --targets: per target */

/* --diagnosis: a --tcp pair's capture of its own packets. */
enum {
	DIAGNOSIS_AUTO,		/* kept while the round trips are slow enough
				 * to hold a stall worth naming */
	DIAGNOSIS_ON,		/* the whole run */
	DIAGNOSIS_OFF,		/* none */
};

struct rant_cfg {
	enum rant_sub sub;
	enum rant_mode mode;		/* emit and probe: MODE_EMIT; read and
					 * watch: MODE_WATCH */
	const char *iface;		/* -i */
	const char *addr;		/* -a, or the address word */
	char word_buf[1024];		/* the address and the path of a probe's
					 * word (ADDR:PORT/PATH), split */
	uint16_t port;			/* --port */
	int64_t duration_ns;		/* -d; 0 = no limit */
	uint64_t count;			/* -c; 0 = no limit */
	uint32_t warmup;		/* -w: emitter, unmeasured pings; reflector
					 * (--session-warmup), measured pings left
					 * out per session */
	uint32_t size;			/* -m, message bytes (the first of a sweep) */
	uint32_t sizes[RANT_MAX_SIZES];	/* -m LIST or RANGE: each in turn */
	unsigned int nsizes;		/* 1 without a sweep */
	const char *size_arg;		/* -m as given: parsed once --tcp is known */
	int64_t timeout_ns;		/* --timeout */
	int64_t warmup_timeout_ns;	/* --warmup-timeout */
	int64_t interval_ns;		/* --interval; 0 = back to back */
	bool block;			/* --block */
	bool open_loop;			/* --open-loop: pings on schedule, several in flight */
	bool sw;			/* -s */
	bool no_hw_ts;			/* -R */
	bool no_queue_stamps;		/* --no-queue-stamps: no SCHED stamp */
	bool ptp_mode;			/* --ptp-mode: PTPv2 event messages, port 319 */
	bool stamp;			/* --stamp: STAMP test packets, port 862 */
	const char *stamp_ts;		/* --stamp-ts: "ntp" or "ptp" */
	bool stamp_stateful;		/* --stamp-stateful: reflector's own seqs */
	uint32_t ssid;			/* --ssid; 0: random */
	bool histogram;			/* -H */
	const char *log_path;		/* -l */
	const char *json_path;		/* -j; "-" = stdout */
	const char *pcap_path;		/* --pcap; "-" = stdout */
	const char *metrics_path;	/* --metrics: Prometheus text, node_exporter */
	const char *metrics_listen;	/* --metrics-listen [ADDR]:PORT */
	const char *metrics_buckets;	/* --metrics-buckets; NULL: the default */
	bool follow_links;		/* --follow-links: write outputs through a
					 * trusted symlink to a file (outfile.h) */
	int64_t report_interval_ns;	/* -I: a line per interval; 0 = off */
	int64_t bucket_ns;		/* -b */
	int64_t overflow_ns;		/* -o */
	bool hugepages;			/* -G */
	int busy_poll_us;		/* -p; 0 = off */
	int budget;			/* -B; 0 = kernel default */
	bool prefer_busypoll;		/* -P */
	int verbose;			/* -v, repeatable */
	uint32_t max_sessions;		/* --max-sessions: reflector's table */
	uint32_t max_per_address;	/* --max-sessions-per-address */
	int xdp;			/* --xdp: XDP_OFF, XDP_ON (fall back to the
					 * socket reflector), XDP_REQUIRED */
	bool afxdp;			/* --afxdp: the program's pongs out of an
					 * AF_XDP socket, asking for their TX stamps */
	uint32_t max_rate;		/* --max-rate: pings a second one sender's
					 * session is answered at most; 0 = any */
	int64_t key_window_ns;		/* --key-window: T1_SW vs this clock */
	struct allow_list allow;	/* --allow: who may talk to the reflector */
	const char *key_path;		/* --key: HMAC key file, both sides */
	/* threshold and ftrace */
	int64_t threshold_ns;		/* -t; 0 = off */
	const char *threshold_metric;	/* --threshold-metric: the metric -t watches,
					 * NULL: the side's main one */
	int threshold_metric_id;	/* ... as enum metric_id (metric.h), with the
					 * name (opts.c) */
	bool cont;			/* -C */
	uint32_t breach_keep;		/* --breach-keep: the largest kept with -C */
	int argc;			/* the command line, for the JSON */
	char *const *argv;
	int64_t log_threshold_ns;	/* -L; 0 = log everything */
	bool trace_marker;		/* -T */
	bool snapshot;			/* -S: --log-ring, and with -T
					 * --trace-snapshot (the old spelling) */
	bool log_ring;			/* --log-ring: the log keeps the last
					 * RANT_RING_RECORDS */
	bool trace_snapshot;		/* --trace-snapshot: at a breach */
	uint32_t log_buffer;		/* --log-buffer: records between the loop
					 * and the log's writer thread */
	const char *trace_instance;	/* --trace-instance */
	/* TCP (--tcp) */
	bool tcp;			/* --tcp: messages on a TCP stream */
	uint32_t writes;		/* --writes: send calls per message */
	bool nodelay;			/* --nodelay: TCP_NODELAY */
	bool quickack;			/* --quickack: TCP_QUICKACK */
	bool cork;			/* --cork: TCP_CORK around a message's writes */
	int64_t tcp_idle_ns;		/* --tcp-idle-timeout: reflector, ns */
	const char *diagnosis;		/* --diagnosis: "auto", "on" or "off" */
	int diagnosis_mode;		/* ... as DIAGNOSIS_* */
	/* clocks (clock.h) */
	int64_t max_clock_offset_ns;	/* --max-clock-offset: PHC - system, hosts */
	int64_t phc_interval_ns;	/* --phc-interval; 0 = at start and end only */
	bool one_way;			/* --one-way: owd_fwd, owd_back */
	/* probing a TCP service (src/probe/): the emitter without a rant peer */
	bool syn;			/* --syn: handshakes, syn_rtt */
	bool icmp;			/* --icmp: echo requests on a ping socket, rtt */
	const char *http_path;		/* --http PATH: GET requests */
	const char *host;		/* --host: the Host header; NULL: -a's */
	uint32_t connections;		/* --connections: kept-alive connections */
	uint32_t threads;		/* --threads: loops the connections split over */
	const char *request_path;	/* --request FILE: the bytes of a request */
	uint32_t response_bytes;	/* --response-bytes: with --request */
	const char *server_pid;		/* --server-pid PID|auto: the server's side */
	uint32_t client_pid;		/* --client-pid: a client's side (0: none) */
	const char *sockets_target;	/* rant sockets PID|[ADDR]:PORT */
	/* captures (--read, --watch: src/watch/) */
	const char *read_path;		/* --read FILE; "-" = stdin */
	bool watch;			/* --watch: live on -i */
	const char *filter;		/* --filter: BPF */
	uint32_t flows_keep;		/* --flows: flows in the report, the worst */
	uint32_t max_flows;		/* --max-flows: tracked at once */
	int64_t flow_idle_ns;		/* --flow-idle */
	/* rant trace (src/trace/) */
	const char *trace_proto;	/* --proto tcp|udp|icmp */
	uint32_t max_hops;		/* --max-hops */
	uint32_t trace_rate;		/* --rate: probes a second */
	/* fleets (src/fleet/) */
	const char *targets_path;	/* --targets FILE: many reflectors at once */
	uint32_t paths;			/* --paths: flows per target (source ports) */
	uint8_t dscp;			/* --dscp: of the pings (IP_TOS, IPV6_TCLASS) */
	bool flow_label;		/* --flow-label: the paths are IPv6 flow
					 * labels of one source port */
	uint32_t rcvbuf;		/* --rcvbuf: each fleet socket's receive
					 * buffer, bytes (0: sized from the rate) */
};

/* Does the run probe a host (--icmp) or a TCP service (--syn, --http,
 * --request) rather than talk to a rant or STAMP reflector? */
static inline bool cfg_probe(const struct rant_cfg *c)
{
	return c->icmp || c->syn || c->http_path || c->request_path;
}

/* ... with requests over kept-alive connections (--http, --request)? */
static inline bool cfg_requests(const struct rant_cfg *c)
{
	return c->http_path || c->request_path;
}

/* Does the run measure a fleet (--targets, or -a over --paths): the
 * fleet's loop, each target and path its own? */
static inline bool cfg_fleet(const struct rant_cfg *c)
{
	return c->targets_path || c->paths > 1;
}

/* The message format (msgfmt.h) the command line asks for, by name:
 * NULL is rant's own. */
static inline const char *opts_format(const struct rant_cfg *c)
{
	return c->ptp_mode ? "ptp" : c->stamp ? "stamp" : NULL;
}

#endif
