/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/session.h: sessions keyed by sender address, port and id; a full
 * table evicts only idle sessions; statistics per session.
 */
#include <arpa/inet.h>
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
	struct sockaddr_in a = v4("10.0.0.1", 1), b = v4("10.0.0.1", 2), c = v4("10.0.0.1", 3);
	const struct sockaddr_in *first;
	struct session *s;
	bool fresh;

	get(t, &a, 1, 0, &fresh);
	get(t, &b, 1, 5 * SEC, &fresh);
	ok(!get(t, &c, 1, 6 * SEC, &fresh), "a full table of live sessions refuses a new one");
	is_u64(sessions_refused(t), 1, "counted as refused");
	s = get(t, &c, 1, 11 * SEC, &fresh);
	ok(s && fresh, "once one is idle 10 s, a new one takes its place");
	is_u64(sessions_evicted(t), 1, "counted as evicted");
	first = (const struct sockaddr_in *)&sessions_at(t, 0)->addr;
	is_int(ntohs(first->sin_port), 2, "the idlest (port 1) went; port 2 is first now");
	ok(sessions_at(t, 1) == s, "the newcomer is last");
	s = get(t, &b, 1, 12 * SEC, &fresh);
	ok(s && !fresh, "the survivor is still found");
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

int main(void)
{
	test_keys();
	test_full();
	test_stats_and_names();
	return done_testing();
}
