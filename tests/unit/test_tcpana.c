/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/analysis/tcpana.c and tcptally.c: exchanges cut and timed from hand-made
 * segment timelines, each stall named as the packets show it (seen from
 * the client's side and from the server's), nothing named on a clean
 * exchange, RTT samples by Karn's rule and by timestamps, the handshake,
 * what the segments cannot tell; the tally's shares, medians and merge.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tcpana.h"

#define US 1000LL
#define MS 1000000LL
#define ISN_C 1000u
#define ISN_S 5000u
#define MAXX 16

static struct tcpana_exchange got[MAXX];
static int ngot;
static int64_t rtts[2][64];
static int nrtt[2];

static void on_exchange(void *ctx, const struct tcpana_exchange *x)
{
	(void)ctx;
	if (ngot < MAXX)
		got[ngot++] = *x;
}

static void on_rtt(void *ctx, enum tcpseg_dir dir, int64_t rtt_ns)
{
	(void)ctx;
	if (nrtt[dir] < 64)
		rtts[dir][nrtt[dir]++] = rtt_ns;
}

static struct tcpana *fresh(bool no_client_acks)
{
	struct tcpana_cfg cfg = { .exchange = on_exchange, .rtt = on_rtt,
				  .no_client_acks = no_client_acks };

	ngot = 0;
	nrtt[0] = nrtt[1] = 0;
	return tcpana_create(&cfg);
}

/* One segment: at t (ns), dir, seq/ack relative to each side's ISN + 1
 * (the first byte after the SYN is 0), len bytes, flags, window. */
static void seg(struct tcpana *a, int64_t t, int dir, uint32_t rseq, uint32_t rack,
		uint32_t len, uint16_t flags, uint32_t win)
{
	uint32_t isn_me = dir == TCPSEG_C2S ? ISN_C : ISN_S;
	uint32_t isn_peer = dir == TCPSEG_C2S ? ISN_S : ISN_C;
	struct tcpseg g = { .t_ns = t, .seq = isn_me + 1 + rseq, .ack = isn_peer + 1 + rack,
			    .len = len, .win = win, .flags = flags | TCPSEG_F_ACK,
			    .dir = (uint8_t)dir };

	tcpana_seg(a, &g);
}

/* SYN at t0, SYN-ACK at t0 + rtt, the ACK 10 us later (the client's
 * capture: the round trip lies between SYN and SYN-ACK). */
static void handshake(struct tcpana *a, int64_t t0, int64_t rtt)
{
	struct tcpseg syn = { .t_ns = t0, .seq = ISN_C, .win = 65535, .mss = 1460,
			      .flags = TCPSEG_F_SYN, .dir = TCPSEG_C2S };
	struct tcpseg synack = { .t_ns = t0 + rtt, .seq = ISN_S, .ack = ISN_C + 1, .win = 65535,
				 .mss = 1460, .flags = TCPSEG_F_SYN | TCPSEG_F_ACK,
				 .dir = TCPSEG_S2C };

	tcpana_seg(a, &syn);
	tcpana_seg(a, &synack);
	seg(a, t0 + rtt + 10 * US, TCPSEG_C2S, 0, 0, 0, 0, 65535);
}

static void test_clean(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 200 * US, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 500 * US, TCPSEG_S2C, 0, 100, 800, TCPSEG_F_PSH, 65535);
	seg(a, 510 * US, TCPSEG_C2S, 100, 800, 0, 0, 65535);
	seg(a, 600 * US, TCPSEG_C2S, 100, 800, 0, TCPSEG_F_FIN, 65535);
	ok(tcpana_handshake_ns(a) == 110 * US, "handshake: SYN to SYN-ACK plus SYN-ACK to ACK: %lld ns",
	   (long long)tcpana_handshake_ns(a));
	ok(ngot == 1, "clean: one exchange (%d)", ngot);
	ok(got[0].latency_ns == 300 * US && got[0].first_byte_ns == 300 * US,
	   "clean: latency and first byte 300 us (%lld, %lld)", (long long)got[0].latency_ns,
	   (long long)got[0].first_byte_ns);
	ok(got[0].req_bytes == 100 && got[0].resp_bytes == 800 && got[0].n == 1,
	   "clean: 100 bytes asked, 800 answered, exchange 1");
	ok(got[0].held == TCPANA_NONE && !got[0].kinds, "clean: nothing named (held %s, kinds %x)",
	   tcpana_kind_name(got[0].held), got[0].kinds);
	ok(nrtt[TCPSEG_C2S] == 2 && rtts[TCPSEG_C2S][0] == 100 * US &&
	   rtts[TCPSEG_C2S][1] == 300 * US, "RTT of the client's data: the SYN 100 us, the request 300 us");
	ok(nrtt[TCPSEG_S2C] == 2 && rtts[TCPSEG_S2C][0] == 10 * US &&
	   rtts[TCPSEG_S2C][1] == 10 * US,
	   "RTT of the server's data, at the client: 10 us each (the client's ACK)");
	ok(!tcpana_unknowns(a), "both ways seen: nothing unknown");
	ok(tcpana_segments(a, TCPSEG_C2S) == 5 && tcpana_segments(a, TCPSEG_S2C) == 2,
	   "segments counted each way");
	tcpana_destroy(a);
}

/* nginx with tcp_nodelay off: the header leaves, the body waits for the
 * client's ACK of the header, which the client delays 40 ms. */
static void test_nagle(bool server_side)
{
	struct tcpana *a = fresh(false);
	int64_t rtt = 100 * US, ack_at, body_at;
	const char *where = server_side ? "at the server" : "at the client";

	handshake(a, 0, rtt);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1 * MS + 200 * US, TCPSEG_S2C, 0, 100, 240, TCPSEG_F_PSH, 65535);
	/* the client's delayed ACK; the body right after it reaches the server */
	ack_at = 1 * MS + 200 * US + 40 * MS + (server_side ? rtt : 0);
	body_at = ack_at + (server_side ? 5 * US : rtt);
	seg(a, ack_at, TCPSEG_C2S, 100, 240, 0, 0, 65535);
	seg(a, body_at, TCPSEG_S2C, 240, 100, 600, TCPSEG_F_PSH, 65535);
	seg(a, body_at + 1 * MS, TCPSEG_C2S, 100, 840, 100, TCPSEG_F_PSH, 65535);
	ok(ngot == 1 && got[0].held == TCPANA_NAGLE_DELAYED_ACK,
	   "Nagle %s: nagle_delayed_ack (%d exchanges, held %s)", where, ngot,
	   tcpana_kind_name(got[0].held));
	ok(got[0].held_ns == body_at - (1 * MS + 200 * US),
	   "Nagle %s: held from the header to the body: %lld ns", where, (long long)got[0].held_ns);
	ok(got[0].latency_ns == body_at - 1 * MS, "Nagle %s: latency to the body", where);
	ok(!(got[0].kinds & (1u << TCPANA_SERVER_TIME)), "Nagle %s: not the server's time", where);
	tcpana_destroy(a);
}

/* The same body after a 40 ms hold that no ACK explains: the server's
 * own pause inside its response is not Nagle. */
static void test_no_ack_no_nagle(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 240, TCPSEG_F_PSH, 65535);
	seg(a, 1210 * US, TCPSEG_C2S, 100, 240, 0, 0, 65535);	/* acked at once */
	seg(a, 41200 * US, TCPSEG_S2C, 240, 100, 600, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 42 * MS);
	ok(ngot == 1 && !(got[0].kinds & (1u << TCPANA_NAGLE_DELAYED_ACK)),
	   "a pause after a prompt ACK is not Nagle (kinds %x)", got[0].kinds);
	tcpana_destroy(a);
}

/* The client ACKs the header 3 ms late (slow to run, not a delayed-ACK
 * timer): the body's 3 ms wait is not named Nagle. */
static void test_late_ack_not_delack(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 240, TCPSEG_F_PSH, 65535);
	seg(a, 4200 * US, TCPSEG_C2S, 100, 240, 0, 0, 65535);
	seg(a, 4300 * US, TCPSEG_S2C, 240, 100, 600, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 5 * MS);
	ok(ngot == 1 && !(got[0].kinds & (1u << TCPANA_NAGLE_DELAYED_ACK)),
	   "an ACK 3 ms late is no delayed ACK: no Nagle named (kinds %x)", got[0].kinds);
	tcpana_destroy(a);
}

/* Nagle's shape right after the server sent a segment again: its
 * congestion window recovering, named retransmission. */
static void test_recovery_not_nagle(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);
	seg(a, 201200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);	/* sent again */
	seg(a, 201300 * US, TCPSEG_C2S, 100, 1000, 0, 0, 65535);
	seg(a, 202 * MS, TCPSEG_C2S, 100, 1000, 100, TCPSEG_F_PSH, 65535);
	seg(a, 202200 * US, TCPSEG_S2C, 1000, 200, 240, TCPSEG_F_PSH, 65535);
	seg(a, 242200 * US, TCPSEG_C2S, 200, 1240, 0, 0, 65535);	/* 40 ms late */
	seg(a, 242300 * US, TCPSEG_S2C, 1240, 200, 600, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 243 * MS);
	ok(ngot == 2 && got[1].held == TCPANA_RETRANSMISSION &&
	   !(got[1].kinds & (1u << TCPANA_NAGLE_DELAYED_ACK)),
	   "a hold until a late ACK 1 ms after a retransmission: the congestion window, not Nagle (%s)",
	   tcpana_kind_name(got[1].held));
	tcpana_destroy(a);
}

/* rant --tcp --writes 2: the client's second write waits for the
 * server's delayed ACK of its first. */
static void test_client_nagle(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 50, TCPSEG_F_PSH, 65535);
	seg(a, 41100 * US, TCPSEG_S2C, 0, 50, 0, 0, 65535);	/* delayed ACK */
	seg(a, 41110 * US, TCPSEG_C2S, 50, 0, 50, TCPSEG_F_PSH, 65535);
	seg(a, 41300 * US, TCPSEG_S2C, 0, 100, 100, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 42 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_CLIENT_NAGLE && got[0].held_ns == 40110 * US,
	   "a request in two writes: client_nagle, 40.11 ms (%s, %lld)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	tcpana_destroy(a);
}

static void test_server_time(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1100 * US, TCPSEG_S2C, 0, 100, 0, 0, 65535);
	seg(a, 21100 * US, TCPSEG_S2C, 0, 100, 500, TCPSEG_F_PSH, 65535);
	/* a second exchange, quick: 0.3 ms of the server's is nothing named */
	seg(a, 22 * MS, TCPSEG_C2S, 100, 500, 100, TCPSEG_F_PSH, 65535);
	seg(a, 22400 * US, TCPSEG_S2C, 500, 200, 500, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 23 * MS);
	ok(ngot == 2, "two exchanges (%d)", ngot);
	ok(got[0].held == TCPANA_SERVER_TIME && got[0].held_ns == 20 * MS,
	   "20 ms before the first byte, less the 100 us round trip: server_time %lld ns",
	   (long long)got[0].held_ns);
	ok(got[1].held == TCPANA_NONE && got[1].n == 2, "0.3 ms of the server's: nothing named");
	tcpana_destroy(a);
}

/* The path's RTT beside the exchange: 30 ms at the response (a queue),
 * 100 us idle at the handshake: path_queue, not server_time. */
static void test_path_queue(void)
{
	struct tcpana_path path;
	struct tcpana_cfg cfg = { .exchange = on_exchange, .path = &path };
	struct tcpana *a;

	tcpana_path_init(&path);
	ngot = 0;
	a = tcpana_create(&cfg);
	handshake(a, 0, 100 * US);
	for (int i = 0; i < 5; i++)	/* the path's SYNs under the load */
		tcpana_path_sample(&path, TCPSEG_C2S, 900 * MS + i * 10 * MS, (30 + i) * MS);
	seg(a, 950 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 983 * MS, TCPSEG_S2C, 0, 100, 500, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 990 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_PATH_QUEUE &&
	   !(got[0].kinds & (1u << TCPANA_SERVER_TIME)) &&
	   got[0].held_ns == 32 * MS - 100 * US && got[0].server_ns == 0 &&
	   got[0].path_ns == 32 * MS && got[0].path_idle_ns == 100 * US,
	   "path RTT 32 ms at the response, 100 us idle: path_queue %lld ns, server %lld ns (%s)",
	   (long long)got[0].held_ns, (long long)got[0].server_ns, tcpana_kind_name(got[0].held));
	/* the path idle again: the server's 20 ms are its own */
	tcpana_path_sample(&path, TCPSEG_C2S, 1150 * MS, 100 * US);
	seg(a, 1200 * MS, TCPSEG_C2S, 100, 500, 100, TCPSEG_F_PSH, 65535);
	tcpana_path_sample(&path, TCPSEG_C2S, 1210 * MS, 120 * US);
	seg(a, 1220200 * US, TCPSEG_S2C, 500, 200, 500, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 1300 * MS);
	ok(ngot == 2 && got[1].held == TCPANA_SERVER_TIME && got[1].held_ns == 20080 * US,
	   "path idle: server_time 20 ms less the path's 120 us (%lld ns)", (long long)got[1].held_ns);
	tcpana_destroy(a);
}

/* No path samples: the response's own tsval says it waited 20 ms on the
 * way (its one-way delay 20 ms above the SYN-ACK's). */
static void test_tsval_queue(void)
{
	struct tcpana *a = fresh(false);
	struct tcpseg g = { .t_ns = 100 * US, .seq = ISN_S, .ack = ISN_C + 1, .win = 65535,
			    .mss = 1460, .tsval = 1000, .tsecr = 1,
			    .flags = TCPSEG_F_SYN | TCPSEG_F_ACK | TCPSEG_F_TS, .dir = TCPSEG_S2C };
	struct tcpseg syn = { .t_ns = 0, .seq = ISN_C, .win = 65535, .mss = 1460, .tsval = 1,
			      .flags = TCPSEG_F_SYN | TCPSEG_F_TS, .dir = TCPSEG_C2S };

	tcpana_seg(a, &syn);
	tcpana_seg(a, &g);
	seg(a, 200 * US, TCPSEG_C2S, 0, 0, 0, 0, 65535);
	seg(a, 50 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	/* sent at the server's tsval 1050 (50 ms after the SYN-ACK's), seen
	 * 20 ms later than that */
	g = (struct tcpseg){ .t_ns = 70100 * US, .seq = ISN_S + 1, .ack = ISN_C + 101, .len = 500,
			     .win = 65535, .tsval = 1050, .tsecr = 50,
			     .flags = TCPSEG_F_ACK | TCPSEG_F_TS | TCPSEG_F_PSH,
			     .dir = TCPSEG_S2C };
	tcpana_seg(a, &g);
	tcpana_end(a, 80 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_PATH_QUEUE && got[0].held_ns == 20 * MS &&
	   !(got[0].kinds & (1u << TCPANA_SERVER_TIME)),
	   "the response's tsval 20 ms behind: path_queue %lld ns, no server_time (%s, %lld)",
	   (long long)got[0].held_ns, tcpana_kind_name(got[0].held), (long long)got[0].server_ns);
	tcpana_destroy(a);
}

/* Loss named from what arrives: a response whose first bytes never
 * reached the capture point (its later segment came first), and a
 * request sent again after its RTO: neither wait is the server's. */
static void test_loss_seen(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 30 * MS, TCPSEG_S2C, 500, 100, 500, TCPSEG_F_PSH, 65535);	/* a hole: 0-500 */
	seg(a, 30100 * US, TCPSEG_C2S, 100, 0, 0, 0, 65535);			/* dup ACK */
	seg(a, 31 * MS, TCPSEG_S2C, 0, 100, 500, 0, 65535);			/* the fill */
	seg(a, 40 * MS, TCPSEG_C2S, 100, 1000, 100, TCPSEG_F_PSH, 65535);
	seg(a, 240 * MS, TCPSEG_C2S, 100, 1000, 100, TCPSEG_F_PSH, 65535);	/* again */
	seg(a, 240200 * US, TCPSEG_S2C, 1000, 200, 500, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 250 * MS);
	ok(ngot == 2 && got[0].held == TCPANA_RETRANSMISSION &&
	   !(got[0].kinds & (1u << TCPANA_SERVER_TIME)),
	   "a hole before the response's first segment seen: retransmission (%s %lld ns)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	ok(ngot == 2 && got[1].held == TCPANA_RETRANSMISSION && got[1].server_ns < TCPANA_STALL_NS,
	   "a request sent again: retransmission, the server's %lld ns from its last copy (%s)",
	   (long long)got[1].server_ns, tcpana_kind_name(got[1].held));
	tcpana_destroy(a);
}

static void test_retransmission(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);	/* lost on the way */
	seg(a, 201200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);	/* sent again */
	seg(a, 201300 * US, TCPSEG_C2S, 100, 1000, 0, 0, 65535);
	tcpana_end(a, 202 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_RETRANSMISSION && got[0].held_ns == 200 * MS &&
	   got[0].retransmits == 1, "a segment sent again 200 ms later: retransmission (%s %lld)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	ok(tcpana_retransmits(a) == 1, "counted");
	ok(nrtt[TCPSEG_S2C] == 1, "Karn: the ACK of a segment sent again is no sample (%d)",
	   nrtt[TCPSEG_S2C]);
	tcpana_destroy(a);
}

/*
 * The client's own capture (received_here: the server's data): a copy of
 * a response it already had (the server's tail-loss probe, its ACK late)
 * is counted and holds nothing; a copy that fills a hole it never saw
 * filled is the exchange's retransmission.
 */
static void test_spurious(void)
{
	struct tcpana_cfg cfg = { .exchange = on_exchange, .received_here = 1u << TCPSEG_S2C };
	struct tcpana *a;

	ngot = 0;
	a = tcpana_create(&cfg);
	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);	/* it came */
	seg(a, 6200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);	/* a probe, again */
	seg(a, 6300 * US, TCPSEG_C2S, 100, 1000, 0, 0, 65535);
	seg(a, 7 * MS, TCPSEG_C2S, 100, 1000, 100, TCPSEG_F_PSH, 65535);
	seg(a, 7200 * US, TCPSEG_S2C, 1000, 200, 500, TCPSEG_F_PSH, 65535);
	seg(a, 30 * MS, TCPSEG_S2C, 1000, 200, 500, TCPSEG_F_PSH, 65535);	/* by RTO */
	seg(a, 31 * MS, TCPSEG_C2S, 200, 1500, 0, 0, 65535);
	tcpana_end(a, 40 * MS);
	ok(ngot == 2 && got[0].held == TCPANA_NONE && got[0].retransmits == 1,
	   "a copy of bytes the client had: counted, held nothing (%s %lld)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	ok(ngot == 2 && got[1].held == TCPANA_NONE && got[1].retransmits == 1,
	   "a copy 23 ms later of a response it had: held nothing (%s %lld)",
	   tcpana_kind_name(got[1].held), (long long)got[1].held_ns);
	tcpana_reset(a, &cfg);
	ngot = 0;
	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 500, 100, 500, TCPSEG_F_PSH, 65535);	/* 0-500 lost */
	seg(a, 30 * MS, TCPSEG_S2C, 0, 100, 500, 0, 65535);			/* the fill */
	seg(a, 31 * MS, TCPSEG_C2S, 100, 1000, 0, 0, 65535);
	tcpana_end(a, 40 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_RETRANSMISSION,
	   "the copy that fills a hole the client never saw filled: retransmission (%s %lld)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	tcpana_destroy(a);
}

static void test_window(void)
{
	struct tcpana *a = fresh(false);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 1000, 0, 65535);
	seg(a, 1300 * US, TCPSEG_C2S, 100, 1000, 0, 0, 0);	/* zero window */
	seg(a, 51300 * US, TCPSEG_C2S, 100, 1000, 0, 0, 65535);	/* open again */
	seg(a, 51400 * US, TCPSEG_S2C, 1000, 100, 1000, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 52 * MS);
	ok(ngot == 1 && got[0].held == TCPANA_WINDOW && got[0].held_ns == 50100 * US,
	   "a zero window for 50 ms: window, from the zero window to the data (%s %lld)",
	   tcpana_kind_name(got[0].held), (long long)got[0].held_ns);
	tcpana_destroy(a);
}

/* A socket's view: the client's ACKs cannot be seen; a hold of a
 * delayed-ACK timer's length between two parts of a response is taken
 * for Nagle, a 15 ms one is not. */
static void test_no_client_acks(void)
{
	struct tcpana *a = fresh(true);

	handshake(a, 0, 100 * US);
	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 1200 * US, TCPSEG_S2C, 0, 100, 240, TCPSEG_F_PSH, 65535);
	seg(a, 41300 * US, TCPSEG_S2C, 240, 100, 600, TCPSEG_F_PSH, 65535);
	seg(a, 42 * MS, TCPSEG_C2S, 100, 0, 100, TCPSEG_F_PSH, 65535);
	seg(a, 42200 * US, TCPSEG_S2C, 840, 200, 240, TCPSEG_F_PSH, 65535);
	seg(a, 57200 * US, TCPSEG_S2C, 1080, 200, 600, TCPSEG_F_PSH, 65535);
	tcpana_end(a, 58 * MS);
	ok(ngot == 2 && got[0].held == TCPANA_NAGLE_DELAYED_ACK,
	   "no client ACKs: a 40 ms hold inside the response is taken for Nagle");
	ok(got[1].held != TCPANA_NAGLE_DELAYED_ACK, "no client ACKs: a 15 ms hold is not");
	ok(tcpana_unknowns(a) & TCPANA_U_NO_CLIENT_ACKS, "and it says the verdict is inferred");
	tcpana_destroy(a);
}

static void test_unknowns(void)
{
	struct tcpana *a = fresh(false);
	struct tcpseg cut = { .t_ns = 2 * MS, .len = 100, .flags = TCPSEG_F_CUT,
			      .dir = TCPSEG_C2S };

	seg(a, 1 * MS, TCPSEG_C2S, 0, 0, 100, TCPSEG_F_PSH, 65535);
	tcpana_seg(a, &cut);
	tcpana_end(a, 3 * MS);
	ok(ngot == 0, "a request without a response: no exchange reported");
	ok(tcpana_unknowns(a) == (TCPANA_U_NO_S2C | TCPANA_U_CUT),
	   "one way only and cut headers: said (%x)", tcpana_unknowns(a));
	ok(tcpana_handshake_ns(a) == -1, "no handshake seen: -1");
	tcpana_destroy(a);
}

/* Sequence numbers that wrap mid-connection. */
static void test_wrap(void)
{
	struct tcpana *a = fresh(false);
	uint32_t c = 0xffffff00u, s = 0xfffffff0u;
	struct tcpseg g[] = {
		{ .t_ns = 0, .seq = c, .ack = s, .len = 1000, .win = 65535,
		  .flags = TCPSEG_F_ACK | TCPSEG_F_PSH, .dir = TCPSEG_C2S },
		{ .t_ns = 300 * US, .seq = s, .ack = c + 1000, .len = 2000, .win = 65535,
		  .flags = TCPSEG_F_ACK, .dir = TCPSEG_S2C },
		{ .t_ns = 400 * US, .seq = c + 1000, .ack = s + 2000, .len = 10, .win = 65535,
		  .flags = TCPSEG_F_ACK | TCPSEG_F_PSH, .dir = TCPSEG_C2S },
		{ .t_ns = 600 * US, .seq = s + 2000, .ack = c + 1010, .len = 20, .win = 65535,
		  .flags = TCPSEG_F_ACK, .dir = TCPSEG_S2C },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		tcpana_seg(a, &g[i]);
	tcpana_end(a, 1 * MS);
	ok(ngot == 2 && got[0].resp_bytes == 2000 && got[1].req_bytes == 10 &&
	   !tcpana_retransmits(a), "sequence numbers wrapping: two exchanges, nothing sent again");
	tcpana_destroy(a);
}

/* Timestamps: each tsval's first echo is a sample (as pping takes it). */
static void test_timestamps(void)
{
	struct tcpana *a = fresh(false);
	struct tcpseg d = { .t_ns = 0, .seq = 100, .ack = 900, .len = 10, .win = 65535,
			    .tsval = 7, .tsecr = 3,
			    .flags = TCPSEG_F_ACK | TCPSEG_F_TS | TCPSEG_F_PSH, .dir = TCPSEG_C2S };
	struct tcpseg e = { .t_ns = 250 * US, .seq = 900, .ack = 110, .len = 0, .win = 65535,
			    .tsval = 50, .tsecr = 7, .flags = TCPSEG_F_ACK | TCPSEG_F_TS,
			    .dir = TCPSEG_S2C };

	tcpana_seg(a, &d);
	tcpana_seg(a, &e);
	e.t_ns = 260 * US;	/* the same echo again: no second sample */
	tcpana_seg(a, &e);
	ok(nrtt[TCPSEG_C2S] == 1 && rtts[TCPSEG_C2S][0] == 250 * US,
	   "timestamps: tsval 7 echoed after 250 us, one sample (%d)", nrtt[TCPSEG_C2S]);
	tcpana_destroy(a);
}

static struct tcpana_exchange held_by(enum tcpana_kind k, int64_t ns)
{
	return (struct tcpana_exchange){ .held = k, .held_ns = ns,
					 .kinds = k ? 1u << k : 0 };
}

static void test_tally(void)
{
	struct tcpana_tally *t = tcpana_tally_create(), *u = tcpana_tally_create();
	struct tcpana_diag d[TCPANA_KINDS];
	struct tcpana_exchange x;
	size_t n;

	for (int i = 0; i < 100; i++) {
		if (i < 30)
			x = held_by(TCPANA_NAGLE_DELAYED_ACK, 40 * MS + i * 100 * US);
		else if (i < 32)
			x = held_by(TCPANA_SERVER_TIME, 5 * MS);
		else if (i == 32)
			x = held_by(TCPANA_RETRANSMISSION, 200 * MS);
		else
			x = held_by(TCPANA_NONE, 0);
		tcpana_tally_add(t, &x);
	}
	n = tcpana_tally_diag(t, d, TCPANA_KINDS);
	ok(n == 2 && d[0].kind == TCPANA_NAGLE_DELAYED_ACK && d[1].kind == TCPANA_RETRANSMISSION,
	   "tally: Nagle first, then the retransmission; 2 of 100 of the server's is not named (%zu)",
	   n);
	ok(d[0].exchanges == 30 && d[0].share > 0.299 && d[0].share < 0.301,
	   "tally: Nagle held 30 of 100 (share %.3f)", d[0].share);
	ok(d[0].typical_ns >= 41 * MS && d[0].typical_ns <= 42 * MS && d[0].max_ns == 42900 * US,
	   "tally: Nagle's median 41.5 ms (%lld), max 42.9 ms", (long long)d[0].typical_ns);
	ok(d[0].fix && strstr(d[0].fix, "TCP_NODELAY"), "tally: the fix names TCP_NODELAY");
	n = tcpana_tally_diag(t, d, 1);
	ok(n == 1 && d[0].kind == TCPANA_NAGLE_DELAYED_ACK, "tally: at most max, the largest kept");
	for (int i = 0; i < 100; i++) {
		x = held_by(TCPANA_SERVER_TIME, 10 * MS);
		tcpana_tally_add(u, &x);
	}
	tcpana_tally_merge(t, u);
	n = tcpana_tally_diag(t, d, TCPANA_KINDS);
	ok(tcpana_tally_exchanges(t) == 200 && n == 3 && d[0].kind == TCPANA_SERVER_TIME &&
	   d[0].exchanges == 102, "merge: 200 exchanges, the server's 102 named first");
	ok(d[0].typical_ns >= 9 * MS && d[0].typical_ns <= 10 * MS,
	   "merge: the server's median about 10 ms (%lld)", (long long)d[0].typical_ns);
	tcpana_tally_destroy(t);
	tcpana_tally_destroy(u);
}

/* An exchange of the server alone: its own time ns (held where a stall). */
static struct tcpana_exchange alone(int64_t ns)
{
	struct tcpana_exchange x = held_by(ns >= TCPANA_STALL_NS ? TCPANA_SERVER_TIME : TCPANA_NONE,
					   ns >= TCPANA_STALL_NS ? ns : 0);

	x.resp_first_ns = 1;
	x.server_ns = ns;
	return x;
}

/* What the loaded tally t names first against solo (NULL: none). */
static enum tcpana_kind against(struct tcpana_tally *t, const struct tcpana_tally *solo,
				struct tcpana_diag *d)
{
	struct tcpana_tally *none = tcpana_tally_create();

	tcpana_tally_solo(t, solo ? solo : none);
	tcpana_tally_destroy(none);
	return tcpana_tally_diag(t, d, TCPANA_KINDS) ? d[0].kind : TCPANA_NONE;
}

/*
 * The load told from a stall against the server alone: nginx's holds of
 * 2.8 to 3.9 ms at 100 connections (a middle half as narrow as a
 * stall's) against 40 us alone are server_queue, and so are holds of
 * 40% of the requests against 8% alone (a machine spun by other work);
 * a 20 ms server alone and loaded, a 20 ms stall of one request in ten
 * (as often alone), the same holds without the server alone or with too
 * few of its requests, or grown under TCPANA_QUEUE_RATIO times, stay
 * server_time.
 */
static void test_server_queue(void)
{
	struct tcpana_tally *busy = tcpana_tally_create(), *slow = tcpana_tally_create();
	struct tcpana_tally *fast = tcpana_tally_create(), *s20 = tcpana_tally_create();
	struct tcpana_tally *now_then = tcpana_tally_create(), *few = tcpana_tally_create();
	struct tcpana_tally *ms09 = tcpana_tally_create(), *tenth = tcpana_tally_create();
	struct tcpana_tally *spun = tcpana_tally_create(), *hiccups = tcpana_tally_create();
	struct tcpana_diag d[TCPANA_KINDS];
	struct tcpana_pathsum ps;
	struct tcpana_exchange x;
	enum tcpana_kind k;

	for (int i = 0; i < 400; i++) {
		x = held_by(TCPANA_SERVER_TIME, 2800 * US + (i * 7919 % 1100) * US);
		tcpana_tally_add(busy, &x);
		x = held_by(TCPANA_SERVER_TIME, 19800 * US + (i * 7919 % 800) * US);
		tcpana_tally_add(slow, &x);
		x = i % 10 ? held_by(TCPANA_NONE, 0) : held_by(TCPANA_SERVER_TIME, 20 * MS);
		tcpana_tally_add(tenth, &x);
		x = i % 5 < 2 ? held_by(TCPANA_SERVER_TIME, 1400 * US + i % 7 * 200 * US) :
				held_by(TCPANA_NONE, 0);
		tcpana_tally_add(spun, &x);
	}
	for (int i = 0; i < 100; i++) {
		x = alone(30 * US + i % 20 * US);
		tcpana_tally_add(fast, &x);
		x = alone(i % 10 ? 40 * US : 20 * MS);
		tcpana_tally_add(now_then, &x);
		x = alone(900 * US);
		tcpana_tally_add(ms09, &x);
		x = alone(i % 12 ? 8 * US : 3 * MS);
		tcpana_tally_add(hiccups, &x);
	}
	for (int i = 0; i < 12; i++) {
		x = alone(20 * MS + i * 50 * US);
		tcpana_tally_add(s20, &x);
	}
	for (int i = 0; i < TCPANA_SOLO_MIN - 1; i++) {
		x = alone(40 * US);
		tcpana_tally_add(few, &x);
	}
	k = against(busy, fast, d);
	ok(k == TCPANA_SERVER_QUEUE && d[0].share == 1 && d[0].fix &&
	   strstr(d[0].fix, "busy server"),
	   "holds of 2.8-3.9 ms against 40 us alone: server_queue (%s, middle half %lld-%lld ns)",
	   tcpana_kind_name(k), (long long)d[0].p25_ns, (long long)d[0].p75_ns);
	tcpana_tally_path(busy, &ps);
	ok(ps.solo_exchanges == 100 && ps.solo_ns >= 35 * US && ps.solo_ns <= 45 * US,
	   "the server alone in the path's summary: %llu exchanges, median %lld ns",
	   (unsigned long long)ps.solo_exchanges, (long long)ps.solo_ns);
	const struct {
		struct tcpana_tally *loaded, *solo;
		enum tcpana_kind want;
		const char *what;
	} cases[] = {
		{ slow, s20, TCPANA_SERVER_TIME, "a 20 ms server, alone 20 ms too" },
		{ tenth, now_then, TCPANA_SERVER_TIME, "a 20 ms stall of one request in ten, alone too" },
		{ spun, hiccups, TCPANA_SERVER_QUEUE, "held 40% loaded, 8% alone (a machine spun by other work)" },
		{ busy, NULL, TCPANA_SERVER_TIME, "without the server alone (a capture read)" },
		{ busy, few, TCPANA_SERVER_TIME, "4 requests alone, too few" },
		{ busy, ms09, TCPANA_SERVER_TIME, "holds of 2.8-3.9 ms against 0.9 ms alone (under 4 times)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		k = against(cases[i].loaded, cases[i].solo, d);
		ok(k == cases[i].want, "%s: %s (%s)", cases[i].what, tcpana_kind_name(cases[i].want),
		   tcpana_kind_name(k));
	}
	tcpana_tally_destroy(busy);
	tcpana_tally_destroy(slow);
	tcpana_tally_destroy(fast);
	tcpana_tally_destroy(s20);
	tcpana_tally_destroy(now_then);
	tcpana_tally_destroy(few);
	tcpana_tally_destroy(ms09);
	tcpana_tally_destroy(tenth);
	tcpana_tally_destroy(spun);
	tcpana_tally_destroy(hiccups);
}

/* The P-squared median of 10001 shuffled values 0..10000 is near 5000. */
static void test_median(void)
{
	struct tcpana_tally *t = tcpana_tally_create();
	struct tcpana_diag d[TCPANA_KINDS];
	static int64_t v[10001];
	struct tcpana_exchange x;
	uint32_t r = 1;

	for (int i = 0; i <= 10000; i++)
		v[i] = i * US;
	for (int i = 10000; i > 0; i--) {	/* a fixed shuffle (xorshift) */
		int j;
		int64_t tmp;

		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		j = (int)(r % (uint32_t)(i + 1));
		tmp = v[i];
		v[i] = v[j];
		v[j] = tmp;
	}
	for (int i = 0; i <= 10000; i++) {
		x = held_by(TCPANA_WINDOW, v[i] + 1);
		tcpana_tally_add(t, &x);
	}
	tcpana_tally_diag(t, d, TCPANA_KINDS);
	ok(d[0].typical_ns > 4850 * US && d[0].typical_ns < 5150 * US,
	   "P-squared: the median of 0..10 ms within 3%% of 5 ms (%lld)", (long long)d[0].typical_ns);
	tcpana_tally_destroy(t);
}

int main(void)
{
	ok(!strcmp(tcpana_kind_name(TCPANA_NAGLE_DELAYED_ACK), "nagle_delayed_ack") &&
	   !strcmp(tcpana_kind_name(TCPANA_NONE), "none") && !tcpana_kind_fix(TCPANA_NONE),
	   "kind names");
	ok(tcpana_size() < 1024, "a connection's state is %zu bytes", tcpana_size());
	test_clean();
	test_nagle(false);
	test_nagle(true);
	test_no_ack_no_nagle();
	test_late_ack_not_delack();
	test_recovery_not_nagle();
	test_client_nagle();
	test_server_time();
	test_server_queue();
	test_path_queue();
	test_tsval_queue();
	test_loss_seen();
	test_retransmission();
	test_spurious();
	test_window();
	test_no_client_acks();
	test_unknowns();
	test_wrap();
	test_timestamps();
	test_tally();
	test_median();
	return done_testing();
}
