// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An answer to its probe by what it quotes (hopmatch.h).
 */
#include <string.h>
#include <sys/socket.h>

#include "hopmatch.h"

#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ICMP 1
#define PROTO_ICMPV6 58
#define UNREACH_PORT4 3		/* ICMPv4 Port Unreachable */
#define UNREACH_PORT6 4		/* ICMPv6 Port Unreachable */

uint32_t hopmatch_tcp_seq(const struct hopmatch *m, uint32_t n)
{
	return m->isn_base + n;
}

uint16_t hopmatch_udp_csum(uint32_t n)
{
	return (uint16_t)(n + 1);
}

uint16_t hopmatch_echo_id(const struct hopmatch *m, unsigned int path)
{
	return (uint16_t)(m->id_base + path);
}

uint16_t hopmatch_echo_csum(unsigned int path)
{
	return (uint16_t)(0x1000 + path);
}

static size_t alen(const struct hopmatch *m)
{
	return m->family == AF_INET6 ? 16 : 4;
}

static int path_of_port(const struct hopmatch *m, uint16_t port)
{
	for (unsigned int i = 0; i < m->paths; i++)
		if (m->sport[i] == port)
			return (int)i;
	return -1;
}

/* The path and number a quoted (or echoed) probe carries, or false. */
static bool quoted(const struct hopmatch *m, const struct pkt_quote *q, struct hopmatch_hit *hit)
{
	int path;
	uint32_t n;

	if (memcmp(q->src, m->src, alen(m)) || memcmp(q->dst, m->dst, alen(m)))
		return false;
	switch (m->proto) {
	case HOPSOCK_TCP:
	case HOPSOCK_UDP:
		if (q->proto != (m->proto == HOPSOCK_TCP ? PROTO_TCP : PROTO_UDP) ||
		    q->dport != m->dport)
			return false;
		path = path_of_port(m, q->sport);
		n = m->proto == HOPSOCK_TCP ? q->seq - m->isn_base : (uint32_t)q->csum - 1;
		break;
	default:
		if (q->proto != (m->family == AF_INET6 ? PROTO_ICMPV6 : PROTO_ICMP))
			return false;
		path = (int)(uint16_t)(q->id - m->id_base);
		path = (unsigned int)path < m->paths ? path : -1;
		n = q->echo_seq;
		break;
	}
	if (path < 0 || n >= m->probes)
		return false;
	hit->path = (unsigned int)path;
	hit->probe = n;
	return true;
}

static bool from_dest(const struct hopmatch *m, const uint8_t from[16])
{
	return !memcmp(from, m->dst, alen(m));
}

bool hopmatch_icmp(const struct hopmatch *m, const struct pkt_icmp *ic, const uint8_t from[16],
		   struct hopmatch_hit *hit)
{
	memset(hit, 0, sizeof(*hit));
	memcpy(hit->from, m->family == AF_INET6 ? from : ic->src, 16);
	switch (ic->kind) {
	case PKT_ICMP_ECHO_REPLY: {
		struct pkt_quote q = { .proto = m->family == AF_INET6 ? PROTO_ICMPV6 : PROTO_ICMP,
				       .id = ic->id, .echo_seq = ic->seq };

		if (m->proto != HOPSOCK_ICMP || !from_dest(m, hit->from))
			return false;
		memcpy(q.src, m->src, 16);
		memcpy(q.dst, m->dst, 16);
		hit->answer = HOP_DEST;
		return quoted(m, &q, hit);
	}
	case PKT_ICMP_TIME_EXCEEDED:
		hit->answer = HOP_TTL;
		return quoted(m, &ic->q, hit);
	case PKT_ICMP_UNREACH:
		hit->code = ic->code;
		/* the destination's Port Unreachable is its answer to UDP */
		hit->answer = from_dest(m, hit->from) &&
			      ic->code == (m->family == AF_INET6 ? UNREACH_PORT6 : UNREACH_PORT4) ?
			      HOP_DEST : HOP_UNREACH;
		return quoted(m, &ic->q, hit);
	default:
		return false;
	}
}

bool hopmatch_tcp(const struct hopmatch *m, const struct pkt_tcp *t, struct hopmatch_hit *hit)
{
	int path;
	uint32_t n;

	memset(hit, 0, sizeof(*hit));
	if (m->proto != HOPSOCK_TCP || t->noflags || t->sport != m->dport ||
	    !(t->seg.flags & TCPSEG_F_ACK) || !(t->seg.flags & (TCPSEG_F_SYN | TCPSEG_F_RST)))
		return false;
	/* an IPv6 raw socket reads the TCP header alone: the family is 0 */
	if (t->family && (memcmp(t->src, m->dst, alen(m)) || memcmp(t->dst, m->src, alen(m))))
		return false;
	path = path_of_port(m, t->dport);
	n = t->seg.ack - 1 - m->isn_base;
	if (path < 0 || n >= m->probes)
		return false;
	hit->path = (unsigned int)path;
	hit->probe = n;
	hit->answer = HOP_DEST;
	memcpy(hit->from, m->dst, 16);
	return true;
}
