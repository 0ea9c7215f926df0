/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor: the least a UDP ping-pong can cost, to compare rant against.
 *
 * No timestamping (unless -t), no statistics in the loop, no checks
 * beyond a sequence number. The server echoes every datagram back to its
 * sender; the client sends one datagram, waits for its echo, and records
 * CLOCK_REALTIME before send() and after recv() returned (the points rant
 * calls T1_SW and T4_SW). Warm-up round trips are not recorded. At the end
 * the client sorts all samples and prints exact nearest-rank percentiles
 * in ns:
 *
 *   samples=N lost=L min=.. p50=.. p99=.. p99.9=.. max=..
 *
 * Spinning (default) polls recv(MSG_DONTWAIT); -b blocks in recv().
 *
 * -t FLAGS sets SO_TIMESTAMPING to FLAGS (the SOF_TIMESTAMPING_* bits, a
 * number: 0x99a is what rant asks on veth, see bench/run.sh, which reads
 * rant's own setting and hands it over), receives with recvmsg() and a
 * control buffer, and empties the error queue off the critical path
 * (server: after the echo is sent; client: after the round trip), so the
 * kernel's share of rant's cost can be told from rant's own. It prints
 * the flags it set: "so_timestamping=0x..." on stderr.
 *
 * -T is the same over TCP (TCP_NODELAY on both sides): each message is
 * preceded by its length (4 bytes, big-endian, as rant --tcp frames it)
 * and sent in one send(); the receiver reads until the whole message is
 * in. The server serves one connection after another.
 *
 * The socket is set up as rant sets up its own: the server binds a
 * dual-stack IPv6 socket (IPV6_V6ONLY off: IPv4 senders arrive as
 * ::ffff:a.b.c.d), as rant's reflector does, unless -4 (an IPv4 socket:
 * the bench's price of the dual stack); -i IFACE binds the socket to the
 * interface (SO_BINDTODEVICE, as rant -i); SO_RXQ_OVFL is on, as on
 * rant's sockets.
 *
 * -R speaks rant's wire format (src/wire/wire.h) over UDP, so that either side
 * can face rant's other side (bench/run.sh's cross pairs: which side's
 * work is rant's own cost). The client sends rant pings (magic, version,
 * type, flags: MSG_F_WARMUP during the warm-up, MSG_F_WANT_SW as rant -s
 * asks; a random session; the length; seq and T1_SW) and takes the pong
 * whose seq is its ping's. The server, which needs -t, turns each ping
 * into its pong in place: the type, the ping's flags echoed, the pong's
 * T2 (the kernel's RX stamp the server reads anyway) and the follow-up
 * (the seq and the SND stamp of its previous pong, from the error queue
 * it empties anyway): what rant's emitter needs to measure (its warm-up
 * waits for pongs with T2; T3 comes by the follow-up). No SW stamps
 * (MSG_F_SW clear: they would cost this server two clock reads), no
 * sessions, no checks beyond the type octet.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>

#include "floorwire.h"

#define MAX_PAYLOAD 65507
#define TIMEOUT_NS 1000000000LL	/* a lost echo is given up after 1 s */

static volatile sig_atomic_t stop;

struct cfg {
	const char *addr;	/* client: server address; NULL = server */
	const char *port;
	size_t size;		/* UDP payload, bytes */
	long count;		/* measured round trips */
	long warmup;		/* round trips not recorded */
	bool block;
	bool ts;		/* -t: kernel timestamping on */
	unsigned int ts_flags;	/* -t FLAGS: the SOF_TIMESTAMPING_* bits */
	bool tcp;		/* -T: over TCP, length-prefixed */
	bool v4;		/* -4: an IPv4 socket (default: dual stack) */
	bool rant;		/* -R: rant's wire format */
	const char *iface;	/* -i: SO_BINDTODEVICE */
};


#define PREFIX 4		/* -T: the length before each message */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: floor [-b] [-t FLAGS] [-T] [-R] [-4] [-i IFACE] [-p PORT] [-m BYTES]\n"
		"             [-n COUNT] [-w WARMUP] [-a ADDR]\n"
		"  without -a: server, echoes datagrams until SIGINT/SIGTERM\n"
		"  -a ADDR     client: ping-pong with the server at ADDR\n"
		"  -b          block in recv() (default: spin on MSG_DONTWAIT)\n"
		"  -t FLAGS    SO_TIMESTAMPING set to FLAGS (SOF_TIMESTAMPING_* bits, e.g. 0x99a\n"
		"              as rant on veth: software RX, TX and SCHED, OPT_ID, OPT_TSONLY);\n"
		"              stamps read, not used\n"
		"  -T          over TCP (TCP_NODELAY), messages after a 4-byte length\n"
		"  -R          rant's wire format (UDP): pings rant's reflector answers, or\n"
		"              (server, with -t) pongs rant's emitter measures\n"
		"  -4          an IPv4 socket (default: the server binds dual-stack IPv6, as rant)\n"
		"  -i IFACE    bind the socket to IFACE (SO_BINDTODEVICE, as rant -i)\n"
		"  -p PORT     UDP port (default 12346)\n"
		"  -m BYTES    payload, 8 to %d (default 72)\n"
		"  -n COUNT    measured round trips (default 200000)\n"
		"  -w WARMUP   round trips before measuring (default 1000)\n",
		MAX_PAYLOAD);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A number for -OPT in lo..hi; -t takes hex (0x...) too. */
static long parse_num(const char *s, long lo, long hi, char opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, opt == 't' ? 0 : 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "floor: -%c: %s is out of range %ld to %ld\n",
			opt, s, lo, hi);
		exit(1);
	}
	return v;
}

/* -t FLAGS: the stamps asked of the kernel, said on stderr. */
static int enable_timestamping(int fd, unsigned int flags)
{
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags,
		       sizeof(flags))) {
		fprintf(stderr, "floor: setsockopt SO_TIMESTAMPING 0x%x: %s (see -h)\n",
			flags, strerror(errno));
		return -1;
	}
	fprintf(stderr, "so_timestamping=0x%x\n", flags);
	return 0;
}

/* The kernel's stamp in a received message's control data, or 0. */
static int64_t cmsg_stamp(struct msghdr *m)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SO_TIMESTAMPING &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		}
	}
	return 0;
}

/*
 * recvfrom(), or with -t recvmsg() with a control buffer whose stamp is
 * read (as rant reads it) into *stamp (when not NULL). peer may be NULL.
 */
static ssize_t rx(int fd, void *buf, size_t len, int flags, bool ts,
		  struct sockaddr_storage *peer, socklen_t *plen, int64_t *stamp)
{
	char control[256];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_name = peer,
			    .msg_namelen = plen ? *plen : 0,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = control,
			    .msg_controllen = sizeof(control) };
	ssize_t n;
	int64_t t;

	if (!ts)
		return recvfrom(fd, buf, len, flags, (struct sockaddr *)peer,
				plen);
	n = recvmsg(fd, &m, flags);
	if (n >= 0) {
		if (plen)
			*plen = m.msg_namelen;
		t = cmsg_stamp(&m);
		if (stamp)
			*stamp = t;
	}
	return n;
}

/* Whether an error-queue message is a SND report (not SCHED, not ACK). */
static bool is_snd_report(struct msghdr *m)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		struct sock_extended_err ee;

		if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
		      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)) ||
		    cm->cmsg_len < CMSG_LEN(sizeof(ee)))
			continue;
		memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
		return ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
		       ee.ee_info == SCM_TSTAMP_SND;
	}
	return false;
}

/* -t: read every TX stamp waiting in the error queue; *snd (when not
 * NULL) gets the last SND report's, left as it is when none came. */
static void drain_errqueue(int fd, int64_t *snd)
{
	char control[256];

	for (;;) {
		struct msghdr m = { .msg_control = control,
				    .msg_controllen = sizeof(control) };
		int64_t t;

		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0 &&
		    errno != EINTR)
			return;
		t = cmsg_stamp(&m);
		if (snd && t && is_snd_report(&m))
			*snd = t;
	}
}

/* The socket options rant sets on its own: -i's SO_BINDTODEVICE, and
 * with -t SO_RXQ_OVFL (the stamps are set after connect/bind). */
static int rant_sockopts(int fd, const struct cfg *c)
{
	int one = 1;

	if (c->iface && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, c->iface,
				   (socklen_t)strlen(c->iface) + 1)) {
		fprintf(stderr, "floor: SO_BINDTODEVICE %s: %s (root needed)\n", c->iface,
			strerror(errno));
		return -1;
	}
	if (c->ts && setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one))) {
		perror("floor: setsockopt SO_RXQ_OVFL");
		return -1;
	}
	return 0;
}

/* A UDP socket bound (server: dual-stack IPv6 as rant's reflector, or
 * IPv4 with -4) or connected (client); with -T a TCP socket listening
 * (server) or connected (client). */
static int open_socket(const struct cfg *c)
{
	struct addrinfo hints = { .ai_socktype = c->tcp ? SOCK_STREAM : SOCK_DGRAM,
				  .ai_flags = c->addr ? 0 : AI_PASSIVE,
				  .ai_family = c->v4 ? AF_INET : c->addr ? AF_UNSPEC : AF_INET6 };
	struct addrinfo *ai;
	int fd, one = 1, off = 0, rc;

	rc = getaddrinfo(c->addr, c->port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "floor: %s: %s\n", c->addr ? c->addr : "bind",
			gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, hints.ai_socktype, 0);
	if (fd < 0) {
		perror("floor: socket (IPv6 disabled on this host? give -4)");
		goto out;
	}
	if (rant_sockopts(fd, c)) {
		close(fd);
		fd = -1;
		goto out;
	}
	if (c->tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (c->addr) {
		rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)	/* IPv4 senders too, as rant */
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		rc = bind(fd, ai->ai_addr, ai->ai_addrlen);
		if (!rc && c->tcp)
			rc = listen(fd, 4);
	}
	if (rc) {
		perror(c->addr ? "floor: connect" : "floor: bind");
		close(fd);
		fd = -1;
	}
out:
	freeaddrinfo(ai);
	return fd;
}

/*
 * -T: read one whole message (prefix and body) into buf. Its length, 0
 * when nothing has come yet (spinning), -1 on EOF or error, -3 when a
 * blocking read timed out (SO_RCVTIMEO). *have carries a partial message
 * over calls.
 */
static ssize_t tcp_rx(int fd, char *buf, size_t cap, int flags, bool ts,
		      size_t *have)
{
	uint32_t len = 0;
	ssize_t n;

	for (;;) {
		if (*have >= PREFIX) {
			len = (uint32_t)(unsigned char)buf[0] << 24 |
			      (uint32_t)(unsigned char)buf[1] << 16 |
			      (uint32_t)(unsigned char)buf[2] << 8 |
			      (unsigned char)buf[3];
			if (len > cap - PREFIX)
				return -1;
			if (*have >= PREFIX + len) {
				*have = 0;	/* one message in flight */
				return (ssize_t)len;
			}
		}
		n = rx(fd, buf + *have, (*have >= PREFIX ? PREFIX + len : PREFIX) - *have,
		       flags, ts, NULL, NULL, NULL);
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return (flags & MSG_DONTWAIT) || stop ? 0 : -3;
			return -1;
		}
		*have += (size_t)n;
	}
}

static void put_len(char *p, uint32_t len)
{
	p[0] = (char)(len >> 24);
	p[1] = (char)(len >> 16);
	p[2] = (char)(len >> 8);
	p[3] = (char)len;
}

/* -T: serve one connection after another. */
static int tcp_server(int lfd, const struct cfg *c)
{
	static char buf[PREFIX + MAX_PAYLOAD];
	int flags = c->block ? 0 : MSG_DONTWAIT, one = 1;

	while (!stop) {
		int fd = accept(lfd, NULL, NULL);
		size_t have = 0;
		ssize_t n;

		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (c->ts && enable_timestamping(fd, c->ts_flags))
			return 1;
		while (!stop) {
			n = tcp_rx(fd, buf, sizeof(buf), flags, c->ts, &have);
			if (n == 0 || n == -3)
				continue;
			if (n < 0)
				break;
			if (send(fd, buf, PREFIX + (size_t)n, MSG_NOSIGNAL) < 0)
				break;
			if (c->ts)
				drain_errqueue(fd, NULL);
		}
		close(fd);
	}
	return 0;
}

static int server(int fd, const struct cfg *c)
{
	static uint8_t buf[MAX_PAYLOAD];
	struct sockaddr_storage peer;
	socklen_t plen;
	int flags = c->block ? 0 : MSG_DONTWAIT;
	uint8_t fu_seq[8] = { 0 };	/* -R: the last pong's seq ... */
	int64_t t2 = 0, t3 = 0;		/* ... and its SND stamp */
	ssize_t n;

	while (!stop) {
		plen = sizeof(peer);
		n = rx(fd, buf, sizeof(buf), flags, c->ts, &peer, &plen, &t2);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("floor: recvfrom");
			return 1;
		}
		if (c->rant && !rant_pong(buf, n, t2, fu_seq, t3))
			continue;
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&peer, plen) < 0)
			perror("floor: sendto");
		if (c->rant && n >= RW_PONG_LEN) {
			memcpy(fu_seq, buf + RW_OFF_SEQ, sizeof(fu_seq));
			t3 = 0;
		}
		if (c->ts)
			drain_errqueue(fd, c->rant ? &t3 : NULL);
	}
	return 0;
}

/* -T: wait for the echo of seq; its arrival time, -2 on error. */
static int64_t tcp_wait_echo(int fd, const struct cfg *c, char *buf, uint64_t seq)
{
	int flags = c->block ? 0 : MSG_DONTWAIT;
	size_t have = 0;
	uint64_t got;
	ssize_t n;

	for (;;) {
		n = tcp_rx(fd, buf, PREFIX + c->size, flags, c->ts, &have);
		if (n > 0) {
			int64_t t4 = now_ns();

			memcpy(&got, buf + PREFIX, sizeof(got));
			if (got == seq)
				return t4;
			fprintf(stderr, "floor: echo of %llu, not %llu\n",
				(unsigned long long)got, (unsigned long long)seq);
			return -2;
		}
		if (n < 0 || stop) {
			fprintf(stderr, "floor: the TCP connection %s\n",
				n == -3 ? "timed out" : "broke");
			return -2;
		}
	}
}

/* Wait for the echo of seq; its arrival time, or -1 on timeout. */
static int64_t wait_echo(int fd, const struct cfg *c, char *buf, uint64_t seq)
{
	int flags = c->block ? 0 : MSG_DONTWAIT;
	int64_t deadline = 0;
	unsigned spins = 0;
	uint64_t got;
	ssize_t n;

	if (c->tcp)
		return tcp_wait_echo(fd, c, buf, seq);
	for (;;) {
		n = rx(fd, buf, c->size, flags, c->ts, NULL, NULL, NULL);
		if (n >= (ssize_t)(c->rant ? RW_OFF_T2_WIRE : sizeof(got))) {
			int64_t t4 = now_ns();

			if (!c->rant)
				memcpy(&got, buf, sizeof(got));
			else if (buf[RW_OFF_TYPE] == RW_PONG)
				got = get_be64((const uint8_t *)buf + RW_OFF_SEQ);
			else
				got = ~seq;	/* not a pong */
			if (got == seq)
				return t4;
			continue;	/* a late echo of an earlier ping */
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			perror("floor: recv");
			return -2;
		}
		if (stop)
			return -2;
		/* blocking recv times out by SO_RCVTIMEO; spinning checks
		 * the clock now and then, not on every poll */
		if (c->block && n < 0 && errno != EINTR)
			return -1;
		if (!c->block && (++spins & 1023) == 0) {
			int64_t t = now_ns();

			if (!deadline)
				deadline = t + TIMEOUT_NS;
			else if (t > deadline)
				return -1;
		}
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Nearest rank: the sample of rank ceil(p/100 * n), 1-based, in integers
 * (in doubles 99.9 / 100 * 200000 is 199800.00000000003, one rank off);
 * p_milli is the percentile in thousandths (99.9 -> 99900).
 */
static int64_t pct(const int64_t *v, long n, long p_milli)
{
	long rank = (long)(((__int128)p_milli * n + 99999) / 100000);

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

static int client(int fd, const struct cfg *c)
{
	uint8_t hdr[RW_OFF_SEQ];	/* -R: the ping's header before seq */
	uint32_t session = (uint32_t)(getpid() ^ now_ns());
	struct timeval tv = { .tv_sec = TIMEOUT_NS / 1000000000LL };
	long total = c->warmup + c->count, kept = 0, lost = 0, i;
	char *buf = calloc(1, PREFIX + c->size);
	int64_t *rtt = malloc(c->count * sizeof(*rtt));
	int rc = 1;

	if (!buf || !rtt) {
		perror("floor: malloc");
		goto out;
	}
	/* touch before the loop */
	memset(rtt, 0, c->count * sizeof(*rtt));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	for (i = 0; i < total && !stop; i++) {
		uint64_t seq = c->rant ? (uint64_t)i + 1 : (uint64_t)i;	/* rant's from 1 */
		int64_t t1, t4;

		if (c->rant && i <= c->warmup)	/* the warm-up's flag, then none */
			rant_ping_hdr(hdr, c->size, session, i < c->warmup);
		t1 = now_ns();
		if (c->rant) {	/* the pong came back in buf: the whole header */
			memcpy(buf, hdr, sizeof(hdr));
			put_be64((uint8_t *)buf + RW_OFF_SEQ, seq);
			put_be64((uint8_t *)buf + RW_OFF_T1_SW, (uint64_t)t1);
		} else if (c->tcp) {
			put_len(buf, (uint32_t)c->size);
			memcpy(buf + PREFIX, &seq, sizeof(seq));
		} else {
			memcpy(buf, &seq, sizeof(seq));
		}
		if (send(fd, buf, c->size + (c->tcp ? PREFIX : 0), 0) < 0) {
			perror("floor: send");
			goto out;
		}
		t4 = wait_echo(fd, c, buf, seq);
		if (t4 == -2)
			goto out;
		if (t4 < 0)
			lost++;
		else if (i >= c->warmup)
			rtt[kept++] = t4 - t1;
		if (c->ts)
			drain_errqueue(fd, NULL);
	}
	if (!kept) {
		fprintf(stderr, "floor: no round trip measured\n");
		goto out;
	}
	qsort(rtt, kept, sizeof(*rtt), cmp_i64);
	printf("samples=%ld lost=%ld min=%lld p50=%lld p99=%lld p99.9=%lld max=%lld\n",
	       kept, lost, (long long)rtt[0], (long long)pct(rtt, kept, 50000),
	       (long long)pct(rtt, kept, 99000),
	       (long long)pct(rtt, kept, 99900),
	       (long long)rtt[kept - 1]);
	rc = stop ? 1 : 0;
out:
	free(buf);
	free(rtt);
	return rc;
}

int main(int argc, char **argv)
{
	struct cfg c = { .port = "12346", .size = 72, .count = 200000,
			 .warmup = 1000 };
	/* no SA_RESTART: a signal ends a blocking recv() */
	struct sigaction sa = { .sa_handler = on_signal };
	int opt, fd, rc;

	while ((opt = getopt(argc, argv, "4a:bhi:m:n:p:Rt:Tw:")) != -1) {
		switch (opt) {
		case '4':
			c.v4 = true;
			break;
		case 'i':
			c.iface = optarg;
			break;
		case 'R':
			c.rant = true;
			break;
		case 'a':
			c.addr = optarg;
			break;
		case 'b':
			c.block = true;
			break;
		case 'm':
			c.size = parse_num(optarg, 8, MAX_PAYLOAD, opt);
			break;
		case 'n':
			c.count = parse_num(optarg, 1, LONG_MAX / 16, opt);
			break;
		case 'p':
			c.port = optarg;
			break;
		case 't':
			c.ts_flags = (unsigned int)parse_num(optarg, 1, UINT_MAX, opt);
			c.ts = true;
			break;
		case 'T':
			c.tcp = true;
			break;
		case 'w':
			c.warmup = parse_num(optarg, 0, LONG_MAX / 16, opt);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	if (c.rant && (c.tcp || c.size < RW_OFF_T2_WIRE)) {
		fprintf(stderr, "floor: -R: rant's wire format over UDP, -m %d or more: drop -T or raise -m\n",
			RW_OFF_T2_WIRE);
		return 1;
	}
	if (c.rant && !c.addr && !c.ts) {
		fprintf(stderr, "floor: -R server: rant's emitter waits for pongs with T2: give -t FLAGS\n");
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fd = open_socket(&c);
	if (fd < 0)
		return 1;
	/* TCP: OPT_ID only on a connected socket (the server's: at accept) */
	if (c.ts && (!c.tcp || c.addr) && enable_timestamping(fd, c.ts_flags)) {
		close(fd);
		return 1;
	}
	if (c.tcp && !c.addr)
		rc = tcp_server(fd, &c);
	else
		rc = c.addr ? client(fd, &c) : server(fd, &c);
	close(fd);
	return rc;
}
