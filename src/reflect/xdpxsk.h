/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reflect --xdp --afxdp: the AF_XDP socket (xskring.h) on queue 0 of the
 * reflector's interface that the XDP program (bpf/xdprefl.bpf.c) hands
 * its finished pongs to instead of XDP_TX, driven by one thread on the
 * loop's own CPUs (the pongs' path, not a helper off it): each pong
 * goes out through the TX ring asking for its transmit stamp, and each
 * stamp the completion ring brings (the NIC's in zero-copy mode where
 * the driver fills it, the kernel's clock as the driver takes the frame
 * in copy mode) goes into the program's map "sent", whence the
 * session's next rant pong carries it as the follow-up's T3. A
 * completion without a stamp leaves the follow-up the program's own T3
 * (at the hook, before the driver).
 */
#ifndef RANT_XDPXSK_H
#define RANT_XDPXSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xdpxsk;

/* Where the socket goes and what it reports into. */
struct xdpxsk_cfg {
	int ifindex;
	int xsks_fd;		/* the program's XSKMAP */
	int sent_fd;		/* its map "sent" */
	bool stamp;		/* --stamp: no follow-up to feed, stamps only counted */
	const volatile int64_t *real_off;	/* CLOCK_REALTIME - CLOCK_TAI, kept current */
};

/*
 * Open the socket, put it in the XSKMAP and start its thread. 0 and *out,
 * or -errno with one line in err saying why.
 */
int xdpxsk_start(struct xdpxsk **out, const struct xdpxsk_cfg *c, char *err, size_t len);
/* Bound in zero-copy mode (a stamp is then the NIC's where it comes). */
bool xdpxsk_zerocopy(const struct xdpxsk *k);
/* The UMEM took TX metadata (a kernel before 6.8 gives no stamps). */
bool xdpxsk_has_meta(const struct xdpxsk *k);
/* Stop the thread, add its counts (XDPC_XSK_TX ...) into total, free. */
void xdpxsk_stop(struct xdpxsk *k, uint64_t *total);

#endif
