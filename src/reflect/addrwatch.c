// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A UDP reflector's interface watched for a second address (see
 * addrwatch.h).
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "addrwatch.h"
#include "offloop.h"

struct addrwatch {
	pthread_t tid;
	int fd, family;			/* the reflector's socket */
	char iface[IF_NAMESIZE];
	struct nl_sock *nl;		/* the kernel's news of addresses */
	int stop_fd;			/* eventfd: the loop has ended */
};

static void addrwatch_free(struct addrwatch *w)
{
	if (!w)
		return;
	nl_socket_free(w->nl);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	free(w);
}

/* Until the interface has two addresses of a family, or the stop: the
 * news only wakes it (what it says is counted again with getifaddrs).
 * true: two. */
static bool wait_several(struct addrwatch *w)
{
	struct pollfd p[2] = {
		{ .fd = nl_socket_get_fd(w->nl), .events = POLLIN },
		{ .fd = w->stop_fd, .events = POLLIN },
	};

	/* first the addresses added between the start's count and the
	 * subscription */
	while (!sk_iface_several(w->iface)) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return false;
		if (p[1].revents)
			return false;
		if (p[0].revents)
			nl_recvmsgs_default(w->nl);	/* one read, drained; an
							 * overflow (ENOBUFS) wakes it too */
	}
	return true;
}

/*
 * The thread. First it takes a table of descriptors of its own (copies
 * of the loop's: the socket, the netlink socket, the eventfd): while the
 * loop's table is shared, the kernel takes a reference on the file at
 * each of the loop's calls (__fget_light()'s slow way), which cost a
 * rant spin round trip about 1% (the build without the thread over the
 * build with it sharing the table: B/A 0.986, 0.991, 0.993 over 11, 21
 * and 21 rounds; with a table of its own 0.998 and 1.002, 21 rounds).
 */
static void *watch_main(void *arg)
{
	struct addrwatch *w = arg;
	int ret;

	unshare(CLONE_FILES);	/* on failure, only that price */
	if (!wait_several(w))
		return NULL;
	ret = sk_ask_dst(w->fd, w->family);
	if (ret)
		fprintf(stderr, "rant: %s has another address now, and asking the kernel for each ping's destination failed (setsockopt IP_PKTINFO/IPV6_RECVPKTINFO: %s): its pongs leave from the first address; restart the reflector\n",
			w->iface, strerror(-ret));
	else
		fprintf(stderr, "rant: %s has another address now: each pong leaves from the address its ping came to from here on\n",
			w->iface);
	return NULL;
}

int addrwatch_start(struct addrwatch **wp, struct sk *s, const char *iface, char *err,
		    size_t len)
{
	struct addrwatch *w = calloc(1, sizeof(*w));
	int ret = -ENOMEM;

	*wp = NULL;
	if (!w)
		goto fail;
	w->fd = s->fd;
	w->family = s->family;
	w->stop_fd = -1;
	snprintf(w->iface, sizeof(w->iface), "%s", iface);
	w->nl = nl_socket_alloc();
	if (!w->nl)
		goto fail;
	nl_socket_disable_seq_check(w->nl);	/* news, not answers */
	ret = -EIO;
	if (nl_connect(w->nl, NETLINK_ROUTE) < 0 ||
	    nl_socket_add_memberships(w->nl, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, 0) < 0 ||
	    nl_socket_set_nonblocking(w->nl) < 0)
		goto fail;
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->stop_fd < 0) {
		ret = -errno;
		goto fail;
	}
	s->dst_watched = true;	/* before the thread may ask */
	ret = -offloop_spawn(&w->tid, watch_main, w, NULL);
	if (ret) {
		s->dst_watched = false;
		goto fail;
	}
	*wp = w;
	return 0;
fail:
	snprintf(err, len, "%s: cannot watch its addresses (rtnetlink): %s", iface, strerror(-ret));
	addrwatch_free(w);
	return ret;
}

void addrwatch_stop(struct addrwatch *w)
{
	uint64_t one = 1;

	if (!w)
		return;
	while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(w->tid, NULL);
	addrwatch_free(w);
}
