/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/admit/session.h: sessions keyed by sender address, port and id (under
 * --key by the id alone); a full table evicts the idle, then the least
 * used; one address holds at most its share; replays refused; statistics
 * per session.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "tap.h"

#define SEC 1000000000LL

static struct sockaddr_in v4(const char *ip, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static struct session *get(struct sessions *t, const struct sockaddr_in *a,
			   uint32_t id, int64_t now, bool *fresh)
{
	return sessions_get(t, (const struct sockaddr *)a, sizeof(*a), id, now, fresh);
}

static void test_keys(void)
{
	struct sessions *t = sessions_create(8, false);
	struct sockaddr_in a = v4("10.0.0.1", 4000), b = v4("10.0.0.1", 4001);
	struct sockaddr_in c = v4("10.0.0.2", 4000);
	struct session *s1, *s;
	bool fresh;

	s1 = get(t, &a, 7, 1, &fresh);
	ok(s1 && fresh, "a first ping starts a session");
	s1->last_seq = 100;
	s = get(t, &a, 7, 2, &fresh);
	ok(s == s1 && !fresh, "the same sender and id find it again");
	s = get(t, &b, 7, 3, &fresh);
	ok(s && s != s1 && fresh, "the same id from another port is another session");
	is_u64(s->last_seq, 0, "and cannot see or touch the first one's state");
	s = get(t, &c, 7, 4, &fresh);
	ok(s && s != s1 && fresh, "the same id from another address is another session");
	s = get(t, &a, 8, 5, &fresh);
	ok(s && s != s1 && fresh, "another id from the same sender is another session");
	is_u64(s1->last_seq, 100, "the first session's state is intact");
	is_u64(sessions_count(t), 4, "four sessions");
	is_u64(sessions_started(t), 4, "four started");
	ok(sessions_at(t, 0) == s1, "kept in start order");
	sessions_destroy(t);
}

static void test_full(void)
{
	struct sessions *t = sessions_create(2, false);
	struct sockaddr_in a = v4("10.0.0.1", 1), b = v4("10.0.0.2", 2), c = v4("10.0.0.3", 3);
	const struct sockaddr_in *first;
	struct session *s;
	bool fresh;

	get(t, &a, 1, 0, &fresh);
	get(t, &b, 1, 5 * SEC, &fresh);
	s = get(t, &c, 1, 11 * SEC, &fresh);
	ok(s && fresh, "once one is idle 10 s, a new one takes its place");
	is_u64(sessions_evicted(t), 1, "counted as evicted");
	is_u64(sessions_refused(t), 0, "nothing refused");
	first = (const struct sockaddr_in *)&sessions_at(t, 0)->addr;
	is_int(ntohs(first->sin_port), 2, "the idle one (port 1) went; port 2 is first now");
	ok(sessions_at(t, 1) == s, "the newcomer is last");
	s = get(t, &b, 1, 12 * SEC, &fresh);
	ok(s && !fresh, "the survivor is still found");
	is_u64(sessions_senders(t), 1, "one address turned away");
	is_u64(sessions_sender_at(t, 0)->evicted, 1, "10.0.0.1 evicted once");
	sessions_destroy(t);
}

/* A pointer kept across an eviction (the reflector's pong awaiting its
 * TX stamp) finds its session again, or NULL when that session was the
 * one evicted; a session's follow-ups come out in order. */
static void test_still(void)
{
	struct sessions *t = sessions_create(3, false);
	struct sockaddr_in a = v4("10.0.0.1", 1), b = v4("10.0.0.2", 2), c = v4("10.0.0.3", 3);
	struct sockaddr_in d = v4("10.0.0.4", 4);
	struct session *sa, *sc, *sd, *now;
	struct session_fu fu;
	uint64_t oa, oc;
	bool fresh;

	sa = get(t, &a, 1, 0, &fresh);
	get(t, &b, 1, 1 * SEC, &fresh);
	sc = get(t, &c, 1, 2 * SEC, &fresh);
	oa = sa->ordinal;
	oc = sc->ordinal;
	ok(sessions_still(t, sc, oc) == sc, "no eviction: the kept pointer is the session");
	sd = get(t, &d, 1, 12 * SEC, &fresh);
	ok(sd && fresh && sessions_evicted(t) == 1, "a newcomer evicted the idlest (10.0.0.1)");
	ok(sc->ordinal != oc, "the kept pointer of 10.0.0.3 now points at another session");
	now = sessions_still(t, sc, oc);
	ok(now && now->ordinal == oc && now == sessions_at(t, 1),
	   "... and its session is found again where it moved");
	ok(sessions_still(t, sa, oa) == NULL, "the evicted session's pointer gives NULL");

	session_fu_put(now, &(struct session_fu){ 5, 2, 100 });
	session_fu_put(now, &(struct session_fu){ 9, 3, 200 });
	ok(session_fu_take(now, &fu) && fu.seq == 5 && fu.pong_no == 2 && fu.t3 == 100,
	   "follow-ups: the oldest first, with its pong's number");
	ok(session_fu_take(now, &fu) && fu.seq == 9 && fu.pong_no == 3 && fu.t3 == 200,
	   "  then the next");
	ok(!session_fu_take(now, &fu), "  then none");
	for (int i = 0; i <= SESSION_FU; i++)
		session_fu_put(now, &(struct session_fu){ 10 + (uint64_t)i, (uint64_t)i, i });
	ok(now->fu_dropped == 1 && session_fu_take(now, &fu) && fu.seq == 11 && fu.pong_no == 1,
	   "a full queue drops its oldest, counted");
	sessions_destroy(t);
}

/* 64 hoarders from 64 addresses, each a ping every 2 s, fill the table;
 * an emitter pinging every 10 ms comes: it gets a slot at once and keeps
 * it while the hoarders go on (each of theirs takes a hoarder's slot). */
static void test_hoarders(void)
{
	struct sessions *t = sessions_create(64, false);
	struct sockaddr_in e = v4("10.1.0.1", 9000), h[64];
	struct session *s;
	int64_t now = 0;
	bool fresh, first = false, kept = true;
	char ip[32];

	sessions_guard(t, SESSION_PER_ADDR_DEFAULT, 0, NULL);
	for (int i = 0; i < 64; i++) {
		snprintf(ip, sizeof(ip), "10.2.0.%d", i + 1);
		h[i] = v4(ip, 4000);
	}
	for (now = 0; now < 4 * SEC; now += 2 * SEC / 64)
		get(t, &h[(now / (2 * SEC / 64)) % 64], 1, now, &fresh);
	is_u64(sessions_count(t), 64, "64 hoarders fill the table");
	for (int k = 0; k < 1000; k++, now += 10 * SEC / 1000) {
		s = get(t, &e, 7, now, &fresh);
		if (!k)
			first = s && fresh;
		else	/* a slot moves when one before it goes: compare the id */
			kept &= s && s->id == 7 && !fresh;
		if (k % 3 == 0)	/* ~ a hoarder every 31 ms */
			get(t, &h[(k / 3) % 64], 2, now + 1, &fresh);
	}
	ok(first, "the emitter's first ping got a session in a full table");
	ok(kept, "and all its 1000 pings found it while the hoarders churned");
	ok(sessions_evicted(t) > 300, "the hoarders evicted one another (%llu)",
	   (unsigned long long)sessions_evicted(t));
	is_u64(sessions_refused(t), 0, "nobody was refused");
	sessions_destroy(t);
}

/* One address holds at most per_addr sessions: a fifth is refused while
 * its four are live, takes an idle one's slot after 10 s; other
 * addresses still come in. */
static void test_per_address(void)
{
	struct sessions *t = sessions_create(8, false);
	struct sockaddr_in x = v4("10.0.0.9", 1), y = v4("10.0.0.8", 1);
	char buf[64];
	bool fresh;

	sessions_guard(t, 4, 0, NULL);
	for (uint16_t p = 1; p <= 4; p++) {
		x.sin_port = htons(p);
		get(t, &x, 1, p, &fresh);
	}
	x.sin_port = htons(5);
	ok(!get(t, &x, 1, 5, &fresh), "a fifth session from one address is refused");
	is_u64(sessions_refused(t), 1, "counted refused");
	ok(get(t, &y, 1, 6, &fresh) && fresh, "another address still gets a slot");
	x.sin_port = htons(2);
	get(t, &x, 1, 10 * SEC, &fresh);
	x.sin_port = htons(5);
	ok(get(t, &x, 1, 10 * SEC + 2, &fresh) && fresh,
	   "once one of its own is idle 10 s, its newcomer takes that slot");
	is_u64(sessions_count(t), 5, "four of that address and one other");
	session_sockaddr_str(&sessions_sender_at(t, 0)->addr, false, buf, sizeof(buf));
	is_str(buf, "10.0.0.9", "the turned-away address, without a port");
	is_u64(sessions_sender_at(t, 0)->refused, 1, "refused once");
	is_u64(sessions_sender_at(t, 0)->evicted, 1, "evicted once");
	sessions_destroy(t);
}

/* --tcp: a closed connection's session gives its slot up at once, to
 * its own address's next connection (--max-sessions-per-address 1) and
 * first in a full table; a ping from the same port later finds it again,
 * no longer closed. */
static void test_closed(void)
{
	struct sessions *t = sessions_create(2, false);
	struct sockaddr_in a1 = v4("10.0.0.9", 5001), a2 = v4("10.0.0.9", 5002);
	struct sockaddr_in b = v4("10.0.0.8", 6001), c = v4("10.0.0.7", 7001);
	struct session *s;
	bool fresh;

	sessions_guard(t, 1, 0, NULL);
	get(t, &a1, 1, SEC, &fresh);
	ok(!get(t, &a2, 2, 2 * SEC, &fresh), "the address's second connection, the first open: refused");
	sessions_closed(t, (const struct sockaddr *)&b);
	ok(!get(t, &a2, 2, 2 * SEC, &fresh), "another address's close frees nothing");
	sessions_closed(t, (const struct sockaddr *)&a1);
	s = get(t, &a2, 2, 2 * SEC, &fresh);
	ok(s && fresh && sessions_count(t) == 1 && s->ordinal == 2,
	   "the first closed: the second takes its slot at once, not 10 s later");
	get(t, &b, 3, 3 * SEC, &fresh);
	sessions_closed(t, (const struct sockaddr *)&b);
	s = get(t, &c, 4, 3 * SEC, &fresh);
	ok(s && fresh && sessions_count(t) == 2 && sessions_at(t, 0)->id == 2,
	   "a full table evicts the closed one, not the live one used less lately");
	sessions_closed(t, (const struct sockaddr *)&a2);
	s = get(t, &a2, 2, 4 * SEC, &fresh);
	ok(s && !fresh && !s->closed, "a later ping from the closed port: found again, open");
	sessions_destroy(t);
}

/* admit: a keyed ping of p's id and seq from a, T1_SW t1, at now (both
 * clocks). */
static struct session *admit(struct sessions *t, const struct sockaddr_in *a, uint32_t id,
			     uint64_t seq, int64_t t1, int64_t now, enum session_verdict *v)
{
	struct session_ping p = { (const struct sockaddr *)a, sizeof(*a), id, seq, t1 };

	return sessions_admit(t, &p, now, now, v);
}

/* --key: the id is the key; replays from anywhere are refused and
 * counted; an evicted session's old seqs stay refused. */
static void test_keyed(void)
{
	struct sessions *t = sessions_create(2, false);
	struct sockaddr_in a = v4("10.0.0.1", 1), b = v4("10.0.0.1", 2), c = v4("10.0.0.3", 3);
	struct session *s1;
	enum session_verdict v;

	sessions_guard(t, 0, 2 * SEC, NULL);
	s1 = admit(t, &a, 7, 1, 100 * SEC, 100 * SEC, &v);
	ok(s1 && v == SESSION_NEW, "a keyed ping starts a session");
	ok(admit(t, &a, 7, 2, 100 * SEC, 100 * SEC, &v) == s1 && v == SESSION_FOUND, "seq 2 finds it");
	ok(!admit(t, &a, 7, 2, 100 * SEC, 100 * SEC, &v) && v == SESSION_REPLAYED,
	   "seq 2 again from the same port: a replay");
	ok(!admit(t, &b, 7, 1, 100 * SEC, 100 * SEC, &v) && v == SESSION_REPLAYED,
	   "its id and an answered seq from another port: a replay, no second session");
	is_u64(sessions_count(t), 1, "one session");
	ok(!admit(t, &a, 7, 3, 97 * SEC, 100 * SEC, &v) && v == SESSION_REPLAYED,
	   "T1_SW 3 s old with a 2 s window: refused");
	ok(!admit(t, &a, 7, 3, 103 * SEC, 100 * SEC, &v) && v == SESSION_REPLAYED,
	   "T1_SW 3 s ahead: refused");
	ok(admit(t, &a, 7, 3, 98 * SEC, 100 * SEC, &v) == s1, "2 s old: answered");
	is_u64(sessions_replayed(t), 4, "four replays counted");
	ok(admit(t, &b, 7, 4, 100 * SEC, 100 * SEC, &v) == s1 && v == SESSION_FOUND,
	   "a new seq from another port (a reconnection): the session moves there");
	is_u64(sessions_count(t), 1, "and is still one session");
	ok(!admit(t, &a, 7, 4, 100 * SEC, 100 * SEC, &v) && v == SESSION_REPLAYED,
	   "seq 4 back from the first port: a replay");
	admit(t, &b, 8, 1, 101 * SEC, 101 * SEC, &v);
	admit(t, &c, 9, 1, 120 * SEC, 120 * SEC, &v);
	is_u64(sessions_evicted(t), 1, "a third session evicted the idle one (id 7)");
	is_u64(sessions_count(t), 2, "two sessions");
	ok(!admit(t, &c, 7, 3, 120 * SEC, 120 * SEC, &v) && v == SESSION_REPLAYED,
	   "a seq the evicted session was answered: still a replay");
	ok(admit(t, &a, 7, 5, 120 * SEC, 120 * SEC, &v) && v == SESSION_NEW,
	   "its next seq: the emitter is back");
	is_u64(sessions_sender_at(t, 0)->replayed, 5, "10.0.0.1 replayed 5");
	is_u64(sessions_sender_at(t, 0)->evicted, 2, "and its two sessions were evicted in turn");
	is_u64(sessions_sender_at(t, 1)->replayed, 1, "10.0.0.3 replayed once");
	sessions_destroy(t);
}

static void test_stats_and_names(void)
{
	struct sessions *t = sessions_create(4, false);
	struct sockaddr_in a = v4("192.0.2.1", 5000);
	struct sockaddr_in6 m = { .sin6_family = AF_INET6, .sin6_port = htons(6000) };
	struct session *s;
	char buf[80];
	bool fresh;

	s = get(t, &a, 1, 0, &fresh);
	session_response(s, 300);
	session_response(s, 100);
	session_response(s, 200);
	is_u64(s->resp_n, 3, "three responses");
	is_i64(s->resp_min, 100, "min 100");
	is_i64(s->resp_max, 300, "max 300");
	is_dbl(s->resp_sum / (double)s->resp_n, 200.0, 1e-9, "avg 200");
	session_addr_str(s, buf, sizeof(buf));
	is_str(buf, "192.0.2.1 port 5000", "IPv4 address and port");
	inet_pton(AF_INET6, "::ffff:192.0.2.9", &m.sin6_addr);
	s = sessions_get(t, (const struct sockaddr *)&m, sizeof(m), 2, 0, &fresh);
	session_addr_str(s, buf, sizeof(buf));
	is_str(buf, "192.0.2.9 port 6000", "an IPv4-mapped sender shows as IPv4");
	inet_pton(AF_INET6, "fd77::1", &m.sin6_addr);
	s = sessions_get(t, (const struct sockaddr *)&m, sizeof(m), 2, 0, &fresh);
	session_addr_str(s, buf, sizeof(buf));
	is_str(buf, "fd77::1 port 6000", "IPv6");
	sessions_destroy(t);
}

/* A live snapshot of a full table: the sessions in it, their ordinals. */
static void test_live(void)
{
	struct sessions *t = sessions_create(2, false);
	struct sockaddr_in a = v4("10.0.0.1", 1), b = v4("10.0.0.2", 2), c = v4("10.0.0.3", 3);
	struct sessions_snap ss;
	bool fresh;

	get(t, &a, 1, 0, &fresh)->received = 10;
	get(t, &b, 2, 5 * SEC, &fresh)->received = 20;
	get(t, &c, 3, 11 * SEC, &fresh)->sent = 30;
	ok(!sessions_snapshot_live(t, &ss), "a live snapshot");
	is_u64(ss.n, 2, "of the two sessions in the table");
	ok(ss.n == 2 && ss.v[0].id == 2 && ss.v[0].received == 20 && ss.v[0].ordinal == 2,
	   "the second session, its count, its ordinal");
	ok(ss.n == 2 && ss.v[1].id == 3 && ss.v[1].sent == 30 && ss.v[1].ordinal == 3,
	   "the third");
	is_u64(ss.evicted, 1, "one evicted");
	sessions_snap_free(&ss);
	get(t, &a, 1, 22 * SEC, &fresh);
	ok(fresh && sessions_at(t, 1)->ordinal == 4, "the first come back is a new session (4)");
	sessions_destroy(t);
}

#define CHURN 200000
#define CHURN_SEEN 20	/* snapshots the reader must have taken */

struct churn {
	struct sessions *t;
	atomic_bool done;
	atomic_uint taken;
};

/* Sessions k = 1, 2, ... each from port k with id k, each evicting the
 * oldest of a full table, its counters set to k. At least CHURN of them,
 * then on (yielding now and then) until the reader has taken CHURN_SEEN
 * snapshots: on a loaded machine the reader may not have run at all
 * during the first CHURN. */
static void *churn_main(void *arg)
{
	struct churn *c = arg;
	bool fresh;

	for (uint32_t k = 1; k <= CHURN || (atomic_load(&c->taken) < CHURN_SEEN &&
					    k <= 100 * CHURN); k++) {
		if (k > CHURN && !(k % 1024))
			sched_yield();

		struct sockaddr_in a = v4("10.0.0.1", (uint16_t)k);
		struct session *s = get(c->t, &a, k, (int64_t)k * 11 * SEC, &fresh);

		s->received = k;
		s->sent = k;
	}
	atomic_store(&c->done, true);
	return NULL;
}

/* Whether a snapshot's sessions are whole: id, port, ordinal and counts
 * of one session each (0 counts: just started). */
static bool whole(const struct sessions_snap *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		const struct session *x = &ss->v[i];
		const struct sockaddr_in *a = (const struct sockaddr_in *)&x->addr;

		if (x->ordinal != x->id || ntohs(a->sin_port) != (x->id & 0xffff) ||
		    (x->received && x->received != x->id) || (x->sent && x->sent != x->id))
			return false;
	}
	return true;
}

/* Live snapshots while another thread starts and evicts sessions: each
 * one a consistent table (the seqlock), or none (-EAGAIN). */
static void test_live_race(void)
{
	struct churn c = { .t = sessions_create(8, false) };
	unsigned int taken = 0, torn = 0, again = 0;
	struct sessions_snap ss;
	pthread_t th;

	pthread_create(&th, NULL, churn_main, &c);
	while (!atomic_load(&c.done)) {
		int ret = sessions_snapshot_live(c.t, &ss);

		if (ret) {
			again += ret == -EAGAIN;
			continue;
		}
		taken++;
		atomic_store(&c.taken, taken);
		torn += !whole(&ss);
		sessions_snap_free(&ss);
	}
	pthread_join(th, NULL);
	ok(taken > 10, "snapshots taken during the churn (%u, %u gave up)", taken, again);
	is_int(torn, 0, "none of them torn");
	sessions_destroy(c.t);
}

int main(void)
{
	test_live();
	test_live_race();
	test_keys();
	test_full();
	test_still();
	test_hoarders();
	test_per_address();
	test_closed();
	test_keyed();
	test_stats_and_names();
	return done_testing();
}
