/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floorsrv: the floor reflector of the fleet bench (bench/fleet.sh): the
 * least a UDP reflector that keeps every kernel stamp can cost, to
 * compare rant's reflector with under load from many emitters.
 *
 * It echoes every datagram to its sender, unchanged, with
 * SO_TIMESTAMPING set to -t FLAGS (rant's own, read by fleet.sh) and
 * SO_RXQ_OVFL, as rant's socket has them: each datagram's RX stamp is
 * read from its control data, and the error queue (the TX stamps of the
 * echoes: SCHED and SND) is read after the echoes went out. Each stamp
 * is counted and folded into a sum, so none is skipped; nothing else is
 * done (no parsing, no sessions, no records).
 *
 * -k KB sets the receive buffer as rant's reflector sets its own (4096).
 * Without -B: one recvmsg(), one sendto(), then the error queue read
 * empty, one report a recvmsg() (as bench/floor's server). With -B N:
 * up to N datagrams a recvmmsg(), their echoes in one sendmmsg(), the
 * error queue read N reports a recvmmsg(): the batching floor.
 * Spinning (MSG_DONTWAIT) unless -b (blocking: the receive waits for
 * the first datagram, MSG_WAITFORONE). At SIGINT/SIGTERM it prints
 *
 *   received=R sent=S rx_stamps=X tx_snd=Y tx_sched=Z drops=D
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 256
#define BUF_LEN 2048
#define CTL_LEN 256

struct counts {
	uint64_t received, sent, rx_stamps, tx_snd, tx_sched;
	uint32_t drops;
	int64_t sum;		/* of every stamp read: none is skipped */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: floorsrv [-p PORT] [-t FLAGS] [-B N] [-b] [-k KB]\n"
		"  -p PORT   UDP port (default 12345)\n"
		"  -t FLAGS  SO_TIMESTAMPING flags (SOF_TIMESTAMPING_* bits, 0x99a as rant on veth;\n"
		"            default 0: none)\n"
		"  -B N      batch: up to N datagrams a recvmmsg()/sendmmsg(), N reports an\n"
		"            error-queue recvmmsg(), 1 to %d (default: one at a time)\n"
		"  -b        block in the receive (default: spin)\n"
		"  -k KB     receive buffer (SO_RCVBUFFORCE; default: the system's)\n",
		MAX_BATCH);
}

static long parse_num(const char *s, long lo, long hi, char opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "floorsrv: -%c: %s is out of range %ld to %ld\n", opt, s, lo, hi);
		exit(1);
	}
	return v;
}

/* The control data of one message: stamps and drops counted. */
static void read_cmsgs(struct msghdr *m, struct counts *n, bool errq)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPING &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			n->sum += ts.tv_sec * 1000000000LL + ts.tv_nsec;
			if (!errq)
				n->rx_stamps++;
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			memcpy(&n->drops, CMSG_DATA(cm), sizeof(n->drops));
		} else if (errq && cm->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err))) {
			struct sock_extended_err ee;

			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_TIMESTAMPING)
				continue;
			n->tx_snd += ee.ee_info == SCM_TSTAMP_SND;
			n->tx_sched += ee.ee_info == SCM_TSTAMP_SCHED;
		}
	}
}

struct slots {
	struct mmsghdr mm[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	struct sockaddr_storage src[MAX_BATCH];
	char ctl[MAX_BATCH][CTL_LEN];
	uint8_t buf[MAX_BATCH][BUF_LEN];
};

/* Ready k slots for a receive (data, or errq: the error queue). */
static void slots_ready(struct slots *s, int k, bool errq)
{
	for (int i = 0; i < k; i++) {
		struct msghdr *h = &s->mm[i].msg_hdr;

		s->iov[i] = (struct iovec){ .iov_base = s->buf[i], .iov_len = BUF_LEN };
		*h = (struct msghdr){ .msg_control = s->ctl[i], .msg_controllen = CTL_LEN };
		if (!errq) {
			h->msg_name = &s->src[i];
			h->msg_namelen = sizeof(s->src[i]);
			h->msg_iov = &s->iov[i];
			h->msg_iovlen = 1;
		}
	}
}

/* The error queue read empty, k reports a call. */
static void errq_drain(int fd, struct slots *s, int k, struct counts *n)
{
	int got;

	do {
		slots_ready(s, k, true);
		got = recvmmsg(fd, s->mm, (unsigned int)k, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
		for (int i = 0; i < got; i++)
			read_cmsgs(&s->mm[i].msg_hdr, n, true);
	} while (got == k);
}

/* k datagrams in s echoed, in one sendmmsg(). */
static void echo(int fd, struct slots *s, int k, struct counts *n)
{
	int done = 0;

	for (int i = 0; i < k; i++) {
		s->iov[i].iov_len = s->mm[i].msg_len;
		s->mm[i].msg_hdr.msg_control = NULL;	/* the stamps stay here */
		s->mm[i].msg_hdr.msg_controllen = 0;
	}
	while (done < k) {
		int sent = sendmmsg(fd, s->mm + done, (unsigned int)(k - done), MSG_DONTWAIT);

		if (sent <= 0) {
			done++;		/* that echo is lost: go on */
			continue;
		}
		n->sent += (uint64_t)sent;
		done += sent;
	}
}

static void serve(int fd, int batch, bool block, struct counts *n)
{
	static struct slots s;
	int flags = block ? MSG_WAITFORONE : MSG_DONTWAIT;

	while (!stop) {
		int got;

		slots_ready(&s, batch, false);
		got = recvmmsg(fd, s.mm, (unsigned int)batch, flags, NULL);
		if (got <= 0)
			continue;
		for (int i = 0; i < got; i++)
			read_cmsgs(&s.mm[i].msg_hdr, n, false);
		n->received += (uint64_t)got;
		echo(fd, &s, got, n);
		errq_drain(fd, &s, batch, n);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(12345) };
	struct sigaction sa = { .sa_handler = on_signal };
	struct timeval tv = { .tv_usec = 100000 };
	unsigned int ts_flags = 0;
	struct counts n = { 0 };
	int opt, fd, one = 1, zero = 0, batch = 1, rcvbuf = 0;
	bool block = false;

	while ((opt = getopt(argc, argv, "bB:hk:p:t:")) != -1) {
		switch (opt) {
		case 'b': block = true; break;
		case 'B': batch = (int)parse_num(optarg, 1, MAX_BATCH, opt); break;
		case 'p': a.sin6_port = htons((uint16_t)parse_num(optarg, 1, 65535, opt)); break;
		case 't': ts_flags = (unsigned int)parse_num(optarg, 0, 0xffff, opt); break;
		case 'k': rcvbuf = (int)parse_num(optarg, 1, 1 << 20, opt) * 1024; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf))) ||
	    (ts_flags && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &ts_flags,
				    sizeof(ts_flags))) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "floorsrv: socket setup (port %u, -t 0x%x): %s\n",
			ntohs(a.sin6_port), ts_flags, strerror(errno));
		return 1;
	}
	fprintf(stderr, "floorsrv: port %u, so_timestamping=0x%x, batch %d, %s\n",
		ntohs(a.sin6_port), ts_flags, batch, block ? "blocking" : "spinning");
	serve(fd, batch, block, &n);
	printf("received=%llu sent=%llu rx_stamps=%llu tx_snd=%llu tx_sched=%llu drops=%u sum=%lld\n",
	       (unsigned long long)n.received, (unsigned long long)n.sent,
	       (unsigned long long)n.rx_stamps, (unsigned long long)n.tx_snd,
	       (unsigned long long)n.tx_sched, n.drops, (long long)n.sum);
	close(fd);
	return 0;
}
