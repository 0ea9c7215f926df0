// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reflect --xdp --afxdp (xdpxsk.h): the thread that sends the program's
 * pongs out of an AF_XDP socket and hands each one's transmit stamp back
 * to the program. The pong arrives finished (turned, stamped, its UDP
 * checksum computed): the thread only moves the frame from the RX ring
 * to the TX ring, reads the stamp off the completion, and finds the
 * session in the pong's own bytes (the emitter's address and port, the
 * session id, the seq), as the program keyed it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "offloop.h"
#include "xdpmap.h"
#include "xdpxsk.h"
#include "xskring.h"

#ifdef RANT_HAVE_XDP

#include <bpf/bpf.h>

#define BATCH 64
#define IDLE_MS 100		/* the poll's wait when nothing is under way */

struct xdpxsk {
	struct xdpxsk_cfg c;
	struct xskring *ring;
	pthread_t tid;
	bool started;
	int stop;		/* atomic: the loop ends */
	uint64_t cnt[XDPC_N];	/* the thread's own counts */
};

/* The session a pong (a frame of len bytes at f) answered, as the
 * program keys it (struct xdp_skey), and its seq: 0, or -1 when the
 * frame is not one of rant's pongs. */
static int pong_key(const uint8_t *f, uint32_t len, struct xdp_skey *k, uint64_t *seq)
{
	uint32_t l3, ip_len;
	const uint8_t *udp;

	memset(k, 0, sizeof(*k));
	if (len < 14 + 20)
		return -1;
	if (f[12] == 0x08 && f[13] == 0x00) {		/* IPv4, no options (the program's) */
		l3 = 20;
		k->addr[10] = k->addr[11] = 0xff;
		memcpy(k->addr + 12, f + 14 + 16, 4);
	} else if (f[12] == 0x86 && f[13] == 0xdd) {	/* IPv6, UDP next */
		l3 = 40;
		if (len < 14 + 40)
			return -1;
		memcpy(k->addr, f + 14 + 24, 16);
	} else {
		return -1;
	}
	ip_len = 14 + l3 + 8;
	if (len < ip_len + 24)
		return -1;
	udp = f + 14 + l3;
	memcpy(&k->port, udp + 2, 2);	/* the pong's destination: the ping's source */
	k->session = be_get32(udp + 8 + 8);
	*seq = be_get64(udp + 8 + 16);
	return 0;
}

/* One sent pong's stamp, counted; for rant's format its session's entry
 * of "sent" into *key and *v: 1, else 0. */
static int stamped(struct xdpxsk *k, uint64_t addr, uint64_t ts, struct xdp_skey *key,
		   struct xdp_sent *v)
{
	const uint8_t *f = xskring_data(k->ring, addr);
	uint64_t seq;

	if (!ts) {
		k->cnt[XDPC_T3_MISSING]++;
		return 0;
	}
	k->cnt[XDPC_T3_STAMPED]++;
	if (k->c.stamp || pong_key(f, XSK_FRAME_LEN - (uint32_t)(addr % XSK_FRAME_LEN), key,
				   &seq))
		return 0;
	*v = (struct xdp_sent){ .seq = seq, .nic = xskring_zerocopy(k->ring) };
	v->t3_ns = v->nic ? (int64_t)ts : (int64_t)ts + *k->c.real_off;
	return 1;
}

/* Received pongs out, then the completions read, their stamps into
 * "sent" in one call, and their frames back. */
static unsigned int turn_round(struct xdpxsk *k)
{
	struct xsk_frame f[BATCH];
	uint64_t a[BATCH], ts[BATCH];
	struct xdp_skey keys[BATCH];
	struct xdp_sent vals[BATCH];
	unsigned int n = xskring_rx(k->ring, f, BATCH), d, full;
	uint32_t m = 0;

	if (n) {
		full = xskring_tx(k->ring, f, n);
		k->cnt[XDPC_XSK_TX] += n - full;
		k->cnt[XDPC_XSK_TX_FULL] += full;
	}
	d = xskring_done(k->ring, a, ts, BATCH);
	for (unsigned int i = 0; i < d; i++)
		m += (uint32_t)stamped(k, a[i], ts[i], &keys[m], &vals[m]);
	if (m && bpf_map_update_batch(k->c.sent_fd, keys, vals, &m, NULL))
		for (uint32_t i = 0; i < m; i++)	/* a kernel without batches */
			bpf_map_update_elem(k->c.sent_fd, &keys[i], &vals[i], BPF_ANY);
	xskring_fill(k->ring, a, d);
	return n + d;
}

static void *xsk_main(void *arg)
{
	struct xdpxsk *k = arg;
	struct pollfd p = { .fd = xskring_fd(k->ring), .events = POLLIN };
	const uint64_t *c = k->cnt;

	while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
		if (turn_round(k))
			continue;
		/* zero-copy completes later: look again soon while a pong is out */
		poll(&p, 1, c[XDPC_XSK_TX] > c[XDPC_T3_STAMPED] + c[XDPC_T3_MISSING] ? 1 : IDLE_MS);
	}
	return NULL;
}

int xdpxsk_start(struct xdpxsk **out, const struct xdpxsk_cfg *c, char *err, size_t len)
{
	struct xdpxsk *k = calloc(1, sizeof(*k));
	uint32_t queue = 0;
	cpu_set_t mine;
	int fd, ret;

	*out = NULL;
	if (!k) {
		snprintf(err, len, "no memory for the AF_XDP socket");
		return -ENOMEM;
	}
	k->c = *c;
	ret = xskring_open(&k->ring, c->ifindex, queue, err, len);
	if (ret)
		goto fail;
	fd = xskring_fd(k->ring);
	if (bpf_map_update_elem(c->xsks_fd, &queue, &fd, BPF_ANY)) {
		ret = -errno;
		snprintf(err, len, "the AF_XDP socket into the program's XSKMAP: %s", strerror(-ret));
		goto fail;
	}
	ret = -offloop_spawn(&k->tid, xsk_main, k, NULL);
	if (ret) {
		snprintf(err, len, "the AF_XDP socket's thread: %s", strerror(-ret));
		bpf_map_delete_elem(c->xsks_fd, &queue);
		goto fail;
	}
	k->started = true;
	/* the pongs' path, not a helper beside it: on the loop's own CPUs */
	if (!sched_getaffinity(0, sizeof(mine), &mine))
		pthread_setaffinity_np(k->tid, sizeof(mine), &mine);
	*out = k;
	return 0;
fail:
	xskring_close(k->ring);
	free(k);
	return ret;
}

bool xdpxsk_zerocopy(const struct xdpxsk *k)
{
	return xskring_zerocopy(k->ring);
}

bool xdpxsk_has_meta(const struct xdpxsk *k)
{
	return xskring_has_meta(k->ring);
}

void xdpxsk_stop(struct xdpxsk *k, uint64_t *total)
{
	if (!k)
		return;
	__atomic_store_n(&k->stop, 1, __ATOMIC_RELEASE);
	if (k->started)
		pthread_join(k->tid, NULL);
	k->cnt[XDPC_XSK_RX_DROPPED] = xskring_rx_dropped(k->ring);
	for (unsigned int i = 0; i < XDPC_N; i++)
		total[i] += k->cnt[i];
	xskring_close(k->ring);
	free(k);
}

#endif
