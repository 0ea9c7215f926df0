/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/net/sock.h: the kernel-drop count. sk_drops_seen() across the u32
 * wrap; then, where the sandbox allows sockets, a real overflow: a
 * loopback socket with a tiny receive buffer and SO_RXQ_OVFL is sent more
 * than it can hold, and every datagram is accounted for, received or
 * counted dropped, by sk_recv() and sk_drops(). A reflector's socket
 * asked for each datagram's destination while it runs (sk_ask_dst(), as
 * addrwatch.c does): the next datagram brings it, and the receive takes
 * it and asks for it from then on. A reply sent unstamped (a refusal's:
 * sk_msg.unstamped) on a socket that stamps every send leaves no report
 * on the error queue and takes no OPT_ID key: the stamped send after it
 * is reported under the key the transport gave it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "missing.h"
#include "skbatch.h"
#include "sock.h"
#include "tap.h"
#include "transport.h"
#include "ts.h"

#define FLOOD 200

static void test_wrap(void)
{
	struct sk s;

	memset(&s, 0, sizeof(s));
	sk_drops_seen(&s, 5);
	is_u64(s.drops, 5, "drops: first count 5 from 0");
	sk_drops_seen(&s, 5);
	is_u64(s.drops, 5, "drops: the same count again adds nothing");
	sk_drops_seen(&s, 0xfffffffe);
	sk_drops_seen(&s, 3);
	is_u64(s.drops, 0xfffffffeULL + 5, "drops: the u32 wraps, the total goes on");
}

/* A socket bound to loopback, connected to itself, as sk_configure leaves it. */
static int self_socket(struct sk *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (s->fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sk_sockopt_int(s->fd, SOL_SOCKET, SO_RXQ_OVFL, 1) ||
	    sk_sockopt_int(s->fd, SOL_SOCKET, SO_RCVBUF, 1) ||	/* the minimum */
	    bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s->fd, (struct sockaddr *)&a, &alen) ||
	    connect(s->fd, (struct sockaddr *)&a, sizeof(a))) {
		close(s->fd);
		return -1;
	}
	return 0;
}

static void test_overflow(void)
{
	char buf[256], payload[200];
	struct sk_msg m;
	struct sk s;
	uint64_t got = 0, first_pass;
	int sent = 0;

	if (self_socket(&s)) {
		skip(5, "no loopback UDP socket here");
		return;
	}
	memset(payload, 0x5a, sizeof(payload));
	for (int i = 0; i < FLOOD; i++)
		sent += send(s.fd, payload, sizeof(payload), MSG_DONTWAIT) ==
			(ssize_t)sizeof(payload);
	while (sk_recv(&s, buf, sizeof(buf), &m, false, false) == 0)
		got++;
	first_pass = s.drops;
	ok(got > 0 && got < FLOOD, "a tiny queue held %" PRIu64 " of %d datagrams", got, sent);
	/* Drops after the last queued datagram come with no datagram. */
	is_u64(first_pass, 0, "the datagrams queued before the drops carry no count");
	is_u64(sk_drops(&s), (uint64_t)sent - got, "sk_drops() (SO_MEMINFO): received + dropped = sent");
	/* One more datagram, now that the queue is empty, carries the count. */
	s.drops = 0;
	s.drops_raw = 0;
	sent += send(s.fd, payload, sizeof(payload), MSG_DONTWAIT) == (ssize_t)sizeof(payload);
	ok(sk_recv(&s, buf, sizeof(buf), &m, false, false) == 0, "the next datagram is received");
	got++;
	is_u64(s.drops, (uint64_t)sent - got, "its SO_RXQ_OVFL cmsg holds every drop (%" PRIu64 ")",
	       s.drops);
	close(s.fd);
}

/* One datagram to itself, received: 0, or -1 (m filled). */
static int echo(struct sk *s, struct sk_msg *m)
{
	char buf[64] = "ping";

	if (send(s->fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return -1;
	return sk_recv(s, buf, sizeof(buf), m, false, true);
}

static void test_ask_dst(void)
{
	static const uint8_t lo[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
	struct sk_msg m;
	struct sk s;

	if (self_socket(&s)) {
		skip(4, "no loopback UDP socket here");
		return;
	}
	s.family = AF_INET;
	s.dst_watched = true;	/* addrwatch_start() */
	ok(echo(&s, &m) == 0 && !m.dst_known && !s.want_dst,
	   "watched, not asked: no destination, none wanted");
	is_int(sk_ask_dst(s.fd, s.family), 0, "sk_ask_dst: IP_PKTINFO asked for while it runs");
	ok(echo(&s, &m) == 0 && m.dst_known && !memcmp(m.dst, lo, 16),
	   "the next datagram's destination read (127.0.0.1, mapped): its reply leaves from it");
	ok(s.want_dst, "and asked for from then on (the fast path reads it)");
	close(s.fd);
}

/* The error queue's reports now, up to max into tx: how many. */
static unsigned int reports(struct sk *s, struct ts_tx *tx, unsigned int max)
{
	unsigned int n = 0, got;

	/* a send on loopback is stamped before sendto() returns; a moment
	 * more for a loaded machine */
	usleep(20000);
	do {
		got = sk_tx_read_batch(s, tx + n, max - n);
		n += got;
	} while (got && n < max);
	return n;
}

static void test_unstamped(void)
{
	struct ts_tx tx[8];
	struct sk_msg to = { .tos_out = -1 };
	char buf[64] = "pong";
	uint32_t key = 99;
	unsigned int n, snd = 0;
	bool keyed = true;
	struct sk s;

	if (self_socket(&s) || sk_sockopt_int(s.fd, SOL_SOCKET, SO_RCVBUF, 1 << 16) ||
	    ts_sock_enable(s.fd, false, true)) {
		skip(5, "no loopback UDP socket with SO_TIMESTAMPING here");
		return;
	}
	to.src_len = sizeof(struct sockaddr_in);
	getsockname(s.fd, (struct sockaddr *)&to.src, &to.src_len);
	to.unstamped = true;
	for (int i = 0; i < 3; i++)
		if (transport_udp.send(&s, buf, sizeof(buf), &to, &key))
			keyed = false;
	ok(keyed, "three unstamped replies sent");
	is_u64(s.tx_key, 0, "they took no OPT_ID key");
	is_u64(reports(&s, tx, 8), 0, "and left no report on the error queue");
	to.unstamped = false;
	is_int(transport_udp.send(&s, buf, sizeof(buf), &to, &key), 0, "a stamped reply sent");
	n = reports(&s, tx, 8);
	for (unsigned int i = 0; i < n; i++) {
		snd += tx[i].type == SCM_TSTAMP_SND;
		keyed &= tx[i].key == key;
	}
	ok(n >= 1 && snd == 1 && keyed && key == 0,
	   "its reports (%u, one SND) carry its key %u, the kernel's count of stamped sends",
	   n, key);
	close(s.fd);
}

int main(void)
{
	test_wrap();
	test_overflow();
	test_ask_dst();
	test_unstamped();
	return done_testing();
}
