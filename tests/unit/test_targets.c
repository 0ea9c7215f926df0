/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/cfg/targets.h: --targets FILE. Good lines (ports, dscp=N, comments,
 * blank lines, IPv6 bracketed or not) give their targets; each bad line
 * (a word that is neither, a DSCP out of range, no address, a target
 * twice, an IPv6 target on an IPv4 run) is reported with its line number
 * and a fix, and the file refused whole; an empty file too.
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets.h"
#include "tap.h"

static char path[] = "/tmp/rant-targets-XXXXXX";

static int load(const char *text, struct target_list *l, char *msgs, size_t len, int family)
{
	struct targets_ctx ctx = { .port = 12345, .iface = "lo",
				   .ifindex = if_nametoindex("lo"), .family = family,
				   .interval_ns = 10 * 1000000LL };
	FILE *f = fopen(path, "w"), *err = fmemopen(msgs, len, "w");
	int ret;

	fputs(text, f);
	fclose(f);
	memset(msgs, 0, len);
	ret = targets_load(path, &ctx, l, err);
	fclose(err);
	return ret;
}

int main(void)
{
	struct target_list l;
	char msgs[4096];
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	is_int(load("# the fleet\n127.0.0.2\n\n127.0.0.3 4000   # a comment\n"
		    "127.0.0.4 dscp=46 4001\n[::1] 5000\n::1 dscp=0\n", &l, msgs, sizeof(msgs), 0),
	       0, "good lines load");
	is_int(l.n, 5, "five targets");
	is_str(l.v[0].name, "127.0.0.2:12345", "the default port");
	is_int(l.v[0].dscp, -1, "the run's DSCP");
	is_str(l.v[1].name, "127.0.0.3:4000", "a port");
	is_int(l.v[1].line, 4, "its line");
	is_int(l.v[2].dscp, 46, "dscp=46 before the port");
	is_str(l.v[2].name, "127.0.0.4:4001", "and the port after it");
	is_str(l.v[3].name, "[::1]:5000", "IPv6 bracketed");
	is_str(l.v[4].name, "[::1]:12345", "IPv6 as it is");
	is_int(l.v[4].dscp, 0, "dscp=0");
	targets_free(&l);

	is_int(load("127.0.0.2\n127.0.0.2 70000\n127.0.0.3 dscp=64\nnot-an-address\n"
		    "127.0.0.2 12345\n127.0.0.5 1 2\n", &l, msgs, sizeof(msgs), 0),
	       -22, "bad lines refuse the file");
	is_int(l.n, 0, "and none loads");
	ok(strstr(msgs, ":2: '70000' is neither a port (1 to 65535, once) nor an option") != NULL,
	   "a port out of range, by line");
	ok(strstr(msgs, ":3: dscp=64: ") && strstr(msgs, "give dscp=N with N from 0 to 63"),
	   "a DSCP out of range, and its fix");
	ok(strstr(msgs, ":4: not-an-address: not an IPv4 or IPv6 address") != NULL,
	   "not an address (no '-a' in the message)");
	ok(strstr(msgs, ":5: 127.0.0.2:12345 is line 1's target again: give each once") != NULL,
	   "a target twice");
	ok(strstr(msgs, ":6: '2' is neither a port") != NULL, "two ports");
	diag("%s", msgs);
	is_int(load("127.0.0.2 name=refl\nstamp 127.0.0.2\nicmp 127.0.0.2 name=dest1 interval=200ms\n"
		    "stamp 127.0.0.3 9000 dscp=46\n", &l, msgs, sizeof(msgs), 0), 0, "kinds load");
	is_int(l.n, 4, "four targets of three kinds");
	is_int(l.v[0].kind, TARGET_RANT, "no kind word: rant");
	is_str(l.v[0].label, "refl", "name=");
	is_int(l.v[1].kind, TARGET_STAMP, "stamp");
	is_str(l.v[1].name, "127.0.0.2:862", "stamp's port 862");
	is_str(l.v[1].label, "stamp:127.0.0.2:862", "no name=: the kind and the peer");
	is_int(l.v[2].kind, TARGET_ICMP, "icmp");
	is_str(l.v[2].name, "127.0.0.2", "icmp: the address alone");
	is_int((int)(l.v[2].interval_ns / 1000000), 200, "interval=200ms");
	is_int(l.v[0].interval_ns, 0, "no interval=: the run's");
	is_str(l.v[3].name, "127.0.0.3:9000", "stamp with a port");
	is_int(l.v[3].dscp, 46, "and dscp=");
	targets_free(&l);
	is_int(load("ping 127.0.0.2\nsyn 127.0.0.2\nicmp 127.0.0.2 7\n127.0.0.2 name=\n"
		    "127.0.0.3 interval=1ms\nhttp https://127.0.0.2/\n127.0.0.4 name=a\nicmp 127.0.0.5 name=a\n"
		    "127.0.0.6 color=red\nicmp\n", &l, msgs, sizeof(msgs), 0), -22, "bad kinds refused");
	ok(strstr(msgs, ":1: 'ping' is no kind of target") != NULL, "an unknown kind");
	ok(strstr(msgs, ":2: syn without a port: give the service's") != NULL, "syn without a port");
	ok(strstr(msgs, ":3: '7': icmp takes no port") != NULL, "icmp with a port");
	ok(strstr(msgs, ":4: name=: give name=NAME, 1 to 63") != NULL, "an empty name");
	ok(strstr(msgs, ":5: interval=1ms: ") && strstr(msgs, "from the run's --interval"),
	   "an interval below the run's");
	ok(strstr(msgs, ":6: 'https://127.0.0.2/': rant sends plain HTTP/1.1, without TLS") != NULL,
	   "https refused");
	ok(strstr(msgs, ":8: name=a is line 7's name too") != NULL, "a name twice");
	ok(strstr(msgs, ":9: 'color=red': no such option") != NULL, "an unknown option");
	ok(strstr(msgs, ":10: icmp without an address") != NULL, "a kind alone");
	diag("%s", msgs);
	is_int(load("http http://127.0.0.2/\nhttp http://127.0.0.3:8080/a/b?c=d name=api\n"
		    "http http://[::1]:81\nsyn 127.0.0.2 80\nhttp http://127.0.0.5?x=1 dscp=10\n",
		    &l, msgs, sizeof(msgs), 0), 0, "http lines load");
	diag("%s", msgs);
	is_int(l.n, 5, "five targets");
	is_int(l.v[0].kind, TARGET_HTTP, "http");
	is_str(l.v[0].name, "127.0.0.2:80", "port 80 by default");
	is_str(l.v[0].path, "/", "the path");
	is_str(l.v[0].label, "http:127.0.0.2:80", "no name=: the kind and the peer");
	is_str(l.v[1].name, "127.0.0.3:8080", "the URL's port");
	is_str(l.v[1].path, "/a/b?c=d", "the path and its query");
	is_str(l.v[1].label, "api", "name=");
	is_str(l.v[2].name, "[::1]:81", "IPv6 bracketed, its port");
	is_str(l.v[2].path, "/", "no path: /");
	is_int(l.v[3].kind, TARGET_SYN, "syn ADDR 80 beside http://ADDR/: two targets");
	is_str(l.v[4].path, "/?x=1", "a query without a path");
	is_int(l.v[4].dscp, 10, "dscp= on an http line");
	targets_free(&l);
	is_int(load("http http://:80/\nhttp http://[::1/\nhttp http://127.0.0.2:0/\nhttp ftp://x/\n"
		    "http http://127.0.0.2/ 8080\nhttp http://127.0.0.2/a\nhttp http://127.0.0.2/b\n"
		    "http http://127.0.0.2:80x/\nhttp http://127.0.0.9/"
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		    "http://127.0.0.2/\n", &l, msgs, sizeof(msgs), 0), -22, "bad URLs refused");
	ok(strstr(msgs, ":1: 'http://:80/': no server address in the URL") != NULL, "no address");
	ok(strstr(msgs, ":2: 'http://[::1/': an IPv6 address without its ']'") != NULL,
	   "an unclosed bracket");
	ok(strstr(msgs, ":3: 'http://127.0.0.2:0/': the URL's port is not one of 1 to 65535") != NULL,
	   "port 0");
	ok(strstr(msgs, ":4: 'ftp://x/' is not a URL") != NULL, "not http://");
	ok(strstr(msgs, ":5: '8080': an http line's port is the URL's") != NULL, "a port word");
	ok(strstr(msgs, ":7: http 127.0.0.2:80 is line 6's target again: give each once (one URL a server ADDR:PORT)") != NULL,
	   "two URLs of one server");
	ok(strstr(msgs, ":8: 'http://127.0.0.2:80x/': the URL's port is not one of") != NULL,
	   "a port that is not a number");
	ok(strstr(msgs, ":9: ") && strstr(msgs, "a path over 126 characters"), "a path too long");
	ok(strstr(msgs, ":10: 'http://127.0.0.2/': a URL's line begins with its kind") != NULL,
	   "a URL without its kind word");
	diag("%s", msgs);
	is_int(load("# nothing\n\n", &l, msgs, sizeof(msgs), 0), -22, "no target: refused");
	ok(strstr(msgs, "no target in it") != NULL, "saying so");
	is_int(load("::1\n", &l, msgs, sizeof(msgs), AF_INET), -22, "IPv6 on an IPv4 run: refused");
	ok(strstr(msgs, "restart rant to add it") != NULL, "saying how");
	unlink(path);
	return done_testing();
}
