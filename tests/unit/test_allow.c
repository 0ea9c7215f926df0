/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/allow.h: --allow prefixes parsed (bare addresses, lengths, host
 * bits, the bound) and matched against IPv4, IPv6 and IPv4-mapped IPv6
 * senders.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "allow.h"
#include "tap.h"

static struct sockaddr_storage ss;

static const struct sockaddr *v4(const char *ip)
{
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	a->sin_family = AF_INET;
	a->sin_port = htons(4000);
	inet_pton(AF_INET, ip, &a->sin_addr);
	return (const struct sockaddr *)&ss;
}

static const struct sockaddr *v6(const char *ip)
{
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(4000);
	inet_pton(AF_INET6, ip, &a->sin6_addr);
	return (const struct sockaddr *)&ss;
}

/* A list of the given prefixes (each must parse). */
static struct allow_list list_of(const char *const *pfx)
{
	struct allow_list l = { .n = 0 };
	char msg[256];

	for (; *pfx; pfx++)
		if (allow_add(&l, *pfx, msg, sizeof(msg)))
			diag("%s: %s", *pfx, msg);
	return l;
}

static void test_parse(void)
{
	struct allow_prefix p;
	char msg[256], s[64];

	ok(!allow_parse("10.1.2.3", &p, msg, sizeof(msg)) && p.family == AF_INET && p.len == 32,
	   "a bare IPv4 address is a /32");
	ok(!allow_parse("fd00::1", &p, msg, sizeof(msg)) && p.family == AF_INET6 && p.len == 128,
	   "a bare IPv6 address is a /128");
	ok(!allow_parse("10.1.0.0/16", &p, msg, sizeof(msg)) && p.len == 16, "10.1.0.0/16");
	allow_str(&p, s, sizeof(s));
	is_str(s, "10.1.0.0/16", "printed back as given");
	ok(!allow_parse("0.0.0.0/0", &p, msg, sizeof(msg)) && p.len == 0, "/0: every IPv4 address");
	ok(!allow_parse("::ffff:10.1.0.0/112", &p, msg, sizeof(msg)) &&
	   p.family == AF_INET && p.len == 16, "an IPv4-mapped IPv6 prefix is the IPv4 prefix it maps");

	ok(allow_parse("10.1.2.3/16", &p, msg, sizeof(msg)), "host bits past the length: refused");
	ok(strstr(msg, "give the network, 10.1.0.0/16") != NULL, "naming the network: %s", msg);
	ok(allow_parse("fd00::1/64", &p, msg, sizeof(msg)) && strstr(msg, "fd00::/64"),
	   "the same for IPv6: %s", msg);
	ok(allow_parse("10.1.0.0/33", &p, msg, sizeof(msg)) && strstr(msg, "0 to 32"),
	   "an IPv4 length past 32: %s", msg);
	ok(allow_parse("fd00::/129", &p, msg, sizeof(msg)) && strstr(msg, "0 to 128"),
	   "an IPv6 length past 128");
	ok(allow_parse("10.1.0.0/", &p, msg, sizeof(msg)), "an empty length");
	ok(allow_parse("10.1.0.0/+8", &p, msg, sizeof(msg)), "a signed length");
	ok(allow_parse("10.1.0.0/8x", &p, msg, sizeof(msg)), "junk after the length");
	ok(allow_parse("host.example", &p, msg, sizeof(msg)) &&
	   strstr(msg, "not an IPv4 or IPv6 address"), "a name: %s", msg);
	ok(allow_parse("", &p, msg, sizeof(msg)), "an empty prefix");
	ok(allow_parse("10.1.2", &p, msg, sizeof(msg)), "a partial address");
	ok(allow_parse("fd00::1%eth0/64", &p, msg, sizeof(msg)), "a scope");
}

static void test_bound(void)
{
	struct allow_list l = { .n = 0 };
	char msg[256], pfx[32];
	int fails = 0;

	for (int i = 0; i < ALLOW_MAX; i++) {
		snprintf(pfx, sizeof(pfx), "10.0.%d.0/24", i);
		fails += allow_add(&l, pfx, msg, sizeof(msg)) != 0;
	}
	is_int(fails, 0, "%d prefixes are taken", ALLOW_MAX);
	ok(allow_add(&l, "10.9.9.9", msg, sizeof(msg)) && strstr(msg, "more than 32"),
	   "one more is refused: %s", msg);
	is_int(l.n, ALLOW_MAX, "the list is unchanged");
	ok(allow_match(&l, v4("10.0.31.7")) && !allow_match(&l, v4("10.0.32.7")),
	   "the last one kept matches, the refused one does not");
}

static void test_match(void)
{
	static const char *const none[] = { NULL };
	static const char *const mixed[] = { "10.1.0.0/16", "fd00::/64", "192.168.7.9",
					     "172.16.0.0/12", NULL };
	static const char *const odd[] = { "10.128.0.0/9", "fe80::/10", NULL };
	struct allow_list l = list_of(none);

	ok(allow_match(&l, v4("203.0.113.1")) && allow_match(&l, v6("2001:db8::1")),
	   "no --allow: everyone may talk");
	l = list_of(mixed);
	is_int(l.n, 4, "four prefixes");
	ok(allow_match(&l, v4("10.1.255.254")), "10.1.255.254 is in 10.1.0.0/16");
	ok(!allow_match(&l, v4("10.2.0.1")), "10.2.0.1 is not");
	ok(allow_match(&l, v4("192.168.7.9")), "the single address matches");
	ok(!allow_match(&l, v4("192.168.7.8")), "its neighbour does not");
	ok(allow_match(&l, v4("172.31.255.255")) && !allow_match(&l, v4("172.32.0.0")),
	   "a /12 ends where it should");
	ok(allow_match(&l, v6("fd00::1234:5678")), "fd00::1234:5678 is in fd00::/64");
	ok(!allow_match(&l, v6("fd00:0:0:1::1")), "fd00:0:0:1::1 is not");
	ok(allow_match(&l, v6("::ffff:10.1.2.3")), "an IPv4-mapped sender matches its IPv4 prefix");
	ok(!allow_match(&l, v6("::ffff:10.2.2.3")), "and not outside it");
	ok(!allow_match(&l, v6("::a01:203")), "an IPv4-compatible (not mapped) address is IPv6");
	l = list_of(odd);
	ok(allow_match(&l, v4("10.200.0.1")) && !allow_match(&l, v4("10.127.255.255")),
	   "a length that is not a whole byte (/9)");
	ok(allow_match(&l, v6("febf::1")) && !allow_match(&l, v6("fec0::1")),
	   "the same for IPv6 (/10)");
	ss.ss_family = AF_UNIX;
	ok(!allow_match(&l, (const struct sockaddr *)&ss), "another family never matches a list");
}

int main(void)
{
	test_parse();
	test_bound();
	test_match();
	return done_testing();
}
