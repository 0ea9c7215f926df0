// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lines a run prints at start-up (startup.h).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "allow.h"
#include "capture.h"
#include "conn.h"
#include "optprobe.h"
#include "cpucheck.h"
#include "ptp.h"
#include "rtcheck.h"
#include "tcpana.h"
#include "startup.h"
#include "trace.h"

#ifndef RANT_VERSION
#define RANT_VERSION "unknown"
#endif

/* A check's message without its "warning: ". */
static const char *bare(const char *msg)
{
	return strncmp(msg, "warning: ", 9) ? msg : msg + 9;
}

/* A spinning real-time rant that the kernel will stop every second. */
static void warn_rt_throttle(FILE *f, struct run *r)
{
	struct rtcheck_src src;
	char msg[640];

	rtcheck_system(&src);
	if (rtcheck_throttle(&src, sched_getscheduler(0), !r->cfg->block, msg, sizeof(msg)) != 1)
		return;
	if (strstr(msg, "fair server"))
		warn_add(&r->warn, f, "rt_fair_server",
			 "keep other tasks off this CPU (isolcpus, cpusets) or use --block",
			 "%s", bare(msg));
	else
		warn_add(&r->warn, f, "rt_throttle",
			 "sysctl kernel.sched_rt_runtime_us=-1 for the run (config.sh's cpu_rt_throttle step), or use --block",
			 "%s", bare(msg));
}

/* A spinning rant whose CPUs another spinning rant may use too. */
static void warn_cpu_shared(FILE *f, struct run *r)
{
	cpu_set_t mine;
	char msg[512];

	if (r->cfg->block || sched_getaffinity(0, sizeof(mine), &mine))
		return;
	if (cpucheck_shared("/proc", getpid(), &mine, msg, sizeof(msg)) == 1)
		warn_add(&r->warn, f, "cpu_shared",
			 "pin each rant to a CPU of its own (taskset -c N rant ...) or use --block",
			 "%s", bare(msg));
}

/* Who may talk to the reflector (--allow), and --key. */
static void print_guard(FILE *f, const struct rant_cfg *c)
{
	char p[INET6_ADDRSTRLEN + 8];

	if (c->allow.n) {
		fprintf(f, "allow:");
		for (unsigned int i = 0; i < c->allow.n; i++) {
			allow_str(&c->allow.p[i], p, sizeof(p));
			fprintf(f, " %s", p);
		}
		fprintf(f, " (others dropped and counted)\n");
	}
	if (c->key_path)
		fprintf(f, "key: pings and pongs carry an HMAC-SHA-256 (16 bytes) with the key of %s\n",
			c->key_path);
	if (c->key_path && c->mode == MODE_REFLECT)
		fprintf(f, "key: a ping whose T1_SW is more than %.3g s from this clock, or whose seq was answered, is a replay: refused and counted\n",
			(double)c->key_window_ns / 1e9);
}

/* The interface's timestamping (-v: as ethtool -T prints it), a setting
 * found in force, and --ptp-mode. */
static void print_hwts(FILE *f, const struct run *r)
{
	const struct rant_cfg *c = r->cfg;

	if (c->verbose)
		hwts_print_caps(f, c->iface, &r->sk.hwts);
	if (r->sk.hwts.notice[0])
		fprintf(f, "hwtstamp: %s\n", r->sk.hwts.notice);
	if (c->ptp_mode)
		fprintf(f, "ptp-mode: pings travel as PTPv2 %s, pongs as %s (domain %d), from and to UDP port %u\n",
			ptp_type_name(PTP_DELAY_REQ), ptp_type_name(PTP_SYNC), PTP_RANT_DOMAIN,
			c->port);
	if (c->stamp && c->mode == MODE_EMIT)
		fprintf(f, "stamp: STAMP Session-Sender, SSID %u, %s timestamps, %s mode, UDP port %u\n",
			r->session, c->stamp_ts, c->key_path ? "authenticated" : "open", c->port);
	else if (c->stamp)
		fprintf(f, "stamp: STAMP Session-Reflector, %s, %s timestamps, %s mode, UDP port %u\n",
			c->stamp_stateful ? "stateful" : "stateless", c->stamp_ts,
			c->key_path ? "authenticated" : "open", c->port);
}

/* -m too short for the pong's body, by the format's caps (rant's own and
 * ptp's: 72 bytes, 88 with --key; STAMP's 44-byte base carries T2 and
 * T3 at any -m it accepts). */
static void print_body_note(FILE *f, const struct run *r)
{
	const struct msgfmt_caps *k = &r->fmt.f->caps;
	uint32_t need = r->fmt.mac ? k->auth_body_len : k->body_len;

	if (!k->reflector_stamps ||
	    msgfmt_has_body(&r->fmt, msgfmt_wire_len(&r->fmt, r->cfg->size)))
		return;
	if (r->fmt.mac && need > k->body_len)
		fprintf(f, "note: -m %u is below %u bytes (%u and the MAC of --key): pongs cannot carry the reflector's stamps\n",
			r->cfg->size, need, k->body_len);
	else
		fprintf(f, "note: -m %u is below %u bytes: pongs cannot carry the reflector's stamps\n",
			r->cfg->size, need);
}

/* --syn, --http, --request: what is probed, and how. */
static void print_probe(FILE *f, const struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	uint64_t before, now;
	char host[320];

	if (c->icmp) {
		fprintf(f, "rant %s probe: %s -> %s, --icmp: an echo request a transaction (%u bytes after the ICMP header) on a ping socket, %s\n",
			RANT_VERSION, c->iface, c->addr, c->size,
			"its identifier the socket's, matched by sequence");
		return;
	}
	fprintf(f, "rant %s probe: %s -> %s port %u, ", RANT_VERSION, c->iface, c->addr, c->port);
	if (c->syn) {
		fprintf(f, "--syn: a handshake a transaction (SYN out, SYN-ACK or RST back), a new source port each\n");
		return;
	}
	optprobe_host(c, host, sizeof(host));
	if (c->http_path)
		fprintf(f, "--http: GET %s (Host: %s)", c->http_path, host);
	else
		fprintf(f, "--request %s, responses of %u bytes", c->request_path, c->response_bytes);
	fprintf(f, " over %u kept-alive connection%s%s\n", c->connections,
		c->connections > 1 ? "s" : "", c->quickack ? ", TCP_QUICKACK on (--quickack)" : "");
	if (c->connections > 1)
		fprintf(f, "the server alone first: up to %d requests one at a time (%.1f s, %.1f s for the first %d), apart from the load's figures: what the load is told from a stall by\n",
			PROBE_SOLO_REQUESTS, (double)PROBE_SOLO_NS / NS_PER_SEC,
			(double)(PROBE_SOLO_NS + PROBE_SOLO_MORE_NS) / NS_PER_SEC, TCPANA_SOLO_MIN);
	conn_fd_limit_was(&before, &now);
	if (before)
		fprintf(f, "open files: limit raised from %llu to %llu for the connections\n",
			(unsigned long long)before, (unsigned long long)now);
}

/* The stamp layers asked of the kernel, and what the SCHED one gives. */
static void print_layers(FILE *f, const struct run *r)
{
	unsigned int flags = sk_ts_flags(&r->sk, r->cfg);
	const char *names[8];
	size_t n = ts_layers(flags, names, 8);

	fprintf(f, "stamp layers asked of the kernel:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s", i ? "," : "", names[i]);
	if (cfg_requests(r->cfg))
		fprintf(f, " (tx_ack: the server's ACK of each request, emit_ack)\n");
	else
		fprintf(f, "%s\n", r->cfg->no_queue_stamps ?
			" (--no-queue-stamps: no tx_sched, no emit_queue/reflect_queue)" :
			" (tx_sched: the sender's qdisc as emit_queue/reflect_queue; --no-queue-stamps drops it)");
}

/* A fleet's sockets: how many a port (the kernel spreads the pongs over
 * them), their buffers; a warning where the kernel gave less. */
static void print_fleet_socks(FILE *f, struct run *r)
{
	const struct fleetset *fs = &r->fs;

	fprintf(f, "receive: %u socket%s a source port%s, a receive buffer of %d KiB each (%s)\n",
		fs->share, fs->share == 1 ? "" : "s",
		fs->share > 1 ? " (SO_REUSEPORT: the kernel spreads the pongs by their source)" : "",
		fs->rcvbuf / 1024, r->cfg->rcvbuf ? "--rcvbuf" :
		"the pongs and TX stamps of a --timeout");
	if (fs->rcvbuf >= fs->rcvbuf_asked)
		return;
	warn_add(&r->warn, f, "fleet_rcvbuf_capped",
		 "run rant as root (SO_RCVBUFFORCE needs CAP_NET_ADMIN), or raise net.core.rmem_max",
		 "the fleet's sockets have a receive buffer of %d KiB, not the %d KiB asked: net.core.rmem_max caps it (sysctl -w net.core.rmem_max=%d); a loop held back longer than the buffer holds loses pongs (counted: socket drops)",
		 fs->rcvbuf / 1024, fs->rcvbuf_asked / 1024, fs->rcvbuf_asked);
}

/* A fleet's kinds of target: how many of each, what measures them. */
static void print_fleet_kinds(FILE *f, struct run *r)
{
	static const char *const how[TARGET_NKINDS] = {
		[TARGET_RANT] = "rant's reflectors", [TARGET_STAMP] = "STAMP reflectors",
		[TARGET_ICMP] = "ICMP echo on a ping socket", [TARGET_SYN] = "TCP handshakes",
		[TARGET_HTTP] = "HTTP/1.1 requests, a kept-alive connection each",
	};
	const struct fleetset *fs = &r->fs;
	const char *sep = "kinds:";

	for (int k = 0; k < TARGET_NKINDS; k++) {
		const char *what = how[k];

		if (!fs->nkind[k])
			continue;
		if (k == TARGET_RANT && r->cfg->stamp)
			what = how[TARGET_STAMP];
		fprintf(f, "%s %zu %s (%s)", sep, fs->nkind[k], targets_kind_name(k), what);
		sep = ",";
	}
	fprintf(f, "; each with its own schedule, counts and statistics, by its name\n");
}

/* A fleet's first lines: its targets, its paths, the memory a target takes. */
static void print_fleet(FILE *f, struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	const struct fleet *fl = r->fleet;

	fprintf(f, "rant %s emit: %s -> %zu target%s (%s), %u-byte payload\n", RANT_VERSION,
		c->iface, fl->used, fl->used == 1 ? "" : "s",
		c->targets_path ? c->targets_path : c->addr, c->size);
	fprintf(f, "fleet: %u path%s a target (%s", fl->npaths, fl->npaths == 1 ? "" : "s",
		fl->flow_label ? "flow labels" : "source ports");
	for (unsigned int p = 0; p < fl->npaths; p++)
		fprintf(f, " %u", fl->flow_label ? fl->label[p] : fl->port[p]);
	fprintf(f, "), DSCP %u, %zu bytes a target, room for %zu (SIGHUP reads %s again)\n",
		c->dscp, fleettab_target_bytes(fl->npaths), fl->cap,
		c->targets_path ? c->targets_path : "nothing: no --targets");
	print_fleet_kinds(f, r);
	print_fleet_socks(f, r);
}

void startup_print(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	FILE *f = r->text;

	if (cfg_probe(c))
		print_probe(f, r);
	else if (r->fleet)
		print_fleet(f, r);
	else if (c->mode == MODE_EMIT && c->nsizes > 1)
		fprintf(f, "rant %s emit: %s -> %s port %u, sweep of %u sizes from %u bytes, session %08x\n",
			RANT_VERSION, c->iface, c->addr, c->port, c->nsizes, c->size, r->session);
	else if (c->mode == MODE_EMIT)
		fprintf(f, "rant %s emit: %s -> %s port %u, %u-byte payload, session %08x\n",
			RANT_VERSION, c->iface, c->addr, c->port, c->size, r->session);
	else
		fprintf(f, "rant %s reflect: %s port %u\n", RANT_VERSION, c->iface, c->port);
	print_guard(f, c);
	if (c->tcp)
		fprintf(f, "tcp: %u write%s per message, Nagle %s%s%s\n", c->writes,
			c->writes > 1 ? "s" : "", c->nodelay ? "off (--nodelay)" : "on",
			c->quickack ? ", quick ACKs" : "", c->cork ? ", corked" : "");
	print_hwts(f, r);
	if (r->sk.hw)
		fprintf(f, "timestamps: hardware (NIC, PHC time): columns T*_HW\n");
	else
		fprintf(f, "timestamps: kernel software, not the NIC's (%s): columns T*_KN\n",
			r->sk.hw_note);
	print_layers(f, r);
	if (c->mode == MODE_REFLECT && r->sk.want_tos)
		fprintf(f, "replies: %s; the DSCP each ping came with kept by session\n",
			r->sk.want_dst ? "each from the address its ping came to (the interface has several)" :
			"from the interface's one address (one added later is seen: each then from the address its ping came to)");
	if (cfg_probe(c) && c->interval_ns)
		fprintf(f, "pacing: a %s every %g us in all%s\n", c->syn || c->icmp ? "probe" : "request",
			(double)c->interval_ns / NS_PER_US, (c->syn || c->icmp) && !c->open_loop ?
			", each waits for its answer (--open-loop does not)" :
			", latency counted from when each should have left");
	else if (r->fleet)
		fprintf(f, "pacing: each target on a schedule of its own, a ping every %g us from a phase of its own, open loop (up to %zu in flight a target)\n",
			(double)c->interval_ns / NS_PER_US,
			(size_t)(c->timeout_ns / c->interval_ns) + 4);
	else if (c->mode == MODE_EMIT && c->open_loop)
		fprintf(f, "pacing: open loop, a ping every %g us whether or not the pongs came back (up to %zu in flight)\n",
			(double)c->interval_ns / NS_PER_US, (size_t)(r->flight.mask + 1));
	else if (c->mode == MODE_EMIT && c->interval_ns)
		fprintf(f, "pacing: closed loop, a slot every %g us, each ping waits for its pong (--open-loop does not)\n",
			(double)c->interval_ns / NS_PER_US);
	if (c->mode == MODE_EMIT && !cfg_probe(c))
		print_body_note(f, r);
	if (r->trace && trace_mounted(r->trace))
		fprintf(f, "ftrace: tracefs was not mounted here: mounted it at /sys/kernel/tracing\n");
	if (r->trace)
		fprintf(f, "%s\n", trace_coverage(r->trace));
	if (r->trace && trace_no_snapshot(r->trace))
		warn_add(&r->warn, f, "ftrace_no_snapshot",
			 "a kernel with CONFIG_TRACER_SNAPSHOT, or -S without -T",
			 "ftrace: this kernel has no ftrace snapshot (CONFIG_TRACER_SNAPSHOT is off): -S freezes the trace by tracing_on alone (the log is still a ring)");
	if (r->capture)
		capture_describe(r->capture, f);
	warn_rt_throttle(f, r);
	warn_cpu_shared(f, r);
	if (c->verbose) {
		fprintf(f, "waiting: %s; busy poll %d us; warm-up %u; duration %.3f s; count %" PRIu64 "\n",
			c->block ? "poll()" : "spinning", c->busy_poll_us,
			c->warmup,
			(double)c->duration_ns / NS_PER_SEC, c->count);
		if (r->trace)
			fprintf(f, "ftrace: markers to %s/trace_marker%s\n", trace_dir(r->trace),
				c->trace_snapshot ? ", snapshot at a breach" : "");
	}
	fflush(f);
}
