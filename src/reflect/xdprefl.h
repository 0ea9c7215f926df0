/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reflect --xdp: the XDP reflector (bpf/xdprefl.bpf.c, embedded through
 * its bpftool skeleton) loaded, attached in front of the socket
 * reflector, kept current and read back. The program answers rant's
 * pings and open STAMP / TWAMP-Light test packets with XDP_TX; what it
 * cannot answer (--key's MAC, -s's SW stamps, STAMP's TLVs, IPv4
 * options, fragments, anything not a valid ping) passes to the socket
 * reflector, which answers or counts it as without --xdp. Built only
 * where clang's BPF target, bpftool and libbpf are (RANT_HAVE_XDP);
 * elsewhere xdprefl_start() says so.
 */
#ifndef RANT_XDPREFL_H
#define RANT_XDPREFL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdpmap.h"

struct run;
struct counts;
struct xdp_report;
struct xdprefl;

/*
 * Load and attach the program on r's interface (native mode only). 0 and
 * *out, or -errno with one line in err saying why (the caller falls back
 * to the socket reflector or, with --xdp=required, exits 1).
 */
int xdprefl_start(struct xdprefl **out, const struct run *r, char *err, size_t len);
/* The clock offset and the Error Estimate brought up to date, at most
 * once a second (now_ns CLOCK_MONOTONIC): from the loop's idle spells. */
void xdprefl_tick(struct xdprefl *x, int64_t now_ns);
/* Where its T3 is taken (--afxdp: which socket mode, which stamp), for
 * the start line. */
const char *xdprefl_t3(const struct xdprefl *x);
/* Detach, read the per-CPU counts into rep, add them to cnt, free. */
void xdprefl_stop(struct xdprefl *x, struct xdp_report *rep, struct counts *cnt);

#endif
