// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Datagrams in batches (see skbatch.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "missing.h"
#include "skbatch.h"
#include "timeutil.h"

struct skbatch {
	uint8_t *mem;			/* the slots' bytes */
	size_t mem_len;
	size_t stride;			/* from one slot to the next */
	size_t slot_len;
	bool huge;
	struct mmsghdr mm[SKBATCH_MAX];	/* the receive's */
	struct iovec iov[SKBATCH_MAX];
	struct sk_msg m[SKBATCH_MAX];
	char ctl[SKBATCH_MAX][SK_CMSG_BUF];
	unsigned int out_n;		/* replies queued */
	struct mmsghdr out[SKBATCH_MAX];
	struct iovec out_iov[SKBATCH_MAX];
};

struct skbatch *skbatch_create(size_t slot_len, bool hugepages)
{
	struct skbatch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	/* A cache line past a power of two: the slots' first bytes fall in
	 * different cache sets. */
	b->slot_len = slot_len;
	b->stride = (slot_len + 63) / 64 * 64 + 64;
	b->mem_len = b->stride * SKBATCH_MAX;
	b->huge = hugepages;
	b->mem = mem_alloc(b->mem_len, hugepages);
	if (!b->mem) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < SKBATCH_MAX; i++) {
		b->iov[i] = (struct iovec){ .iov_base = skbatch_buf(b, i), .iov_len = slot_len };
		b->out[i].msg_hdr.msg_iov = &b->out_iov[i];
		b->out[i].msg_hdr.msg_iovlen = 1;
	}
	return b;
}

void skbatch_destroy(struct skbatch *b)
{
	if (!b)
		return;
	mem_free(b->mem, b->mem_len, b->huge);
	free(b);
}

uint8_t *skbatch_buf(struct skbatch *b, unsigned int i)
{
	return b->mem + (size_t)i * b->stride;
}

struct sk_msg *skbatch_msg(struct skbatch *b, unsigned int i)
{
	return &b->m[i];
}

int skbatch_recv(struct sk *s, struct skbatch *b, bool sw, bool block)
{
	int64_t sw_ns;
	int n;

	for (unsigned int i = 0; i < SKBATCH_MAX; i++) {
		struct msghdr *h = &b->mm[i].msg_hdr;

		h->msg_name = &b->m[i].src;
		h->msg_namelen = sizeof(b->m[i].src);
		h->msg_iov = &b->iov[i];
		h->msg_iovlen = 1;
		h->msg_control = b->ctl[i];
		h->msg_controllen = sizeof(b->ctl[i]);
		h->msg_flags = 0;
	}
	n = recvmmsg(s->fd, b->mm, SKBATCH_MAX, block ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EAGAIN;
	sw_ns = sw ? realtime_ns() : TS_NONE;
	for (int i = 0; i < n; i++) {
		const struct msghdr *h = &b->mm[i].msg_hdr;
		struct sk_msg *m = &b->m[i];

		m->sw_ns = sw_ns;
		m->len = (ssize_t)b->mm[i].msg_len;
		m->src_len = h->msg_namelen;
		m->via = NULL;
		if (h->msg_flags & MSG_TRUNC)
			m->len = -1;	/* larger than any valid datagram */
		sk_rx_cmsg(s, h, m);
	}
	b->out_n = 0;
	return n;
}

void skbatch_reply(struct skbatch *b, unsigned int i, size_t len)
{
	unsigned int o = b->out_n++;
	struct msghdr *h = &b->out[o].msg_hdr;

	b->out_iov[o] = (struct iovec){ .iov_base = skbatch_buf(b, i), .iov_len = len };
	h->msg_name = &b->m[i].src;
	h->msg_namelen = b->m[i].src_len;
}

unsigned int skbatch_send(struct sk *s, struct skbatch *b, uint64_t key[SKBATCH_MAX])
{
	unsigned int done = 0, sent = 0;

	while (done < b->out_n) {
		int n = sendmmsg(s->fd, b->out + done, b->out_n - done, MSG_DONTWAIT);

		if (n <= 0) {
			/* This one was refused (no OPT_ID taken for it): the
			 * rest go on. */
			key[done++] = SKBATCH_UNSENT;
			continue;
		}
		for (int i = 0; i < n; i++, done++) {
			key[done] = s->tx_key++;	/* OPT_ID counts datagrams */
			sent += b->out[done].msg_len == b->out_iov[done].iov_len;
			if (b->out[done].msg_len != b->out_iov[done].iov_len)
				key[done] = SKBATCH_UNSENT;
		}
	}
	b->out_n = 0;
	return sent;
}

/* The stashed reports first (read by a wait, sock.h). */
static unsigned int stash_take_all(struct sk *s, struct ts_tx *tx, unsigned int max)
{
	unsigned int n = 0;

	for (int i = 0; i < SK_STASH && n < max; i++) {
		struct sk_stash *e = &s->stash[i];

		if (!e->used)
			continue;
		e->used = false;
		tx[n++] = (struct ts_tx){ .key = e->key, .type = e->type, .ts = e->ts };
	}
	return n;
}

unsigned int sk_tx_read_batch(struct sk *s, struct ts_tx *tx, unsigned int max)
{
	struct mmsghdr mm[SKBATCH_MAX];
	char ctl[SKBATCH_MAX][SK_CMSG_BUF];
	unsigned int n = stash_take_all(s, tx, max);
	unsigned int want = max - n < SKBATCH_MAX ? max - n : SKBATCH_MAX;
	int got;

	if (!want || s->fd < 0)
		return n;
	for (unsigned int i = 0; i < want; i++)
		mm[i].msg_hdr = (struct msghdr){ .msg_control = ctl[i],
						 .msg_controllen = sizeof(ctl[i]) };
	got = recvmmsg(s->fd, mm, want, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
	for (int i = 0; i < got; i++) {
		struct ts_tx *t = &tx[n];

		if (ts_parse_tx(&mm[i].msg_hdr, t) == 0 &&
		    (t->type == SCM_TSTAMP_SND || t->type == SCM_TSTAMP_SCHED ||
		     t->type == SCM_TSTAMP_ACK))
			n++;
	}
	return n;
}
