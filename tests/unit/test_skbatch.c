/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/net/skbatch.h over loopback (skipped where the sandbox has no UDP
 * socket): a plain socket sends one with rant's timestamping more
 * datagrams than a batch holds; skbatch_recv() takes one (the first of a
 * busy spell), then SKBATCH_MAX, then the rest,
 * each with its own bytes, source and kernel RX stamp (in arrival
 * order); the replies queued go out with one OPT_ID key each, in order,
 * back to their sender, and sk_tx_read_batch() hands over
 * each one's SCHED and SND report (matched by key), and no other.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "missing.h"
#include "skbatch.h"
#include "tap.h"

#define N (SKBATCH_MAX + 5)

/* A loopback socket with rant's stamps (s), and a plain one (*peer)
 * connected to it. */
static int pair(struct sk *s, int *peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_INET, SOCK_DGRAM, 0);
	*peer = socket(AF_INET, SOCK_DGRAM, 0);
	if (s->fd < 0 || *peer < 0)
		goto fail;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ts_sock_enable(s->fd, false, true) ||
	    bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s->fd, (struct sockaddr *)&a, &alen) ||
	    connect(*peer, (struct sockaddr *)&a, sizeof(a)))
		goto fail;
	return 0;
fail:
	if (s->fd >= 0)
		close(s->fd);
	if (*peer >= 0)
		close(*peer);
	return -1;
}

/* Receive the N datagrams: one, a batch, the rest, in order, each stamped. */
static unsigned int recv_all(struct sk *s, struct skbatch *b, uint64_t key[N])
{
	unsigned int got = 0, in_order = 0, stamped = 0, calls = 0;
	int64_t prev = 0;
	int n;

	while (got < N && (n = skbatch_recv(s, b, false, false)) > 0) {
		uint64_t k[SKBATCH_MAX];

		calls++;
		for (int i = 0; i < n; i++) {
			const struct sk_msg *m = skbatch_msg(b, (unsigned int)i);

			in_order += m->len == 100 && skbatch_buf(b, (unsigned int)i)[0] == got + i;
			stamped += m->rx.kn_ns > 0 && m->rx.kn_ns >= prev;
			prev = m->rx.kn_ns;
			skbatch_reply(b, (unsigned int)i, 50);
		}
		if (calls == 1)
			is_int(n, 1, "the first receive of a busy spell takes one datagram");
		if (calls == 2)
			is_int(n, SKBATCH_MAX, "the next takes a whole batch");
		is_u64(skbatch_send(s, b, k), (uint64_t)n, "every reply of the batch left");
		memcpy(key + got, k, sizeof(k[0]) * (size_t)n);
		got += (unsigned int)n;
	}
	is_int(got, N, "every datagram received, in %u calls", calls);
	is_int(in_order, N, "each slot holds its own datagram, in order");
	is_int(stamped, N, "each has its own kernel RX stamp, in arrival order");
	ok(skbatch_recv(s, b, false, false) == -EAGAIN, "then nothing: -EAGAIN");
	return got;
}

/*
 * The kernel turns RX timestamping on from a deferred worker (rant's
 * warm-up waits for it too): until then a datagram comes unstamped. Send
 * one a millisecond until one comes with its stamp (at most 2 s); 0 once
 * stamps flow, -1 if they never did.
 */
static int stamps_flow(const struct sk *s, int peer)
{
	for (int tries = 0; tries < 2000; tries++, usleep(1000)) {
		char cbuf[256], byte = 0;
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

		if (send(peer, &byte, 1, 0) != 1 || poll(&pfd, 1, 10) != 1 ||
		    recvmsg(s->fd, &m, MSG_DONTWAIT) != 1)
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			const struct scm_timestamping *t = (const void *)CMSG_DATA(c);

			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING &&
			    (t->ts[0].tv_sec || t->ts[0].tv_nsec))
				return 0;
		}
	}
	return -1;
}

static void test_loopback(void)
{
	uint8_t payload[100] = { 0 };
	struct ts_tx tx[SKBATCH_MAX];
	unsigned int snd = 0, sched = 0, keys_ok = 0, got, reports = 0;
	uint8_t seen_snd[N] = { 0 }, seen_sched[N] = { 0 };
	uint64_t key[N];
	struct skbatch *b;
	struct sk s;
	int peer, echoed = 0;

	if (pair(&s, &peer)) {
		skip(14, "no loopback UDP socket with timestamping here");
		return;
	}
	ok(stamps_flow(&s, peer) == 0, "the kernel's RX stamps flow (its deferred switch done)");
	b = skbatch_create(2048, false);
	ok(b != NULL, "a batch of %d slots", SKBATCH_MAX);
	for (int i = 0; i < N; i++) {
		payload[0] = (uint8_t)i;
		send(peer, payload, sizeof(payload), 0);
	}
	got = recv_all(&s, b, key);
	for (unsigned int i = 0; i < got; i++)
		keys_ok += key[i] == i;
	is_int(keys_ok, N, "the replies' OPT_ID keys: one each, in order");
	while (recv(peer, payload, sizeof(payload), MSG_DONTWAIT) == 50)
		echoed++;
	is_int(echoed, N, "each reply reached its sender, as long as queued");
	while ((got = sk_tx_read_batch(&s, tx, SKBATCH_MAX)) > 0) {
		for (unsigned int i = 0; i < got; i++) {
			uint32_t k = tx[i].key;

			if (k >= N || tx[i].ts.kn_ns <= 0)
				continue;
			/* each key once of each type */
			snd += tx[i].type == SCM_TSTAMP_SND && !(seen_snd[k]++);
			sched += tx[i].type == SCM_TSTAMP_SCHED && !(seen_sched[k]++);
		}
		reports += got;
	}
	is_int(snd, N, "a SND report for each reply's key");
	is_int(sched, N, "a SCHED report for each reply's key");
	is_int(reports, 2 * N, "and no other report");
	skbatch_destroy(b);
	close(s.fd);
	close(peer);
}

int main(void)
{
	test_loopback();
	return done_testing();
}
