/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/analysis/segdiag.c: a connect's SYN sent again (the same sequence
 * number on the same port, before any SYN-ACK) is one connection whose
 * SYN was retried, not a new one; a SYN never answered is counted
 * unanswered once it is old enough, and not while it may still be.
 */
#include <arpa/inet.h>
#include <string.h>

#include "segdiag.h"
#include "tap.h"

#define MS 1000000LL
#define SPORT 80
#define CPORT 40000

static struct sockaddr_storage server;

static void seg(struct segdiag *d, bool from_server, uint16_t cport, uint16_t flags,
		uint32_t seq, uint32_t ack, int64_t t_ns)
{
	struct pkt_tcp p;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.wscale = -1;
	memcpy(from_server ? p.src : p.dst, "\x0a\x00\x00\x02", 4);
	memcpy(from_server ? p.dst : p.src, "\x0a\x00\x00\x01", 4);
	p.sport = from_server ? SPORT : cport;
	p.dport = from_server ? cport : SPORT;
	p.seg.flags = flags;
	p.seg.seq = seq;
	p.seg.ack = ack;
	p.seg.win = 65535;
	p.seg.t_ns = t_ns;
	segdiag_seg(d, &p);
}

static struct segdiag *fresh(void)
{
	struct sockaddr_in *a = (struct sockaddr_in *)&server;

	memset(&server, 0, sizeof(server));
	a->sin_family = AF_INET;
	a->sin_port = htons(SPORT);
	inet_pton(AF_INET, "10.0.0.2", &a->sin_addr);
	return segdiag_create(4, &server, NULL);
}

int main(void)
{
	struct segdiag_result r;
	struct segdiag *d = fresh();

	if (!ok(d != NULL, "segdiag_create"))
		return done_testing();
	/* a listen queue full: the SYN dropped, sent again 1 s later */
	seg(d, false, CPORT, TCPSEG_F_SYN, 100, 0, 1000 * MS);
	seg(d, false, CPORT, TCPSEG_F_SYN, 100, 0, 2000 * MS);
	seg(d, true, CPORT, TCPSEG_F_SYN | TCPSEG_F_ACK, 900, 101, 2000 * MS + 50000);
	seg(d, false, CPORT, TCPSEG_F_ACK, 101, 901, 2000 * MS + 60000);
	/* another connect never answered, long before the end */
	seg(d, false, CPORT + 1, TCPSEG_F_SYN, 300, 0, 2100 * MS);
	/* and one sent just before the capture stopped */
	seg(d, false, CPORT + 2, TCPSEG_F_SYN, 500, 0, 2990 * MS);
	memset(&r, 0, sizeof(r));
	segdiag_finish(d, 3000 * MS, &r);
	is_int(r.syn_retries, 1, "the SYN sent again on its port is counted a retry");
	is_int(r.syn_unanswered, 1, "the old SYN never answered counted, the last 10 ms' not");
	segdiag_destroy(d);

	/* the port made again with a new ISN: a new connection, no retry */
	d = fresh();
	seg(d, false, CPORT, TCPSEG_F_SYN, 100, 0, 1000 * MS);
	seg(d, false, CPORT, TCPSEG_F_SYN, 7000, 0, 1500 * MS);
	seg(d, true, CPORT, TCPSEG_F_SYN | TCPSEG_F_ACK, 900, 7001, 1500 * MS + 50000);
	memset(&r, 0, sizeof(r));
	segdiag_finish(d, 3000 * MS, &r);
	is_int(r.syn_retries, 0, "a new ISN on the port: no retry");
	is_int(r.syn_unanswered, 1, "the first connect's SYN unanswered");
	segdiag_destroy(d);
	return done_testing();
}
