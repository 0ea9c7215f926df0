// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simnic-probe: a self-test for the simulated PHC NIC (libsimnic.so). It
 * does what a PTP daemon or rant does with a NIC, with nothing of rant's:
 * reads the interface's timestamping capabilities, asks for hardware
 * stamps (SIOCSHWTSTAMP, read back with SIOCGHWTSTAMP when refused), turns
 * on SO_TIMESTAMPING with the hardware flags, and exchanges UDP packets,
 * printing every stamp it gets. Both ends bind the port, and each packet
 * starts as a PTPv2 event message does (Delay_Req from ping, Sync from
 * echo), so that on port 319 a PTP-only NIC stamps it:
 *
 *   simnic-probe -i IFACE [-f FILTER] [-s] [-r] -p PORT -n COUNT echo
 *   simnic-probe -i IFACE [-f FILTER] [-s] [-r] -a ADDR -p PORT -n COUNT ping
 *
 * (-s: software stamps too; -r: a payload that is not a PTP message)
 *
 * Output, one line each:
 *   info so_timestamping=0x.. phc_index=N tx_types=0x.. rx_filters=0x..
 *   hwtstamp set tx=T rx=R        (what the driver applied) or
 *   hwtstamp error ERRNO-NAME tx=T rx=R   (the set failed; the read-back)
 *   sockflags 0x..                (SO_TIMESTAMPING as getsockopt reads it)
 *   rx KN_NS HW_NS                (a received packet; 0 for an absent stamp,
 *                                  "rx - -" when the packet had no stamps)
 *   tx KEY KN_NS HW_NS            (a TX report; "tx - - -" when none came)
 * Exit 0 when the exchange completed, 1 on a usage or setup error, 2 when
 * a packet did not come back in time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC 1000000000LL

struct probe {
	const char *iface, *addr, *mode;
	int port, count, filter;
	int sw;			/* also ask for software stamps */
	int raw;		/* payload without the PTP header's bytes */
	int fd;
};

static long long ts_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * NS_PER_SEC + ts->tv_nsec;
}

static int if_ioctl(int fd, const char *iface, unsigned long req, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = data;
	return ioctl(fd, req, &ifr);
}

static int nic_setup(const struct probe *p)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct hwtstamp_config cfg = { .tx_type = HWTSTAMP_TX_ON, .rx_filter = p->filter };

	if (if_ioctl(p->fd, p->iface, SIOCETHTOOL, &info)) {
		fprintf(stderr, "%s: ioctl ETHTOOL_GET_TS_INFO: %s\n", p->iface, strerror(errno));
		return -1;
	}
	printf("info so_timestamping=0x%x phc_index=%d tx_types=0x%x rx_filters=0x%x\n",
	       info.so_timestamping, info.phc_index, info.tx_types, info.rx_filters);
	if (!if_ioctl(p->fd, p->iface, SIOCSHWTSTAMP, &cfg)) {
		printf("hwtstamp set tx=%d rx=%d\n", cfg.tx_type, cfg.rx_filter);
		return 0;
	}
	printf("hwtstamp error %s", errno == ERANGE ? "ERANGE" : errno == EBUSY ? "EBUSY" :
	       errno == EOPNOTSUPP ? "EOPNOTSUPP" : strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	if (if_ioctl(p->fd, p->iface, SIOCGHWTSTAMP, &cfg))
		printf(" (SIOCGHWTSTAMP: %s)\n", strerror(errno));
	else
		printf(" tx=%d rx=%d\n", cfg.tx_type, cfg.rx_filter);
	return 0;
}

static int sock_setup(struct probe *p)
{
	int flags = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
		    SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_ID |
		    SOF_TIMESTAMPING_OPT_TSONLY;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(flags);
	struct timespec settle = { 0, 200000000 };

	if (p->sw)
		flags |= SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE;
	p->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (p->fd < 0 || setsockopt(p->fd, SOL_SOCKET, SO_BINDTODEVICE, p->iface,
				    (socklen_t)strlen(p->iface))) {
		perror("socket, SO_BINDTODEVICE");
		return -1;
	}
	if (nic_setup(p))
		return -1;
	if (setsockopt(p->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) ||
	    getsockopt(p->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &len)) {
		perror("SO_TIMESTAMPING");
		return -1;
	}
	printf("sockflags 0x%x\n", flags);
	/* Both ends on the port, as PTP daemons do: NICs match the
	 * destination port of either direction. */
	sin.sin_port = htons((unsigned short)p->port);
	if (bind(p->fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("bind");
		return -1;
	}
	nanosleep(&settle, NULL);	/* the kernel enables RX stamps from a worker */
	return 0;
}

static struct scm_timestamping *tstamp_of(struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping)))
			return (struct scm_timestamping *)(void *)CMSG_DATA(c);
	return NULL;
}

static struct sock_extended_err *ee_of(struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
			return (struct sock_extended_err *)(void *)CMSG_DATA(c);
	return NULL;
}

/* Wait up to ms for events on fd. */
static int wait_for(int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	return poll(&pfd, 1, ms) > 0 ? pfd.revents : 0;
}

/* One packet in; its sender in from. 0, or -1 when none came in time. */
static int recv_one(const struct probe *p, struct sockaddr_in *from)
{
	char data[256], ctrl[512];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = { .msg_name = from, .msg_namelen = sizeof(*from),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
	struct scm_timestamping *t;

	if (!(wait_for(p->fd, POLLIN, 2000) & POLLIN) || recvmsg(p->fd, &msg, 0) < 0)
		return -1;
	t = tstamp_of(&msg);
	if (t)
		printf("rx %lld %lld\n", ts_ns(&t->ts[0]), ts_ns(&t->ts[2]));
	else
		printf("rx - -\n");
	return 0;
}

/* The TX report of the packet just sent, if one comes within 200 ms. */
static void tx_report(const struct probe *p)
{
	char data[64], ctrl[512];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
	struct sock_extended_err *ee;
	struct scm_timestamping *t;

	if ((wait_for(p->fd, 0, 200) & POLLERR) &&
	    recvmsg(p->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
		ee = ee_of(&msg);
		t = tstamp_of(&msg);
		if (ee && t && ee->ee_origin == SO_EE_ORIGIN_TIMESTAMPING) {
			printf("tx %u %lld %lld\n", ee->ee_data, ts_ns(&t->ts[0]),
			       ts_ns(&t->ts[2]));
			return;
		}
	}
	printf("tx - - -\n");
}

static int run(const struct probe *p)
{
	struct sockaddr_in peer = { .sin_family = AF_INET };
	/* A PTPv2 event header's first bytes (Delay_Req out, Sync back),
	 * so that a NIC which stamps only PTP event packets stamps them. */
	char payload[64] = { 0x01, 0x02, 's', 'i', 'm', 'n', 'i', 'c', '-',
			     'p', 'r', 'o', 'b', 'e' };
	int i;

	if (!strcmp(p->mode, "echo"))
		payload[0] = 0x00;
	if (p->raw)
		memcpy(payload, "simnic-probe", sizeof("simnic-probe"));

	if (!strcmp(p->mode, "ping")) {
		peer.sin_port = htons((unsigned short)p->port);
		if (inet_pton(AF_INET, p->addr, &peer.sin_addr) != 1) {
			fprintf(stderr, "-a %s: not an IPv4 address\n", p->addr);
			return 1;
		}
	}
	for (i = 0; i < p->count; i++) {
		if (!strcmp(p->mode, "echo") && recv_one(p, &peer))
			return 2;
		if (sendto(p->fd, payload, sizeof(payload), 0, (struct sockaddr *)&peer,
			   sizeof(peer)) < 0) {
			perror("sendto");
			return 2;
		}
		tx_report(p);
		if (!strcmp(p->mode, "ping") && recv_one(p, &peer))
			return 2;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: simnic-probe -i IFACE [-f FILTER] [-s] [-r] [-a ADDR] -p PORT -n COUNT echo|ping\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct probe p = { .port = 319, .count = 1, .filter = HWTSTAMP_FILTER_ALL, .fd = -1 };
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "i:a:p:n:f:sr")) != -1) {
		switch (c) {
		case 'i': p.iface = optarg; break;
		case 'a': p.addr = optarg; break;
		case 'p': p.port = atoi(optarg); break;
		case 'n': p.count = atoi(optarg); break;
		case 'f': p.filter = atoi(optarg); break;
		case 's': p.sw = 1; break;
		case 'r': p.raw = 1; break;
		default: return usage();
		}
	}
	if (optind != argc - 1 || !p.iface)
		return usage();
	p.mode = argv[optind];
	if ((strcmp(p.mode, "echo") && strcmp(p.mode, "ping")) ||
	    (!strcmp(p.mode, "ping") && !p.addr))
		return usage();
	if (sock_setup(&p))
		return 1;
	return run(&p);
}
