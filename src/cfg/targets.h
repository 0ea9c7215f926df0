/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --targets FILE: the fleet's targets, one a line, each of a kind:
 *
 *   ADDR [PORT] [OPTION...]          rant's reflector (--stamp: STAMP's)
 *   stamp ADDR [PORT] [OPTION...]    a STAMP reflector (RFC 8762), port 862
 *   icmp ADDR [OPTION...]            ICMP echo: any host
 *   syn ADDR PORT [OPTION...]        a TCP handshake: any listening port
 *   http URL [OPTION...]             an HTTP/1.1 GET: any web server
 *   # a comment
 *
 * ADDR an IPv4 or IPv6 address (bracketed or not; link-local scoped to
 * -i), PORT the reflector's or the service's (default --port; stamp's
 * 862). The options: dscp=N (0 to 63) the DSCP of this target's pings
 * (default --dscp); name=NAME (1 to 63 letters, digits, '.', '_', '-')
 * the target's label in every output, each target's its own (default:
 * its peer, ADDR:PORT, after its kind and ':' for a kind word's line:
 * icmp:10.0.0.2); interval=T its pings' interval (a duration, at
 * least the run's --interval; default --interval). An http URL is
 * http://ADDR[:PORT][/PATH] (port 80; https:// refused: no TLS), its
 * label's default http:ADDR:PORT. '#' starts a comment (a URL's fragment
 * with it); blank lines are skipped. Every line is checked as -a is (an address, unicast,
 * routed out of -i) and a target given twice is refused: a bad line is
 * reported with its number and the fix, each of them, and the file as a
 * whole refused (at start: exit 1; at SIGHUP's reread: the run goes on
 * with the targets it has).
 */
#ifndef RANT_TARGETS_H
#define RANT_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/* "[fd00::1234:5678:9abc:def0]:65535" and room */
#define TARGET_NAME_LEN 64
#define TARGETS_MAX 65536	/* lines that name a target, at most */
#define TARGETS_BAD_MAX 20	/* bad lines reported, the rest counted */
#define TARGET_LABEL_MAX 63	/* name=: characters at most */
#define TARGET_LABEL_LEN 72	/* a label: name=, or KIND:ADDR:PORT, and the NUL */
#define TARGET_STAMP_PORT 862	/* a stamp line's port by default (RFC 8762) */
#define TARGET_HTTP_PORT 80	/* an http URL's port by default */
#define TARGET_PATH_LEN 128	/* an http URL's path and query, and the NUL */

/* What a line measures. */
enum target_kind {
	TARGET_RANT,			/* rant's reflector (the run's format) */
	TARGET_STAMP,			/* a STAMP reflector */
	TARGET_ICMP,			/* ICMP echo */
	TARGET_SYN,			/* a TCP handshake */
	TARGET_HTTP,			/* an HTTP/1.1 request, kept-alive connection */
	TARGET_NKINDS
};

/* What carries a kind's probes, which tells its answers apart: UDP
 * (rant, stamp: an ADDR:PORT is one or the other), ICMP, TCP's SYNs, an
 * http target's own connection (so syn ADDR 80 and http://ADDR/ are two
 * targets). */
enum target_proto { TARGET_UDP, TARGET_ICMP_PROTO, TARGET_TCP, TARGET_HTTP_CONN };

static inline enum target_proto target_proto_of(int kind)
{
	return kind == TARGET_ICMP ? TARGET_ICMP_PROTO : kind == TARGET_SYN ? TARGET_TCP :
	       kind == TARGET_HTTP ? TARGET_HTTP_CONN : TARGET_UDP;
}

/* "rant", "stamp", "icmp", "syn", "http". */
const char *targets_kind_name(enum target_kind k);

struct target_spec {
	struct sockaddr_storage addr;	/* with the port */
	socklen_t addr_len;
	uint16_t port;			/* 0: icmp's */
	enum target_kind kind;
	int dscp;			/* 0 to 63, or -1: the run's --dscp */
	int64_t interval_ns;		/* interval=, 0: the run's --interval */
	unsigned int line;		/* in the file, from 1 */
	char name[TARGET_NAME_LEN];	/* ADDR:PORT, [ADDR]:PORT for IPv6 (icmp:
					 * ADDR): the peer label of its series */
	char label[TARGET_LABEL_LEN];	/* name=, else its name (KIND:name) */
	char path[TARGET_PATH_LEN];	/* http: the URL's path ("/" at least) */
};

struct target_list {
	struct target_spec *v;
	size_t n;
};

/* What a line is checked against. */
struct targets_ctx {
	uint16_t port;			/* --port: a line without one */
	const char *iface;		/* -i: the route to each target leaves by it */
	unsigned int ifindex;
	int family;			/* AF_INET: IPv6 targets refused (the run's
					 * sockets are IPv4), AF_INET6 or 0: any */
	size_t max;			/* targets at most (0: TARGETS_MAX) */
	int64_t interval_ns;		/* --interval: interval= is at least this */
};

/*
 * Read path into *out (allocated; targets_free() frees it). 0; or
 * -errno after one line per bad line (up to TARGETS_BAD_MAX) on err,
 * each "PATH:LINE: what is wrong: the fix", out empty. An empty file
 * (no target) is an error too.
 */
int targets_load(const char *path, const struct targets_ctx *ctx, struct target_list *out,
		 FILE *err);

/* One line's text (no newline) into *t, as targets_load() checks it: 1
 * a target, 0 a comment or blank line, -1 with the problem and fix in
 * msg. */
int targets_parse_line(const char *text, const struct targets_ctx *ctx,
		       struct target_spec *t, char *msg, size_t len);

void targets_free(struct target_list *l);

/* "10.0.0.2:12345", "[fd00::2]:12345": an address with its port (port
 * 0: the address alone, "10.0.0.2", "fd00::2"). */
void targets_name(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
