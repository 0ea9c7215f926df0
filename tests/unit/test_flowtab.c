/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/watch/flowtab.h and watchagg.h: segments into flows, both
 * directions one flow; client and server from the handshake or the
 * ports; the ends (FIN, RST, idle, the table full, a new SYN, the
 * capture's end), each reported once; the last ACK after the FINs
 * absorbed; the worst flows kept; the server ports summed up.
 */
#include <stdlib.h>

#include "flowtab.h"
#include "pktbuild.h"
#include "tap.h"
#include "watchagg.h"

#define SEC 1000000000LL

static struct watch_report rep;
static struct watchagg *agg;
static struct flowtab *tab;

static void setup(uint32_t max_flows, uint64_t keep)
{
	struct watchagg_params ap = { .flows_max = keep, .bucket_ns = 1000,
				      .overflow_ns = 100000 };
	struct flowtab_params fp = { .max_flows = max_flows, .idle_ns = 60 * SEC,
				     .linger_ns = 2 * SEC, .counters_max = 64 };

	memset(&rep, 0, sizeof(rep));
	agg = watchagg_create(&rep, &ap);
	tab = agg ? flowtab_create(&fp, agg, &rep) : NULL;
	if (!tab)
		BAIL_OUT("flowtab_create");
}

static void teardown(void)
{
	flowtab_destroy(tab);
	watchagg_destroy(agg);
}

/* One segment from (sport) to (dport) between 10.0.0.1 and 10.0.0.2. */
static void seg(int64_t t, bool c2s, uint16_t cport, uint8_t flags, uint32_t seq,
		uint32_t ack, uint32_t len)
{
	struct pb_seg s = { .src = c2s ? "10.0.0.1" : "10.0.0.2",
			    .dst = c2s ? "10.0.0.2" : "10.0.0.1",
			    .sport = c2s ? cport : 80, .dport = c2s ? 80 : cport,
			    .seq = seq, .ack = ack, .flags = flags, .win = 1000, .len = len };
	static uint8_t frame[2048];
	size_t n = pb_frame(frame, DLT_EN10MB, &s);
	struct pkt_tcp pk;

	if (pktparse(DLT_EN10MB, frame, (uint32_t)n, (uint32_t)n, t, &pk) != PKT_TCP)
		BAIL_OUT("pktparse");
	flowtab_packet(tab, &pk);
}

/* A whole connection from cport at t0: handshake, one exchange, FINs,
 * the last ACK. */
static void connection(int64_t t0, uint16_t cport, bool last_ack)
{
	int64_t us = 1000;

	seg(t0, true, cport, PB_SYN, 100, 0, 0);
	seg(t0 + 50 * us, false, cport, PB_SYN | PB_ACK, 500, 101, 0);
	seg(t0 + 100 * us, true, cport, PB_ACK, 101, 501, 0);
	seg(t0 + 200 * us, true, cport, PB_ACK | PB_PSH, 101, 501, 100);
	seg(t0 + 300 * us, false, cport, PB_ACK | PB_PSH, 501, 201, 600);
	seg(t0 + 400 * us, true, cport, PB_ACK, 201, 1101, 0);
	seg(t0 + 500 * us, true, cport, PB_ACK | PB_FIN, 201, 1101, 0);
	seg(t0 + 550 * us, false, cport, PB_ACK | PB_FIN, 1101, 202, 0);
	if (last_ack)
		seg(t0 + 600 * us, true, cport, PB_ACK, 202, 1102, 0);
}

static void test_connection(void)
{
	const struct watch_flow *f;
	char buf[WATCH_ADDR_LEN];

	setup(1024, 100);
	connection(10 * SEC, 40000, true);
	is_u64(rep.all.flows, 1, "one connection, both directions: one flow");
	is_u64(rep.cnt.ends[WE_FIN], 1, "... ended by its FINs");
	is_u64(rep.cnt.after_close, 1, "... its last ACK taken after");
	is_u64(rep.cnt.flows_active, 0, "... and its slot free");
	if (!is_u64(rep.nflows, 1, "kept for the report"))
		goto out;
	f = &rep.flows[0];
	is_str(watch_addr_str(&f->server, buf, sizeof(buf)), "10.0.0.2:80", "server");
	is_str(watch_addr_str(&f->client, buf, sizeof(buf)), "10.0.0.1:40000", "client");
	ok(f->by_syn, "roles from the handshake");
	ok(f->packets[TCPSEG_C2S] == 5 && f->packets[TCPSEG_S2C] == 3,
	   "packets each way (5, 3), the last ACK not counted");
	ok(f->bytes[TCPSEG_C2S] == 100 && f->bytes[TCPSEG_S2C] == 600, "payload bytes each way");
	is_u64(f->exchanges, 1, "one exchange");
	is_int(f->m[WM_EXCHANGE].st.min, 100000, "its latency: request to response, 100 us");
	ok(f->handshake_ns > 0, "handshake captured (%lld ns)", (long long)f->handshake_ns);
	is_u64(rep.all.exchanges, 1, "the capture's sums: one exchange");
	ok(atomic_load(&rep.nports) == 1 && rep.ports[0].port == 80 && rep.ports[0].flows == 1,
	   "server port 80: one flow");
out:
	teardown();
}

static void test_roles_by_port(void)
{
	setup(1024, 100);
	/* mid-connection: the server's data first */
	seg(SEC, false, 40001, PB_ACK | PB_PSH, 5000, 700, 600);
	seg(SEC + 1000, true, 40001, PB_ACK, 700, 5600, 0);
	flowtab_end_all(tab, 2 * SEC);
	watchagg_finish(agg);
	if (is_u64(rep.nflows, 1, "no handshake: one flow")) {
		ok(!rep.flows[0].by_syn && rep.flows[0].server.port == 80 &&
		   rep.flows[0].client.port == 40001, "... the lower port is the server's");
		is_int(rep.flows[0].end, WE_CAPTURE_END, "... reported at the capture's end");
		ok(rep.flows[0].handshake_ns < 0, "... no handshake");
	}
	teardown();
}

static void test_ends(void)
{
	setup(1024, 100);
	seg(SEC, true, 40002, PB_SYN, 1, 0, 0);
	seg(SEC + 10, false, 40002, PB_RST | PB_ACK, 0, 2, 0);
	is_u64(rep.cnt.ends[WE_RST], 1, "an RST ends a flow");
	seg(2 * SEC, true, 40003, PB_ACK | PB_PSH, 1, 1, 10);
	seg(70 * SEC, true, 40004, PB_ACK | PB_PSH, 1, 1, 10);
	is_u64(rep.cnt.ends[WE_IDLE], 1, "a flow silent for 60 s ends, idle");
	seg(71 * SEC, true, 40004, PB_SYN, 1000, 0, 0);
	is_u64(rep.cnt.ends[WE_REUSED], 1, "a new SYN after data: the old flow ends, reused");
	is_u64(rep.all.flows, 4, "... and a new one begins (4 flows)");
	seg(71 * SEC + 10, true, 40004, PB_SYN, 1000, 0, 0);
	is_u64(rep.all.flows, 4, "the same SYN again: the same flow");
	teardown();
}

static void test_bounds(void)
{
	setup(16, 5);
	for (int i = 0; i < 20; i++)
		seg(SEC + i, true, (uint16_t)(41000 + i), PB_ACK | PB_PSH, 1, 1, 10);
	is_u64(rep.cnt.ends[WE_EVICTED], 4, "20 flows in a table of 16: 4 evicted");
	ok(rep.cnt.flows_active == 16 && rep.cnt.flows_active_peak == 16, "16 at once at most");
	flowtab_end_all(tab, 2 * SEC);
	watchagg_finish(agg);
	is_u64(rep.cnt.ends[WE_CAPTURE_END], 16, "the rest at the capture's end");
	is_u64(rep.nflows, 5, "--flows 5: five kept of 20");
	ok(flowtab_bytes(tab) > 0, "the table's size: %zu bytes", flowtab_bytes(tab));
	teardown();
}

static void test_worst(void)
{
	setup(1024, 2);
	for (int i = 0; i < 6; i++) {
		struct watch_flow f = { .held_ns = (i * 7 % 6) * 1000 };

		watchagg_flow(agg, NULL, &f);
	}
	watchagg_finish(agg);
	ok(rep.nflows == 2 && rep.flows[0].held_ns == 5000 && rep.flows[1].held_ns == 4000,
	   "the two most held of six kept, worst first");
	teardown();
}

int main(void)
{
	test_connection();
	test_roles_by_port();
	test_ends();
	test_bounds();
	test_worst();
	return done_testing();
}
