/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loadgen: open-loop UDP load on one reflector, as a fleet of emitters
 * gives it, counting what comes back (bench/fleet.sh).
 *
 * -n FLOWS sockets (each its own source port) of -s SESSIONS emitters
 * each (a session id and sequence numbers of its own) send -r RATE
 * requests a second in all, on schedule whether or not the replies came
 * (open loop), in sendmmsg() batches of -b on one flow after the other,
 * the sessions of a flow taking turns within a batch (as many emitters'
 * pings arrive: a reflector's batch holds several sessions), for -t
 * SECONDS. The replies are read
 * with recvmmsg() between the batches and matched by flow and sequence
 * number; the generator sleeps (ppoll) when nothing is due, so a
 * low-rate emitter sharing its CPU gets it back. After the sending ends
 * it waits -W ms for the last replies. One line at the end:
 *
 *   offered=R sent=N received=M lost=L loss_pct=P dup=D foreign=F rate_sent=S
 *   gen_drops=G
 *
 * rate_sent is what left per second: below R when this CPU could not
 * keep the schedule (the figure is then the generator's, not the
 * reflector's). foreign: replies that answer no request sent (a
 * reflector that garbled one; they count as lost). gen_drops: replies
 * this side's sockets dropped (their receive buffer is set to -k KB to
 * make that rare).
 *
 * The request formats (-f):
 *   rant      rant's ping (src/wire/wire.h): magic, version 1, type ping, no
 *             flags (measured), the session id, the length, the
 *             session's sequence number, T1_SW; the reply's session and
 *             sequence are at the same offsets (rant's pong, or an echo)
 *   stamp     a STAMP Session-Sender test packet (RFC 8762 4.2.1,
 *             unauthenticated, 44 bytes or -m): sequence number, NTP
 *             time, error estimate, the session as its SSID (RFC 8972);
 *             the reply (4.3.1) has the SSID at the same offset and the
 *             sender's sequence number at offset 24
 *   sockperf  sockperf's header (its message.h: 64-bit sequence, 16-bit
 *             flags CLIENT|PONG_REQUEST, 32-bit length, big-endian), so
 *             `sockperf server` answers each request; one session a flow
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLOWS 128
#define MAX_SESSIONS 64
#define MAX_BATCH 64
#define MAX_LEN 1472
#define NS 1000000000LL

enum fmt { F_RANT, F_STAMP, F_SOCKPERF };

struct cfg {
	const char *addr;
	uint16_t port;
	enum fmt fmt;
	double rate;		/* requests a second, all flows */
	double seconds;
	int flows;
	int sessions;		/* a flow */
	int batch;
	size_t size;		/* request (UDP payload), bytes */
	long drain_ms;
	int rcvbuf_kb;
};

/* A flow's requests are numbered 0, 1, ... (n): n is session n % S's
 * ping number n / S + 1 (its sequence number). */
struct flow {
	int fd;
	uint32_t session;	/* the id of its first session; the others follow */
	uint64_t next;		/* the number of its next request */
	uint8_t *seen;		/* a bit a request: its reply came */
	uint64_t cap;		/* requests seen can hold */
	uint32_t drops_raw;	/* SO_RXQ_OVFL as last seen */
};

struct totals {
	uint64_t sent, received, dup, foreign;
	uint64_t gen_drops;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadgen -a ADDR [-p PORT] [-f rant|stamp|sockperf] [-r RATE] [-t SECONDS]\n"
		"               [-n FLOWS] [-s SESSIONS] [-b BATCH] [-m BYTES] [-W MS] [-k KB]\n"
		"  -a ADDR   the reflector's IPv4 address\n"
		"  -p PORT   its UDP port (default 12345)\n"
		"  -f FMT    request format: rant (default), stamp, sockperf\n"
		"  -r RATE   requests a second, all flows together (default 100000)\n"
		"  -t S      seconds of sending (default 2)\n"
		"  -n FLOWS  sockets, 1 to %d (default 2)\n"
		"  -s N      sessions (emitters) a socket, taking turns, 1 to %d (default 7;\n"
		"            sockperf: 1)\n"
		"  -b BATCH  requests a sendmmsg(), 1 to %d (default 7)\n"
		"  -m BYTES  request size, 32 to %d (default 72; stamp: 44 or more)\n"
		"  -W MS     wait for the last replies after sending (default 200)\n"
		"  -k KB     each socket's receive buffer (SO_RCVBUFFORCE; default 4096)\n",
		MAX_FLOWS, MAX_SESSIONS, MAX_BATCH, MAX_LEN);
}

static double parse_num(const char *s, double lo, double hi, char opt)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "loadgen: -%c: %s is out of range %g to %g\n", opt, s, lo, hi);
		exit(1);
	}
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* Request n of flow fl into buf (c->size bytes, zeroed once). */
static void put_request(const struct cfg *c, const struct flow *fl, uint8_t *buf,
			uint64_t n)
{
	uint32_t id = fl->session + (uint32_t)(n % (uint64_t)c->sessions);
	uint64_t seq = n / (uint64_t)c->sessions + 1;
	int64_t t = real_ns();

	switch (c->fmt) {
	case F_RANT:
		memcpy(buf, "RANT", 4);
		buf[4] = 1;		/* version */
		buf[5] = 1;		/* ping */
		put_be(buf + 6, 0, 2);	/* flags: measured */
		put_be(buf + 8, id, 4);
		put_be(buf + 12, c->size, 4);
		put_be(buf + 16, seq, 8);
		put_be(buf + 24, (uint64_t)t, 8);
		break;
	case F_STAMP:
		/* NTP time: seconds since 1900, 32-bit fraction */
		put_be(buf, (uint32_t)seq, 4);
		put_be(buf + 4, (uint64_t)(t / NS + 2208988800LL), 4);
		put_be(buf + 8, (uint64_t)(((t % NS) << 32) / NS), 4);
		put_be(buf + 12, 0x0001, 2);	/* error estimate: multiplier 1 */
		put_be(buf + 14, id & 0xffff, 2);	/* SSID */
		break;
	case F_SOCKPERF:
		put_be(buf, seq, 8);
		put_be(buf + 8, 1 | 2, 2);	/* CLIENT | PONG_REQUEST */
		put_be(buf + 10, c->size, 4);
		break;
	}
}

/* The number of the request (of flow fl) a reply of n bytes answers,
 * UINT64_MAX when it is not one of them. */
static uint64_t reply_of(const struct cfg *c, const struct flow *fl, const uint8_t *buf,
			 ssize_t n)
{
	uint64_t seq = 0, sess = 0;

	switch (c->fmt) {
	case F_RANT:
		if (n < 32 || memcmp(buf, "RANT", 4))
			return UINT64_MAX;
		seq = get_be(buf + 16, 8);
		sess = (uint32_t)(get_be(buf + 8, 4) - fl->session);
		break;
	case F_STAMP:
		if (n < 44)
			return UINT64_MAX;
		seq = get_be(buf + 24, 4);
		sess = (uint16_t)(get_be(buf + 14, 2) - (fl->session & 0xffff));
		break;
	case F_SOCKPERF:
		if (n < 14)
			return UINT64_MAX;
		seq = get_be(buf, 8);
		break;
	}
	if (!seq || sess >= (uint64_t)c->sessions)
		return UINT64_MAX;
	return (seq - 1) * (uint64_t)c->sessions + sess;
}

static int open_flow(const struct cfg *c, const struct sockaddr_in *to, struct flow *fl,
		     uint64_t cap)
{
	int one = 1, kb = c->rcvbuf_kb * 1024;

	fl->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fl->fd < 0) {
		perror("loadgen: socket");
		return -1;
	}
	/* Root: past rmem_max; else as far as it goes. */
	if (setsockopt(fl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &kb, sizeof(kb)))
		setsockopt(fl->fd, SOL_SOCKET, SO_RCVBUF, &kb, sizeof(kb));
	setsockopt(fl->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	if (connect(fl->fd, (const struct sockaddr *)to, sizeof(*to))) {
		fprintf(stderr, "loadgen: connect to %s:%u: %s\n", c->addr, c->port,
			strerror(errno));
		return -1;
	}
	fl->cap = cap;
	fl->seen = calloc(cap / 8 + 1, 1);
	if (!fl->seen) {
		fprintf(stderr, "loadgen: no memory for %llu sequence numbers\n",
			(unsigned long long)cap);
		return -1;
	}
	fl->session = (uint32_t)random();
	fl->next = 0;
	return 0;
}

/* One batch of k requests on fl. Returns how many left. */
static int send_batch(const struct cfg *c, struct flow *fl, int k)
{
	static uint8_t bufs[MAX_BATCH][MAX_LEN];
	struct mmsghdr mm[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	int n;

	memset(mm, 0, sizeof(mm[0]) * (size_t)k);
	for (int i = 0; i < k; i++) {
		put_request(c, fl, bufs[i], fl->next + (uint64_t)i);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = c->size;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	n = sendmmsg(fl->fd, mm, (unsigned int)k, MSG_DONTWAIT);
	if (n < 0)
		return 0;	/* a full send buffer: the schedule slips */
	fl->next += (uint64_t)n;
	return n;
}

/* The SO_RXQ_OVFL count in a reply's control data, added to *drops. */
static void rx_drops(struct msghdr *m, struct flow *fl, uint64_t *drops)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		uint32_t v;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SO_RXQ_OVFL ||
		    cm->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(cm), sizeof(v));
		*drops += (uint32_t)(v - fl->drops_raw);
		fl->drops_raw = v;
	}
}

/* Every reply queued on fl now; returns how many were read. */
static int drain_flow(const struct cfg *c, struct flow *fl, struct totals *t)
{
	static uint8_t bufs[MAX_BATCH][MAX_LEN];
	static char ctl[MAX_BATCH][64];
	struct mmsghdr mm[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	int n, all = 0;

	do {
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < MAX_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = MAX_LEN;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = ctl[i];
			mm[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		n = recvmmsg(fl->fd, mm, MAX_BATCH, MSG_DONTWAIT, NULL);
		for (int i = 0; i < n; i++) {
			uint64_t k = reply_of(c, fl, bufs[i], mm[i].msg_len);

			rx_drops(&mm[i].msg_hdr, fl, &t->gen_drops);
			if (k >= fl->next || k >= fl->cap) {
				t->foreign++;
				continue;
			}
			if (fl->seen[k / 8] & (1u << (k % 8))) {
				t->dup++;
				continue;
			}
			fl->seen[k / 8] |= (uint8_t)(1u << (k % 8));
			t->received++;
		}
		all += n > 0 ? n : 0;
	} while (n == MAX_BATCH);
	return all;
}

static int drain_all(const struct cfg *c, struct flow *fl, struct totals *t)
{
	int n = 0;

	for (int i = 0; i < c->flows; i++)
		n += drain_flow(c, &fl[i], t);
	return n;
}

/* Sleep until deadline or a reply comes. */
static void wait_replies(const struct cfg *c, struct flow *fl, int64_t deadline)
{
	struct pollfd p[MAX_FLOWS];
	int64_t left = deadline - mono_ns();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = left / NS;
	ts.tv_nsec = left % NS;
	for (int i = 0; i < c->flows; i++)
		p[i] = (struct pollfd){ .fd = fl[i].fd, .events = POLLIN };
	ppoll(p, (nfds_t)c->flows, &ts, NULL);
}

/* Send on schedule, then wait for the last replies; returns the
 * seconds the sending took. */
static double run(const struct cfg *c, struct flow *fl, struct totals *t)
{
	double secs;
	int64_t start = mono_ns(), end = start + (int64_t)(c->seconds * NS);
	int64_t per_ns = (int64_t)(NS / c->rate * c->batch);	/* a batch's slot */
	int64_t now;
	int f = 0;

	while (!stop && (now = mono_ns()) < end) {
		uint64_t due = (uint64_t)((double)(now - start) * c->rate / NS);
		int rounds = 0;

		/* at most 4 batches before the replies are read */
		while (t->sent < due && rounds++ < 4) {
			uint64_t k = due - t->sent;

			t->sent += (uint64_t)send_batch(c, &fl[f], k > (uint64_t)c->batch ?
							c->batch : (int)k);
			f = (f + 1) % c->flows;
		}
		if (!drain_all(c, fl, t) && t->sent >= due)
			wait_replies(c, fl, start + (int64_t)(t->sent / (uint64_t)c->batch + 1) *
					     per_ns);
	}
	now = mono_ns();
	secs = (double)(now - start) / NS;
	end = now + c->drain_ms * 1000000;
	while (!stop && mono_ns() < end) {
		if (!drain_all(c, fl, t))
			wait_replies(c, fl, end);
	}
	return secs;
}

static void parse(int argc, char **argv, struct cfg *c)
{
	int opt;

	while ((opt = getopt(argc, argv, "a:b:f:hk:m:n:p:r:s:t:W:")) != -1) {
		switch (opt) {
		case 'a': c->addr = optarg; break;
		case 'b': c->batch = (int)parse_num(optarg, 1, MAX_BATCH, opt); break;
		case 'k': c->rcvbuf_kb = (int)parse_num(optarg, 64, 1 << 20, opt); break;
		case 'm': c->size = (size_t)parse_num(optarg, 32, MAX_LEN, opt); break;
		case 'n': c->flows = (int)parse_num(optarg, 1, MAX_FLOWS, opt); break;
		case 's': c->sessions = (int)parse_num(optarg, 1, MAX_SESSIONS, opt); break;
		case 'p': c->port = (uint16_t)parse_num(optarg, 1, 65535, opt); break;
		case 'r': c->rate = parse_num(optarg, 1, 1e8, opt); break;
		case 't': c->seconds = parse_num(optarg, 0.01, 3600, opt); break;
		case 'W': c->drain_ms = (long)parse_num(optarg, 0, 60000, opt); break;
		case 'f':
			if (!strcmp(optarg, "rant"))
				c->fmt = F_RANT;
			else if (!strcmp(optarg, "stamp"))
				c->fmt = F_STAMP;
			else if (!strcmp(optarg, "sockperf"))
				c->fmt = F_SOCKPERF;
			else {
				fprintf(stderr, "loadgen: -f %s: not a format (rant, stamp or sockperf)\n",
					optarg);
				exit(1);
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(1);
		}
	}
	if (optind != argc || !c->addr) {
		fprintf(stderr, "loadgen: %s\n", optind != argc ? "unexpected arguments" :
			"-a ADDR is required (the reflector's IPv4 address)");
		usage(stderr);
		exit(1);
	}
	if (c->fmt == F_SOCKPERF)
		c->sessions = 1;	/* sockperf has no session field */
	if (c->fmt == F_STAMP && c->size < 44) {
		fprintf(stderr, "loadgen: -m %zu: a STAMP test packet is 44 bytes or more\n",
			c->size);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct cfg c = { .port = 12345, .rate = 100000, .seconds = 2, .flows = 2, .sessions = 7,
			 .batch = 7,
			 .size = 72, .drain_ms = 200, .rcvbuf_kb = 4096 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct flow fl[MAX_FLOWS] = { 0 };
	struct totals t = { 0 };
	uint64_t cap;
	double secs;

	parse(argc, argv, &c);
	to.sin_port = htons(c.port);
	if (inet_pton(AF_INET, c.addr, &to.sin_addr) != 1) {
		fprintf(stderr, "loadgen: -a %s: not an IPv4 address\n", c.addr);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_TIMERSLACK, 1UL);	/* wake on the batch's slot, not 50 us late */
	srandom((unsigned int)(real_ns() ^ getpid()));
	/* Each flow's bitmap holds the whole run: the flows take the batches
	 * in turn, but a batch is as short as what is due, so one flow may
	 * send far more than its share (a reply past a flow's bitmap would
	 * count as foreign, and so as lost, though it came). */
	cap = (uint64_t)(c.rate * c.seconds) + (uint64_t)c.batch * 8 + 64;
	for (int i = 0; i < c.flows; i++)
		if (open_flow(&c, &to, &fl[i], cap))
			return 1;
	secs = run(&c, fl, &t);
	for (int i = 0; i < c.flows; i++) {
		close(fl[i].fd);
		free(fl[i].seen);
	}
	printf("offered=%.0f sent=%llu received=%llu lost=%llu loss_pct=%.4f dup=%llu foreign=%llu rate_sent=%.0f gen_drops=%llu\n",
	       c.rate, (unsigned long long)t.sent, (unsigned long long)t.received,
	       (unsigned long long)(t.sent - t.received),
	       t.sent ? 100.0 * (double)(t.sent - t.received) / (double)t.sent : 0.0,
	       (unsigned long long)t.dup, (unsigned long long)t.foreign,
	       secs > 0 ? (double)t.sent / secs : 0.0, (unsigned long long)t.gen_drops);
	return 0;
}
