// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sock_diag through libnl-idiag (see sockdiag.h). libnl's struct
 * tcp_info is glibc's (<netinet/tcp.h>), the part before the kernel's
 * newer fields: this file includes no <linux/tcp.h>, so the struct it
 * returns by value has the library's size.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/idiag/idiagnl.h>
#include <netlink/idiag/meminfo.h>
#include <netlink/idiag/msg.h>

#include "sockdiag.h"

struct dump {
	uint16_t port;
	bool peer;
	struct srv_sock *out;
	size_t max, n;
};

/* libnl-idiag keeps the kernel's 16-byte address field whatever the
 * family (nl_addr_fill_sockaddr refuses an IPv4 one of 16 bytes): the
 * family's part of it. */
static void put_addr(struct sockaddr_storage *ss, struct nl_addr *a, int family, uint16_t port)
{
	const void *bin = a ? nl_addr_get_binary_addr(a) : NULL;
	unsigned int n = a ? nl_addr_get_len(a) : 0;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		if (bin && n >= 4)
			memcpy(&s4->sin_addr, bin, 4);
		s4->sin_port = htons(port);
	} else if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (bin && n >= 16)
			memcpy(&s6->sin6_addr, bin, 16);
		s6->sin6_port = htons(port);
	}
}

static void put_info(struct srv_tcpinfo *t, const struct tcp_info *i)
{
	*t = (struct srv_tcpinfo){
		.valid = true, .ca_state = i->tcpi_ca_state,
		.rtt_us = i->tcpi_rtt, .rttvar_us = i->tcpi_rttvar, .ato_us = i->tcpi_ato,
		.rto_us = i->tcpi_rto, .snd_cwnd = i->tcpi_snd_cwnd, .snd_mss = i->tcpi_snd_mss,
		.unacked = i->tcpi_unacked, .lost = i->tcpi_lost, .retrans = i->tcpi_retrans,
		.total_retrans = i->tcpi_total_retrans,
	};
}

static void one(struct nl_object *obj, void *arg)
{
	struct idiagnl_msg *m = (struct idiagnl_msg *)obj;
	struct dump *d = arg;
	struct idiagnl_meminfo *mi;
	struct tcp_info ti;
	struct srv_sock *s;
	const char *cong;

	/* libnl keeps the ports as the kernel sent them: network order */
	if (d->port &&
	    ntohs(d->peer ? idiagnl_msg_get_dport(m) : idiagnl_msg_get_sport(m)) != d->port)
		return;
	if (d->n++ >= d->max)
		return;
	s = &d->out[d->n - 1];
	memset(s, 0, sizeof(*s));
	s->inode = idiagnl_msg_get_inode(m);
	s->state = idiagnl_msg_get_state(m);
	s->rqueue = idiagnl_msg_get_rqueue(m);
	s->wqueue = idiagnl_msg_get_wqueue(m);
	put_addr(&s->local, idiagnl_msg_get_src(m), idiagnl_msg_get_family(m),
		 ntohs(idiagnl_msg_get_sport(m)));
	put_addr(&s->peer, idiagnl_msg_get_dst(m), idiagnl_msg_get_family(m),
		 ntohs(idiagnl_msg_get_dport(m)));
	mi = idiagnl_msg_get_meminfo(m);
	if (mi) {
		s->tmem = idiagnl_meminfo_get_tmem(mi);
		s->rmem = idiagnl_meminfo_get_rmem(mi);
	}
	cong = idiagnl_msg_get_cong(m);
	if (cong)
		snprintf(s->cong, sizeof(s->cong), "%s", cong);
	ti = idiagnl_msg_get_tcpinfo(m);
	if (s->state != SRV_LISTEN && s->inode)	/* TIME-WAIT and the like: no socket */
		put_info(&s->ti, &ti);
	s->opt.err = -ENODATA;
}

static int dump_family(struct nl_sock *sk, int family, struct dump *d, char *err, size_t len)
{
	struct nl_cache *cache = NULL;
	int ret = idiagnl_msg_alloc_cache(sk, family, IDIAGNL_SS_ALL, &cache);

	if (ret < 0) {
		snprintf(err, len, "sock_diag dump: %s", nl_geterror(ret));
		return -EIO;
	}
	nl_cache_foreach(cache, one, d);
	nl_cache_free(cache);
	return 0;
}

/* Listeners first: the caller reads the port's owner from them. */
static void listeners_first(struct srv_sock *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i].state != SRV_LISTEN)
			continue;
		if (i != w) {
			struct srv_sock t = s[w];

			s[w] = s[i];
			s[i] = t;
		}
		w++;
	}
}

int sockdiag_port(uint16_t port, bool peer, struct srv_sock *out, size_t max, char *err,
		  size_t len)
{
	struct dump d = { .port = port, .peer = peer, .out = out, .max = max };
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk) {
		snprintf(err, len, "sock_diag: no memory for a netlink socket");
		return -ENOMEM;
	}
	ret = idiagnl_connect(sk);
	if (ret < 0) {
		snprintf(err, len, "sock_diag: connecting the netlink socket: %s", nl_geterror(ret));
		nl_socket_free(sk);
		return -EIO;
	}
	/* libnl-idiag 3.7's dump holds both families whichever it is asked
	 * for (checked: an IPv6 listener comes in the AF_INET dump): one */
	ret = dump_family(sk, AF_INET, &d, err, len);
	nl_socket_free(sk);
	if (ret)
		return ret;
	listeners_first(out, d.n < max ? d.n : max);
	return (int)d.n;
}
