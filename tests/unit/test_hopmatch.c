/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/trace/hopmatch.h and the ICMP reading under it (wire/pktparse.h's
 * pktparse_icmp): hand-built Time Exceeded, Destination Unreachable, echo
 * replies, SYN-ACKs and RSTs matched to the probe they quote, by path and
 * number, and everything else (another host's probe, another
 * destination, a cut quote, a number never sent) not matched; the UDP
 * and echo probes carry the checksum asked for (tcpwire.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "be.h"
#include "hopmatch.h"
#include "pktbuild.h"
#include "tap.h"
#include "tcpwire.h"

static const uint16_t ports[3] = { 40001, 40002, 40003 };
static uint8_t me[16], dst[16], r2[16], other[16];

static struct hopmatch matcher(enum hopsock_proto proto, int family)
{
	struct hopmatch m = { .family = family, .proto = proto, .dport = 80, .isn_base = 0xfffffff0,
			      .id_base = 0x7000, .paths = 3, .sport = ports, .probes = 100 };

	memcpy(m.src, me, 16);
	memcpy(m.dst, dst, 16);
	return m;
}

/* An IPv4 header of len bytes in all at p, protocol proto, ttl. */
static void ip4(uint8_t *p, size_t len, uint8_t proto, uint8_t ttl, const uint8_t *src,
		const uint8_t *to)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	be_put16(p + 2, (uint16_t)len);
	p[8] = ttl;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, to, 4);
}

/* An ICMPv4 error from router `from` quoting the probe q (qlen bytes,
 * an IP packet) cut to keep bytes: the whole packet's length. */
static size_t icmp4_error(uint8_t *p, uint8_t type, uint8_t code, const uint8_t *from,
			  const uint8_t *q, size_t keep)
{
	size_t len = 20 + 8 + keep;

	ip4(p, len, 1, 64, from, me);
	memset(p + 20, 0, 8);
	p[20] = type;
	p[21] = code;
	memcpy(p + 28, q, keep);
	return len;
}

/* A probe as it left: IP header (ttl) and transport bytes t. */
static size_t probe4(uint8_t *p, uint8_t proto, uint8_t ttl, const uint8_t *t, size_t tlen)
{
	ip4(p, 20 + tlen, proto, ttl, me, dst);
	memcpy(p + 20, t, tlen);
	return 20 + tlen;
}

static void test_tcp(void)
{
	struct hopmatch m = matcher(HOPSOCK_TCP, AF_INET);
	uint8_t syn[TCPWIRE_SYN_LEN], q[128], pkt[256];
	struct hopmatch_hit hit;
	struct pkt_icmp ic;
	size_t ql, n;

	/* probe 17 of path 2: its sequence number wraps past 2^32 */
	tcpwire_syn(syn, 4, me, dst, ports[1], 80, hopmatch_tcp_seq(&m, 17), 1460, 1);
	ql = probe4(q, 6, 1, syn, sizeof(syn));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);	/* RFC 792: the header and 8 bytes */
	is_int(pktparse_icmp(4, pkt, (uint32_t)n, &ic), 0, "tcp: a Time Exceeded quoting 8 bytes is read");
	is_int(ic.kind, PKT_ICMP_TIME_EXCEEDED, "tcp: as a Time Exceeded");
	is_int(ic.q.ttl, 1, "tcp: the quoted TTL");
	ok(hopmatch_icmp(&m, &ic, NULL, &hit), "tcp: matched");
	ok(hit.path == 1 && hit.probe == 17 && hit.answer == HOP_TTL, "tcp: path 2, probe 17, a hop");
	ok(!memcmp(hit.from, r2, 4), "tcp: the responder is the router");
	n = icmp4_error(pkt, 11, 0, r2, q, ql);	/* Linux quotes it all */
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.probe == 17, "tcp: a whole quote matches the same");
	n = icmp4_error(pkt, 11, 0, r2, q, 27);
	is_int(pktparse_icmp(4, pkt, (uint32_t)n, &ic), -EINVAL, "tcp: a quote cut before 8 bytes is refused");
	n = icmp4_error(pkt, 3, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.answer == HOP_UNREACH && hit.code == 0, "tcp: a router's Network Unreachable ends the path");
	/* not ours: another port, another destination, a number never sent */
	tcpwire_syn(syn, 4, me, dst, 40009, 80, hopmatch_tcp_seq(&m, 17), 1460, 1);
	probe4(q, 6, 1, syn, sizeof(syn));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && !hopmatch_icmp(&m, &ic, NULL, &hit),
	   "tcp: another source port is not ours");
	tcpwire_syn(syn, 4, me, dst, ports[0], 80, hopmatch_tcp_seq(&m, 100), 1460, 1);
	probe4(q, 6, 1, syn, sizeof(syn));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && !hopmatch_icmp(&m, &ic, NULL, &hit),
	   "tcp: a number past the probes is not ours");
	tcpwire_syn(syn, 4, me, other, ports[0], 80, hopmatch_tcp_seq(&m, 3), 1460, 1);
	ip4(q, 60, 6, 1, me, other);
	memcpy(q + 20, syn, sizeof(syn));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && !hopmatch_icmp(&m, &ic, NULL, &hit),
	   "tcp: a probe to another destination is not ours");
}

/* The destination's SYN-ACK (or RST) to probe n of path p. */
static void test_tcp_answer(void)
{
	struct hopmatch m = matcher(HOPSOCK_TCP, AF_INET);
	struct pb_seg s = { .src = "10.82.3.2", .dst = "10.82.0.1", .sport = 80,
			    .dport = ports[2], .seq = 5, .ack = hopmatch_tcp_seq(&m, 41) + 1,
			    .flags = PB_ACK | PB_SYN };
	uint8_t frame[256];
	struct hopmatch_hit hit;
	struct pkt_tcp t;
	size_t n = pb_frame(frame, DLT_RAW, &s);

	ok(pktparse_ip(frame, (uint32_t)n, 0, &t) == PKT_TCP && hopmatch_tcp(&m, &t, &hit),
	   "tcp: the SYN-ACK matched");
	ok(hit.path == 2 && hit.probe == 41 && hit.answer == HOP_DEST, "tcp: path 3, probe 41, the destination");
	s.flags = PB_ACK | PB_RST;
	n = pb_frame(frame, DLT_RAW, &s);
	ok(pktparse_ip(frame, (uint32_t)n, 0, &t) == PKT_TCP && hopmatch_tcp(&m, &t, &hit) &&
	   hit.probe == 41, "tcp: an RST (a closed port) is the destination's answer too");
	s.flags = PB_ACK;
	n = pb_frame(frame, DLT_RAW, &s);
	ok(pktparse_ip(frame, (uint32_t)n, 0, &t) == PKT_TCP && !hopmatch_tcp(&m, &t, &hit),
	   "tcp: a bare ACK is no answer");
	s.flags = PB_ACK | PB_SYN;
	s.src = "10.82.3.9";
	n = pb_frame(frame, DLT_RAW, &s);
	ok(pktparse_ip(frame, (uint32_t)n, 0, &t) == PKT_TCP && !hopmatch_tcp(&m, &t, &hit),
	   "tcp: a SYN-ACK from another host is not ours");
}

static void test_udp(void)
{
	struct hopmatch m = matcher(HOPSOCK_UDP, AF_INET);
	uint8_t u[TCPWIRE_UDP_LEN], q[64], pkt[128];
	struct hopmatch_hit hit;
	struct pkt_icmp ic;
	size_t n;

	m.dport = 33434;
	tcpwire_udp(u, 4, me, dst, ports[0], 33434, hopmatch_udp_csum(9));
	is_int(be_get16(u + 6), 10, "udp: the checksum is the number + 1");
	{	/* and it is right: the sum over pseudo-header and datagram */
		uint32_t acc = 17 + TCPWIRE_UDP_LEN;

		for (int i = 0; i < 4; i += 2)
			acc += be_get16(me + i) + be_get16(dst + i);
		for (size_t i = 0; i < sizeof(u); i += 2)
			acc += be_get16(u + i);
		while (acc >> 16)
			acc = (acc & 0xffff) + (acc >> 16);
		is_int(acc, 0xffff, "udp: a receiver's check of the checksum passes");
	}
	probe4(q, 17, 2, u, sizeof(u));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.probe == 9 && hit.path == 0 && hit.answer == HOP_TTL, "udp: the Time Exceeded matched by the checksum");
	n = icmp4_error(pkt, 3, 3, dst, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.answer == HOP_DEST, "udp: the destination's Port Unreachable is its answer");
	n = icmp4_error(pkt, 3, 3, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.answer == HOP_UNREACH, "udp: a router's Port Unreachable is not the destination's");
}

static void test_icmp(void)
{
	struct hopmatch m = matcher(HOPSOCK_ICMP, AF_INET);
	uint8_t e[TCPWIRE_ECHO_LEN], q[64], pkt[128];
	struct hopmatch_hit hit;
	struct pkt_icmp ic;
	size_t n;

	tcpwire_echo(e, hopmatch_echo_id(&m, 2), 5, hopmatch_echo_csum(2));
	is_int(be_get16(e + 2), hopmatch_echo_csum(2), "icmp: the path's checksum");
	tcpwire_echo(e, hopmatch_echo_id(&m, 2), 77, hopmatch_echo_csum(2));
	is_int(be_get16(e + 2), hopmatch_echo_csum(2), "icmp: the same for another number");
	probe4(q, 1, 3, e, sizeof(e));
	n = icmp4_error(pkt, 11, 0, r2, q, 28);
	ok(pktparse_icmp(4, pkt, (uint32_t)n, &ic) == 0 && hopmatch_icmp(&m, &ic, NULL, &hit) &&
	   hit.path == 2 && hit.probe == 77, "icmp: the Time Exceeded matched by id and seq");
	/* the echo reply: from the destination */
	ip4(pkt, 20 + sizeof(e), 1, 60, dst, me);
	memcpy(pkt + 20, e, sizeof(e));
	pkt[20] = 0;
	ok(pktparse_icmp(4, pkt, 20 + sizeof(e), &ic) == 0 && ic.kind == PKT_ICMP_ECHO_REPLY &&
	   hopmatch_icmp(&m, &ic, NULL, &hit) && hit.answer == HOP_DEST && hit.probe == 77,
	   "icmp: the echo reply is the destination's answer");
	memcpy(pkt + 12, other, 4);
	ok(pktparse_icmp(4, pkt, 20 + sizeof(e), &ic) == 0 && !hopmatch_icmp(&m, &ic, NULL, &hit),
	   "icmp: an echo reply from another host is not ours");
}

/* ICMPv6 as an IPv6 raw socket reads it: from the ICMPv6 header. */
static void test_v6(void)
{
	struct hopmatch m;
	uint8_t syn[TCPWIRE_SYN_LEN], pkt[256], from[16];
	struct hopmatch_hit hit;
	struct pkt_icmp ic;

	inet_pton(AF_INET6, "fd82::1", me);
	inet_pton(AF_INET6, "fd82:3::2", dst);
	inet_pton(AF_INET6, "fd82:1::2", from);
	m = matcher(HOPSOCK_TCP, AF_INET6);
	tcpwire_syn(syn, 6, me, dst, ports[0], 80, hopmatch_tcp_seq(&m, 4), 1440, 1);
	memset(pkt, 0, 8);
	pkt[0] = 3;	/* Time Exceeded, hop limit in transit */
	memset(pkt + 8, 0, 40);
	pkt[8] = 0x60;
	be_put16(pkt + 12, sizeof(syn));
	pkt[14] = 6;
	pkt[15] = 2;
	memcpy(pkt + 16, me, 16);
	memcpy(pkt + 32, dst, 16);
	memcpy(pkt + 48, syn, sizeof(syn));
	ok(pktparse_icmp(6, pkt, 48 + sizeof(syn), &ic) == 0 && ic.kind == PKT_ICMP_TIME_EXCEEDED &&
	   ic.q.ttl == 2, "v6: a Time Exceeded and its quoted hop limit");
	ok(hopmatch_icmp(&m, &ic, from, &hit) && hit.probe == 4 && hit.path == 0 &&
	   !memcmp(hit.from, from, 16), "v6: matched, the responder from recvmsg");
	inet_pton(AF_INET, "10.82.0.1", me);
	inet_pton(AF_INET, "10.82.3.2", dst);
	memset(me + 4, 0, 12);
	memset(dst + 4, 0, 12);
}

int main(void)
{
	inet_pton(AF_INET, "10.82.0.1", me);
	inet_pton(AF_INET, "10.82.3.2", dst);
	inet_pton(AF_INET, "10.82.1.2", r2);
	inet_pton(AF_INET, "10.82.9.9", other);
	test_tcp();
	test_tcp_answer();
	test_udp();
	test_icmp();
	test_v6();
	return done_testing();
}
