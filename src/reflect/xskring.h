/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An AF_XDP socket on one queue of an interface, by the kernel's own
 * interface (socket(AF_XDP), its UMEM and four rings set by setsockopt
 * and mmap: Documentation/networking/af_xdp.rst), for reflect
 * --xdp=afxdp (xdprefl.h): frames the program redirects come in on the
 * RX ring, go back out on the TX ring from the same UMEM frame with a
 * TX-metadata request for their transmit stamp (6.8's tx_metadata_len,
 * Documentation/networking/xsk-tx-metadata.rst), and the stamp is read
 * when the completion ring returns the frame, which then goes back to
 * the fill ring. One thread drives a socket.
 */
#ifndef RANT_XSKRING_H
#define RANT_XSKRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XSK_RING 2048		/* descriptors a ring */
#define XSK_FRAMES XSK_RING	/* UMEM frames: as many as the fill ring holds, so
				 * that a frame handed back always finds room */
#define XSK_FRAME_LEN 2048	/* bytes each: a 1500-byte MTU's frame and headroom */

struct xskring;

/* A received frame, where it lies in the UMEM and its length. */
struct xsk_frame {
	uint64_t addr;
	uint32_t len;
};

/*
 * Open and bind a socket to queue of ifindex (zero-copy where the driver
 * has it, else copy mode), with TX metadata where the kernel takes it.
 * 0 and *out, or -errno with one line in err saying why.
 */
int xskring_open(struct xskring **out, int ifindex, unsigned int queue, char *err, size_t len);
int xskring_fd(const struct xskring *x);
/* Bound in zero-copy mode (the driver's own rings), else copy mode. */
bool xskring_zerocopy(const struct xskring *x);
/* The UMEM took tx_metadata_len: transmit stamps may be asked for. */
bool xskring_has_meta(const struct xskring *x);
/* The bytes of a frame at addr. */
uint8_t *xskring_data(struct xskring *x, uint64_t addr);
/* Up to n received frames into f; their count. */
unsigned int xskring_rx(struct xskring *x, struct xsk_frame *f, unsigned int n);
/*
 * The n frames sent back out as they are (each addr and len, the bytes
 * rewritten in place), each asking for its transmit stamp where
 * xskring_has_meta(); the kernel woken. The frames the TX ring had no
 * room for go back to the fill ring, and their number is returned.
 */
unsigned int xskring_tx(struct xskring *x, const struct xsk_frame *f, unsigned int n);
/*
 * The kernel woken again for frames still on the TX ring (copy mode
 * sends 32 a call at most); then up to n sent frames the completion ring
 * returned: each one's addr and
 * transmit stamp (0: none came) into addr[] and ts[] (the stamp's
 * clock: CLOCK_TAI in copy mode, the NIC's in zero-copy mode); their
 * count. The frames stay the caller's until xskring_fill().
 */
unsigned int xskring_done(struct xskring *x, uint64_t *addr, uint64_t *ts, unsigned int n);
/* n frames handed back to the fill ring, to receive into. */
void xskring_fill(struct xskring *x, const uint64_t *addr, unsigned int n);
/* Frames the kernel could not hand to the socket (its RX ring full, no
 * frame to receive into, ...), as XDP_STATISTICS counts them. */
uint64_t xskring_rx_dropped(const struct xskring *x);
void xskring_close(struct xskring *x);

#endif
