/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the XDP reflector (src/reflect/bpf/xdprefl.bpf.c), its loader
 * (src/reflect/xdprefl.c) and the report (src/print/) share: the
 * counters of its per-CPU array, the keys and values of its maps, and
 * (user space only) what a run's report says of it. Plain fixed-width
 * types, so that the BPF side (which includes vmlinux.h, not the C
 * library) and user space read the same layout.
 */
#ifndef RANT_XDPMAP_H
#define RANT_XDPMAP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The counters, one slot each of the per-CPU array "counts". */
enum xdpc {
	XDPC_MEASURED,		/* measured pings answered (XDP_TX) */
	XDPC_WARMUP,		/* unmeasured pings answered: warm-up, -w's left out */
	XDPC_FETCH,		/* unmeasured pings after measuring (MSG_F_FETCH) */
	XDPC_DUPLICATE,		/* measured pings of a seq already answered */
	XDPC_PASSED,		/* to the socket reflector (XDP_PASS): see xdprefl.h */
	XDPC_NOT_ALLOWED,	/* from outside --allow, dropped */
	XDPC_LOOPED,		/* --stamp: from a reflector's port, dropped */
	XDPC_REPEATED,		/* --stamp: a session+seq answered XDP_REPEAT_MAX times */
	XDPC_RATE_LIMITED,	/* above --max-rate, dropped */
	XDPC_SESSIONS,		/* sessions started */
	XDPC_T2_NIC,		/* T2 from the driver's RX stamp (the metadata kfunc) */
	XDPC_T2_KERNEL,		/* T2 from the kernel's clock at the hook */
	XDPC_XSK,		/* --afxdp: pongs redirected to the AF_XDP socket */
	XDPC_FU_SENT,		/* --afxdp: follow-ups that carried a pong's sent stamp */
	/* counted by user space (--afxdp), not the program */
	XDPC_XSK_TX,		/* pongs sent through the socket's TX ring */
	XDPC_XSK_TX_FULL,	/* pongs the TX ring had no room for, dropped */
	XDPC_XSK_RX_DROPPED,	/* pongs redirected that the socket dropped (its RX
				 * ring full, no frame to receive into) */
	XDPC_T3_STAMPED,	/* pongs whose completion carried a transmit stamp */
	XDPC_T3_MISSING,	/* pongs whose completion carried none */
	XDPC_N
};

#define XDP_REPEAT_MAX 3	/* answers one session+seq gets at most (--stamp) */
#define XDP_PAD_MAX 256		/* --stamp: zero padding checked after the base,
				 * bytes; a longer remainder passes */
#define XDP_LEN_MAX 1472	/* the longest UDP payload answered (a 1500-byte
				 * IPv4 frame); longer passes */
#define XDP_SESSIONS_MIN 64	/* the session map's entries at least */
#define XDP_QUEUES 64		/* --afxdp: the queues whose sockets the program finds */

/* A session: the sender's address (IPv4 as ::ffff:a.b.c.d), its UDP
 * port and the ping's session id (rant) or SSID (STAMP). */
struct xdp_skey {
	__u8 addr[16];
	__u16 port;		/* network order */
	__u16 pad;
	__u32 session;
};

struct xdp_sval {
	__u64 last_seq;		/* the last measured seq, 0: none */
	__u64 fu_seq;		/* the previous pong's seq ... */
	__s64 fu_t3_ns;		/* ... and its T3 (0: none waiting) */
	__u64 pongs;		/* pongs sent (STAMP --stamp-stateful numbers them) */
	__s64 rate_tat_ns;	/* --max-rate: theoretical arrival time (session.h) */
	__u64 rep_seq;		/* the last seq seen, for the loop guard ... */
	__u32 repeats;		/* ... and how often it came again */
	__u32 left_out;		/* -w: measured pings left out so far */
};

/* --afxdp: a session's last pong's transmit stamp, as the socket's
 * completion gave it (map "sent", keyed by struct xdp_skey). */
struct xdp_sent {
	__u64 seq;		/* the pong's seq */
	__s64 t3_ns;		/* its stamp, the system clock's time or the NIC's */
	__u32 nic;		/* 1: the NIC's (zero-copy), 0: the kernel's */
	__u32 pad;
};

/* --allow: an LPM trie of these, IPv4 prefixes as ::ffff:0:0/96 + len. */
struct xdp_akey {
	__u32 prefixlen;
	__u8 addr[16];
};

#ifndef __VMLINUX_H__
#include <stdbool.h>
#include <stdint.h>

#define XDP_CPUS_MAX 64		/* CPUs whose counts the report keeps */

/* What the program did in a run (struct run.xdp), for the summary and
 * the JSON. */
struct xdp_report {
	bool attached;		/* the program answered this run */
	bool driver_t2;		/* loaded bound to the device: the driver's RX stamp asked */
	char note[320];		/* attached: what passes to the socket; else why not */
	unsigned int ncpu;	/* CPUs in per_cpu */
	uint64_t total[XDPC_N];
	uint64_t per_cpu[XDP_CPUS_MAX][XDPC_N];
};

/* Each counter's name in the summary and the JSON. */
static inline const char *xdp_count_name(unsigned int c)
{
	static const char *const names[XDPC_N] = {
		[XDPC_MEASURED] = "measured", [XDPC_WARMUP] = "warmup", [XDPC_FETCH] = "fetch",
		[XDPC_DUPLICATE] = "duplicate", [XDPC_PASSED] = "passed",
		[XDPC_NOT_ALLOWED] = "not_allowed", [XDPC_LOOPED] = "looped",
		[XDPC_REPEATED] = "repeated", [XDPC_RATE_LIMITED] = "rate_limited",
		[XDPC_SESSIONS] = "sessions", [XDPC_T2_NIC] = "t2_driver",
		[XDPC_T2_KERNEL] = "t2_kernel_clock", [XDPC_XSK] = "afxdp_redirected",
		[XDPC_FU_SENT] = "afxdp_followups", [XDPC_XSK_TX] = "afxdp_sent",
		[XDPC_XSK_TX_FULL] = "afxdp_tx_full", [XDPC_XSK_RX_DROPPED] = "afxdp_rx_dropped",
		[XDPC_T3_STAMPED] = "afxdp_t3_stamped",
		[XDPC_T3_MISSING] = "afxdp_t3_missing",
	};

	return c < XDPC_N ? names[c] : "?";
}
#endif

#endif
