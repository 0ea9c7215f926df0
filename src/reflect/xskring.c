// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One AF_XDP socket (xskring.h) by the raw socket interface: libbpf 1.1
 * has no xsk.h any more and Debian 12's libxdp (1.3) has no TX metadata,
 * so the UMEM and its rings are set up here. Each frame of the UMEM is
 * in one place at a time: the fill ring (the kernel's to receive into),
 * the RX ring, the TX ring or the completion ring; a received frame goes
 * out again from where it came, so no frame is copied or lost.
 */
#include <errno.h>
#include <linux/if_xdp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xskring.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
/* Linux 6.8 and 6.11's TX metadata (include/uapi/linux/if_xdp.h), which
 * Debian 12's headers predate. */
#define XSK_UMEM_TX_METADATA_LEN (1 << 2)
#define XSK_TXMD_TIMESTAMP (1 << 0)
#define XSK_TX_METADATA (1 << 1)	/* xdp_desc.options */

/* struct xdp_umem_reg as 6.8 extended it */
struct xsk_umem_reg {
	uint64_t addr;
	uint64_t len;
	uint32_t chunk_size;
	uint32_t headroom;
	uint32_t flags;
	uint32_t tx_metadata_len;
};

/* union xsk_tx_metadata's layout, right before a frame's data */
struct xsk_txmd {
	uint64_t flags;
	union {
		struct {
			uint16_t csum_start;
			uint16_t csum_offset;
			uint64_t launch_time;
		} request;
		struct {
			uint64_t tx_timestamp;
		} completion;
	};
};

/* One of the four rings, mapped. */
struct ring {
	uint32_t *prod, *cons, *flags;
	void *desc;		/* struct xdp_desc[] or uint64_t[] */
	void *map;
	size_t map_len;
};

struct xskring {
	int fd;
	uint8_t *umem;
	size_t umem_len;
	bool zerocopy, meta;
	struct ring rx, tx, fill, comp;
};

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static int map_ring(int fd, struct ring *r, const struct xdp_ring_offset *o, size_t esz,
		    off_t pgoff)
{
	r->map_len = o->desc + XSK_RING * esz;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		      pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->prod = (uint32_t *)((uint8_t *)r->map + o->producer);
	r->cons = (uint32_t *)((uint8_t *)r->map + o->consumer);
	r->flags = (uint32_t *)((uint8_t *)r->map + o->flags);
	r->desc = (uint8_t *)r->map + o->desc;
	return 0;
}

/* Frames into the fill ring, as many as it takes of n. */
static void fill(struct xskring *x, const uint64_t *addr, unsigned int n)
{
	uint32_t p = *x->fill.prod, free = XSK_RING - (p - load(x->fill.cons));
	uint64_t *d = x->fill.desc;

	n = n < free ? n : free;
	for (unsigned int i = 0; i < n; i++)
		d[(p + i) & (XSK_RING - 1)] = addr[i];
	store(x->fill.prod, p + n);
}

/* The UMEM registered, with TX metadata where the kernel takes it: 6.11
 * wants the flag, 6.8 to 6.10 only the length, older kernels neither. */
static int reg_umem(struct xskring *x)
{
	struct xsk_umem_reg r = { .addr = (uintptr_t)x->umem, .len = x->umem_len,
				  .chunk_size = XSK_FRAME_LEN,
				  .flags = XSK_UMEM_TX_METADATA_LEN,
				  .tx_metadata_len = sizeof(struct xsk_txmd) };

	/* tests/net/test_xdp.sh: a planted kernel without TX metadata */
	x->meta = !getenv("RANT_XSK_NO_META");
	if (x->meta && !setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &r, sizeof(r)))
		return 0;
	r.flags = 0;
	if (x->meta && !setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &r, sizeof(r)))
		return 0;
	x->meta = false;
	r.tx_metadata_len = 0;
	if (!setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &r, sizeof(r)))
		return 0;
	return -errno;
}

/* The rings sized, mapped, the fill ring filled, the socket bound. */
static int rings(struct xskring *x, int ifindex, unsigned int queue, const char **what)
{
	struct sockaddr_xdp sa = { .sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)ifindex,
				   .sxdp_queue_id = queue, .sxdp_flags = XDP_USE_NEED_WAKEUP };
	struct xdp_mmap_offsets off;
	struct xdp_options opt;
	socklen_t ol = sizeof(off);
	int n = XSK_RING, ret;
	uint64_t a[XSK_FRAMES];

	*what = "its rings";
	if (setsockopt(x->fd, SOL_XDP, XDP_RX_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_TX_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) ||
	    setsockopt(x->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof(n)) ||
	    getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol))
		return -errno;
	ret = map_ring(x->fd, &x->rx, &off.rx, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
	if (!ret)
		ret = map_ring(x->fd, &x->tx, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
	if (!ret)
		ret = map_ring(x->fd, &x->fill, &off.fr, sizeof(uint64_t),
			       XDP_UMEM_PGOFF_FILL_RING);
	if (!ret)
		ret = map_ring(x->fd, &x->comp, &off.cr, sizeof(uint64_t),
			       XDP_UMEM_PGOFF_COMPLETION_RING);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < XSK_FRAMES; i++)	/* every frame to receive into */
		a[i] = (uint64_t)i * XSK_FRAME_LEN;
	fill(x, a, XSK_FRAMES);
	*what = "binding it to the queue";
	if (bind(x->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	ol = sizeof(opt);
	x->zerocopy = !getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &opt, &ol) &&
		      (opt.flags & XDP_OPTIONS_ZEROCOPY);
	return 0;
}

int xskring_open(struct xskring **out, int ifindex, unsigned int queue, char *err, size_t len)
{
	struct xskring *x = calloc(1, sizeof(*x));
	const char *what = "the socket";
	int ret;

	*out = NULL;
	if (!x) {
		snprintf(err, len, "no memory for the AF_XDP socket");
		return -ENOMEM;
	}
	x->umem_len = (size_t)XSK_FRAMES * XSK_FRAME_LEN;
	x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		ret = -errno;
		goto fail;
	}
	what = "its UMEM";
	x->umem = mmap(NULL, x->umem_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->umem == MAP_FAILED) {
		x->umem = NULL;
		ret = -errno;
		goto fail;
	}
	ret = reg_umem(x);
	if (!ret)
		ret = rings(x, ifindex, queue, &what);
	if (!ret) {
		*out = x;
		return 0;
	}
fail:
	snprintf(err, len, "an AF_XDP socket on queue %u: %s: %s", queue, what, strerror(-ret));
	xskring_close(x);
	return ret;
}

int xskring_fd(const struct xskring *x)
{
	return x->fd;
}

bool xskring_zerocopy(const struct xskring *x)
{
	return x->zerocopy;
}

bool xskring_has_meta(const struct xskring *x)
{
	return x->meta;
}

uint8_t *xskring_data(struct xskring *x, uint64_t addr)
{
	return x->umem + (addr % x->umem_len);
}

unsigned int xskring_rx(struct xskring *x, struct xsk_frame *f, unsigned int n)
{
	uint32_t c = *x->rx.cons, avail = load(x->rx.prod) - c;
	const struct xdp_desc *d = x->rx.desc;

	n = n < avail ? n : avail;
	for (unsigned int i = 0; i < n; i++) {
		const struct xdp_desc *e = &d[(c + i) & (XSK_RING - 1)];

		f[i] = (struct xsk_frame){ .addr = e->addr, .len = e->len };
	}
	store(x->rx.cons, c + n);
	return n;
}

/* The kernel told of the TX ring: copy mode sends only from this call,
 * zero-copy when its driver asks to be woken. */
static void kick(struct xskring *x)
{
	if (!x->zerocopy || (load(x->tx.flags) & XDP_RING_NEED_WAKEUP))
		sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
}

unsigned int xskring_tx(struct xskring *x, const struct xsk_frame *f, unsigned int n)
{
	uint32_t p = *x->tx.prod, free = XSK_RING - (p - load(x->tx.cons));
	struct xdp_desc *d = x->tx.desc;
	unsigned int k = n < free ? n : free;

	for (unsigned int i = 0; i < k; i++) {
		struct xdp_desc *e = &d[(p + i) & (XSK_RING - 1)];

		e->addr = f[i].addr;
		e->len = f[i].len;
		e->options = 0;
		if (x->meta) {
			struct xsk_txmd *m = (struct xsk_txmd *)(xskring_data(x, f[i].addr) -
								 sizeof(*m));

			memset(m, 0, sizeof(*m));
			m->flags = XSK_TXMD_TIMESTAMP;
			e->options = XSK_TX_METADATA;
		}
	}
	store(x->tx.prod, p + k);
	if (k)
		kick(x);
	for (unsigned int i = k; i < n; i++)
		fill(x, &f[i].addr, 1);
	return n - k;
}

unsigned int xskring_done(struct xskring *x, uint64_t *addr, uint64_t *ts, unsigned int n)
{
	uint32_t c, avail;
	const uint64_t *d = x->comp.desc;

	/* copy mode sends at most 32 a call: the rest, again */
	if (load(x->tx.cons) != *x->tx.prod)
		kick(x);
	c = *x->comp.cons;
	avail = load(x->comp.prod) - c;

	n = n < avail ? n : avail;
	for (unsigned int i = 0; i < n; i++) {
		addr[i] = d[(c + i) & (XSK_RING - 1)];
		ts[i] = 0;
		if (x->meta)
			ts[i] = ((const struct xsk_txmd *)(xskring_data(x, addr[i]) -
							   sizeof(struct xsk_txmd)))
				->completion.tx_timestamp;
	}
	store(x->comp.cons, c + n);
	return n;
}

void xskring_fill(struct xskring *x, const uint64_t *addr, unsigned int n)
{
	fill(x, addr, n);
}

uint64_t xskring_rx_dropped(const struct xskring *x)
{
	struct xdp_statistics st = { 0 };
	socklen_t l = sizeof(st);

	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &l))
		return 0;
	return st.rx_dropped + st.rx_invalid_descs + st.rx_ring_full;
}

void xskring_close(struct xskring *x)
{
	struct ring *r[] = { &x->rx, &x->tx, &x->fill, &x->comp };

	if (!x)
		return;
	for (unsigned int i = 0; i < 4; i++)
		if (r[i]->map)
			munmap(r[i]->map, r[i]->map_len);
	if (x->fd >= 0)
		close(x->fd);
	if (x->umem)
		munmap(x->umem, x->umem_len);
	free(x);
}
