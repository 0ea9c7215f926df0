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
	unsigned int filled;		/* entries of mm the last receive filled */
	bool busy;			/* the last receive found a datagram */
	unsigned int out_n;		/* replies queued */
	struct mmsghdr out[SKBATCH_MAX];
	struct iovec out_iov[SKBATCH_MAX];
	union {
		char b[SK_REPLY_CTL_LEN];
		struct cmsghdr align;
	} out_ctl[SKBATCH_MAX];		/* a reply's source and TOS (sk_reply_ctl) */
	const struct sk *sk;		/* the socket of the last receive */
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
	b->filled = SKBATCH_MAX;	/* every entry's lengths set at the first receive */
	b->mem = mem_alloc(b->mem_len, hugepages);
	if (!b->mem) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < SKBATCH_MAX; i++) {
		struct msghdr *h = &b->mm[i].msg_hdr;

		b->iov[i] = (struct iovec){ .iov_base = skbatch_buf(b, i), .iov_len = slot_len };
		h->msg_name = &b->m[i].src;
		h->msg_iov = &b->iov[i];
		h->msg_iovlen = 1;
		h->msg_control = b->ctl[i];
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

bool skbatch_draining(const struct skbatch *b)
{
	return b->busy;
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

	/* The kernel writes the lengths back only into the entries it
	 * fills (none when it returns an error): those alone are reset, so
	 * a spin that finds nothing costs the receive alone. */
	for (unsigned int i = 0; i < b->filled; i++) {
		struct msghdr *h = &b->mm[i].msg_hdr;

		h->msg_namelen = sizeof(b->m[i].src);
		h->msg_controllen = sizeof(b->ctl[i]);
	}
	b->filled = 0;
	/*
	 * After a datagram, the kernel tries the next entry before it
	 * returns, and finds the queue empty unless a backlog waits: a
	 * lone ping's pong would wait for that failed read. So the first
	 * receive of a busy spell takes one datagram (blocking, it waits
	 * for it); the next, made at once after the answers, drains a
	 * backlog (a fleet's) in batches and never waits.
	 */
	if (b->busy) {
		n = recvmmsg(s->fd, b->mm, SKBATCH_MAX, MSG_DONTWAIT, NULL);
	} else {
		/* One datagram: recvmsg(), the same receive without
		 * recvmmsg()'s wrapping (the vector, its lengths written
		 * back, its timeout), as a lone ping's receive should be. */
		ssize_t len = recvmsg(s->fd, &b->mm[0].msg_hdr, block ? 0 : MSG_DONTWAIT);

		n = len < 0 ? -1 : 1;
		b->mm[0].msg_len = len < 0 ? 0 : (unsigned int)len;
	}
	b->busy = n > 0;
	b->sk = s;
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EAGAIN;
	b->filled = (unsigned int)n;
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
		sk_rx_msg(s, h, m);
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
	/* a reply from the address its ping came to, or with a TOS of its
	 * own: its control data (else none, as the send without it has) */
	h->msg_controllen = b->sk ? sk_reply_ctl(b->sk, &b->m[i], b->out_ctl[o].b) : 0;
	h->msg_control = h->msg_controllen ? b->out_ctl[o].b : NULL;
}

/* sendmmsg() of the vlen messages at v; one message (a lone ping's
 * pong) by sendto(), the same send with less of the kernel's wrapping
 * (no message header or vector to copy in, no length to write back). */
static int skbatch_sendmmsg(int fd, struct mmsghdr *v, unsigned int vlen)
{
	const struct msghdr *h = &v->msg_hdr;
	ssize_t n;

	if (vlen > 1)
		return sendmmsg(fd, v, vlen, MSG_DONTWAIT);
	if (h->msg_controllen)	/* its source, or a TOS of its own */
		n = sendmsg(fd, h, MSG_DONTWAIT);
	else
		n = sendto(fd, h->msg_iov->iov_base, h->msg_iov->iov_len, MSG_DONTWAIT,
			   (const struct sockaddr *)h->msg_name, h->msg_namelen);
	if (n < 0)
		return -1;
	v->msg_len = (unsigned int)n;
	return 1;
}

unsigned int skbatch_send(struct sk *s, struct skbatch *b, uint64_t key[SKBATCH_MAX])
{
	unsigned int done = 0, sent = 0;

	while (done < b->out_n) {
		int n = skbatch_sendmmsg(s->fd, b->out + done, b->out_n - done);

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

/*
 * The error queue's receive vectors, set up once per thread (the loops
 * are one thread each): a read after every send, off the round trip but
 * before the next receive, resets only the entries the read before
 * filled (the kernel writes back their lengths and flags), instead of
 * building SKBATCH_MAX headers (2 KiB) each time. txq reads the reports
 * alone; icmpq (a ping or raw socket's) each entry's address and first
 * bytes too, which an ICMP error's entry carries.
 */
struct errq {
	struct mmsghdr mm[SKBATCH_MAX];
	char ctl[SKBATCH_MAX][SK_CMSG_BUF];
	struct sockaddr_storage name[SKBATCH_MAX];	/* icmpq's */
	uint8_t head[SKBATCH_MAX][SK_ERR_HEAD];
	struct iovec iov[SKBATCH_MAX];
	unsigned int filled;	/* entries the last read filled */
	bool ready;
};

static __thread struct errq txq, icmpq;

static void errq_ready(struct errq *q, bool icmp)
{
	for (unsigned int i = 0; i < SKBATCH_MAX; i++) {
		struct msghdr *h = &q->mm[i].msg_hdr;

		h->msg_control = q->ctl[i];
		if (!icmp)
			continue;
		q->iov[i] = (struct iovec){ .iov_base = q->head[i], .iov_len = SK_ERR_HEAD };
		h->msg_name = &q->name[i];
		h->msg_iov = &q->iov[i];
		h->msg_iovlen = 1;
	}
	q->filled = SKBATCH_MAX;
	q->ready = true;
}

/* Entry i of icmpq, an ICMP error, into *e: false when it is none. */
static bool icmp_entry(struct errq *q, unsigned int i, struct sk_icmp_err *e)
{
	const struct msghdr *h = &q->mm[i].msg_hdr;

	if (ts_parse_icmp(h, &e->e) || h->msg_namelen > sizeof(e->to))
		return false;
	memset(&e->to, 0, sizeof(e->to));
	memcpy(&e->to, &q->name[i], h->msg_namelen);
	e->head_len = q->mm[i].msg_len < SK_ERR_HEAD ? q->mm[i].msg_len : SK_ERR_HEAD;
	memcpy(e->head, q->head[i], e->head_len);
	return true;
}

unsigned int sk_errq_read_batch(struct sk *s, struct ts_tx *tx, unsigned int max,
				struct sk_icmp_err *err, unsigned int *nerr)
{
	struct errq *q = err ? &icmpq : &txq;
	unsigned int n = stash_take_all(s, tx, max);
	unsigned int want = max - n < SKBATCH_MAX ? max - n : SKBATCH_MAX;
	int got;

	if (nerr)
		*nerr = 0;
	if (!want || s->fd < 0)
		return n;
	if (!q->ready)
		errq_ready(q, err != NULL);
	for (unsigned int i = 0; i < q->filled; i++) {
		q->mm[i].msg_hdr.msg_controllen = sizeof(q->ctl[i]);
		q->mm[i].msg_hdr.msg_namelen = err ? sizeof(q->name[i]) : 0;
		q->mm[i].msg_hdr.msg_flags = 0;
	}
	got = recvmmsg(s->fd, q->mm, want, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
	q->filled = got > 0 ? (unsigned int)got : 0;
	for (int i = 0; i < got; i++) {
		struct ts_tx *t = &tx[n];

		if (ts_parse_tx(&q->mm[i].msg_hdr, t) == 0) {
			n += t->type == SCM_TSTAMP_SND || t->type == SCM_TSTAMP_SCHED ||
			     t->type == SCM_TSTAMP_ACK;
		} else if (err && icmp_entry(q, (unsigned int)i, &err[*nerr])) {
			(*nerr)++;
		}
	}
	return n;
}

unsigned int sk_tx_read_batch(struct sk *s, struct ts_tx *tx, unsigned int max)
{
	return sk_errq_read_batch(s, tx, max, NULL, NULL);
}
