/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/net/txpend.h: the sends awaiting their TX stamps. The table alone: keys
 * found by binary search across the u32 wrap, full at its size, retired
 * in order, the oldest holding the others until its cap, the deadline.
 * Then with a real loopback socket (where the sandbox allows one) that
 * stamps its sends: every stamp harvested to its send whenever it is
 * read, SCHED and SND; a send whose reports were lost is given up as an
 * error-queue overflow (a later send's came), one that entered the qdisc
 * and never left as dropped, one that nothing follows as a timeout.
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "missing.h"
#include "tap.h"
#include "timeutil.h"
#include "txpend.h"

struct seen {
	int n;
	uint32_t key[16];
	enum txpend_end why[16];
	int stop_at;		/* return 1 for the entry of this key, -1: never */
};

static int done(void *ctx, struct txpend_entry *e, enum txpend_end why)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		s->key[s->n] = e->key;
		s->why[s->n] = why;
	}
	s->n++;
	return s->stop_at >= 0 && e->key == (uint32_t)s->stop_at;
}

static void test_table(void)
{
	struct txpend *p = txpend_create(5, 1000, false);	/* 16 entries */
	struct seen s = { .stop_at = -1 };
	uint32_t k0 = 0xfffffff0u;
	int pushed = 0;

	if (!ok(p != NULL, "create"))
		return;
	for (uint32_t i = 0; i < 16; i++)
		pushed += txpend_push(p, k0 + i * 72, 100) != NULL;
	is_int(pushed, 16, "16 sends held (5 rounded up to 16), keys across the u32 wrap");
	ok(txpend_push(p, k0 + 16 * 72, 100) == NULL, "the 17th: full");
	ok(txpend_find(p, k0 + 5 * 72) && txpend_find(p, k0 + 5 * 72)->key == k0 + 5 * 72,
	   "a key past the wrap found");
	ok(txpend_find(p, k0 + 5 * 72 + 1) == NULL, "a key between two sends: none");
	is_int(txpend_retire(p, 1100, done, &s), 0, "nothing past its cap at 1100");
	is_int(s.n, 0, "so nothing retired");
	is_i64(txpend_deadline(p), 1100, "deadline: the oldest's send + cap");
	txpend_evict(p, done, &s);
	ok(s.n == 1 && s.key[0] == k0 && s.why[0] == TXPEND_FULL, "evict: the oldest, table full");
	is_int((int)txpend_len(p), 15, "15 left");
	s.stop_at = (int)(k0 + 3 * 72);
	is_int(txpend_retire(p, 1101, done, &s), 1, "past the cap: retired until one says stop");
	ok(s.n == 4 && s.why[1] == TXPEND_TIMEOUT, "3 more, as timeouts");
	s.stop_at = -1;
	txpend_flush(p, done, &s);
	is_int((int)txpend_len(p), 0, "flush: all retired");
	is_i64(txpend_deadline(p), INT64_MAX, "empty: no deadline");
	txpend_destroy(p);
}

/* A loopback UDP socket connected to itself, stamping its sends. */
static int stamped_socket(struct sk *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (s->fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s->fd, (struct sockaddr *)&a, &alen) ||
	    connect(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    ts_sock_enable(s->fd, false, true)) {
		close(s->fd);
		return -1;
	}
	return 0;
}

static int stamp_calls;

static void stamped(void *ctx, struct txpend_entry *e)
{
	(void)ctx;
	(void)e;
	stamp_calls++;
}

/* Read the error queue until n reports were read (or 1 s). */
static unsigned int harvest_n(struct txpend *p, struct sk *s, unsigned int n)
{
	unsigned int got = 0;

	for (int i = 0; i < 1000 && got < n; i++) {
		struct timespec ms = { 0, 1000000 };

		got += txpend_harvest(p, s, stamped, NULL);
		if (got < n)
			nanosleep(&ms, NULL);
	}
	return got;
}

static void test_socket(void)
{
	struct seen s = { .stop_at = -1 };
	struct txpend *p;
	struct txpend_entry *e;
	struct sk sk;
	char buf[64] = "x", cm[256];
	struct msghdr drain = { .msg_control = cm };

	if (stamped_socket(&sk)) {
		skip(12, "no loopback UDP socket with timestamping here");
		return;
	}
	p = txpend_create(16, 60LL * NS_PER_SEC, false);
	/* Key 0's reports are read and thrown away: lost, as an error queue
	 * that overflowed loses them. */
	send(sk.fd, buf, 8, 0);
	for (int i = 0, n = 0; i < 1000 && n < 2; i++) {	/* SCHED and SND */
		struct timespec ms = { 0, 1000000 };

		drain.msg_controllen = sizeof(cm);
		if (recvmsg(sk.fd, &drain, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			nanosleep(&ms, NULL);
		else
			n++;
	}
	for (uint32_t k = 0; k < 4; k++)
		txpend_push(p, k, monotonic_ns());
	txpend_find(p, 3)->sched_kn = 1;	/* entered the qdisc, per the test */
	send(sk.fd, buf, 8, 0);
	send(sk.fd, buf, 8, 0);
	is_int((int)harvest_n(p, &sk, 4), 4, "SCHED and SND of keys 1 and 2 harvested");
	e = txpend_find(p, 2);
	ok(e && e->stamped && e->snd.kn_ns > 0 && e->sched_kn > 0 && e->sched_kn <= e->snd.kn_ns,
	   "key 2: SND stamp, and its SCHED stamp before it");
	is_int(stamp_calls, 2, "the stamp callback once per SND");
	is_int((int)txpend_waiting(p), 2, "keys 0 and 3 still wait");
	/* what a reflector's report counts before the cap: key 0 entered the
	 * qdisc and a later send's stamp came (key 3's has not: not yet) */
	for (uint32_t k = 0; k < 4; k++) {
		txpend_find(p, k)->owner_tag = 7;
		txpend_find(p, k)->flags = 1;
	}
	txpend_find(p, 0)->sched_kn = 1;
	is_int((int)txpend_dropped_now(p, 7, 1), 1, "dropped now: key 0 alone (key 3: no later stamp)");
	is_int((int)txpend_dropped_now(p, 8, 1) + (int)txpend_dropped_now(p, 7, 2), 0,
	       "dropped now: another owner's, or without the flags asked: none");
	is_int((int)txpend_waiting(p), 2, "counting retired nothing");
	txpend_find(p, 0)->sched_kn = TS_NONE;
	txpend_retire(p, monotonic_ns(), done, &s);
	is_int(s.n, 0, "key 0 holds the others (its cap is 60 s)");
	txpend_flush(p, done, &s);
	ok(s.n == 4 && s.why[0] == TXPEND_OVERFLOW,
	   "key 0: a later send's stamp came first: error-queue overflow");
	ok(s.why[1] == TXPEND_STAMPED && s.why[2] == TXPEND_STAMPED, "keys 1 and 2 stamped");
	ok(s.why[3] == TXPEND_DROPPED, "key 3: in the qdisc, never out: dropped");
	txpend_push(p, 9, monotonic_ns());
	s.n = 0;
	txpend_flush(p, done, &s);
	ok(s.n == 1 && s.why[0] == TXPEND_TIMEOUT, "no later stamp, no SCHED: timeout");
	txpend_destroy(p);
	close(sk.fd);
}

int main(void)
{
	test_table();
	test_socket();
	return done_testing();
}
