/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/print/prom.h: the bucket ladders (--metrics-buckets) and the text format
 * of a snapshot built by hand: cumulative buckets from the log-linear
 * ones (a bucket counts at a bound when its highest value is at or below
 * it), +Inf = _count, negative values below every bound, counters and
 * escaped labels.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "tap.h"

static void ladders(void)
{
	struct prom_ladder l;
	char msg[256];

	ok(!prom_ladder_parse(&l, NULL, msg, sizeof(msg)), "the default ladder");
	is_int(l.n, 71, "10 per decade from 1 us to 10 s: 71 bounds");
	is_i64(l.le_ns[0], 1000, "first bound 1 us");
	is_i64(l.le_ns[1], 1300, "second 1.3 us");
	is_i64(l.le_ns[3], 2000, "fourth 2 us");
	is_i64(l.le_ns[l.n - 1], 10000000000LL, "last 10 s");
	for (unsigned int i = 1; i < l.n; i++)
		if (l.le_ns[i] <= l.le_ns[i - 1] || l.le_ns[i] > l.le_ns[i - 1] * 13 / 10)
			fail("bound %u (%lld) not 0-30%% above the one below", i,
			     (long long)l.le_ns[i]);
	ok(!prom_ladder_parse(&l, "20/decade", msg, sizeof(msg)), "20/decade");
	is_int(l.n, 141, "20 per decade: 141 bounds");
	ok(!prom_ladder_parse(&l, "5,10,20.5", msg, sizeof(msg)), "a list in microseconds");
	is_int(l.n, 3, "three bounds");
	is_i64(l.le_ns[2], 20500, "20.5 us");
	ok(prom_ladder_parse(&l, "10,5", msg, sizeof(msg)), "falling bounds refused");
	ok(strstr(msg, "ascending") != NULL, "and the message says how: %s", msg);
	ok(prom_ladder_parse(&l, "0", msg, sizeof(msg)), "0 refused");
	ok(prom_ladder_parse(&l, "31/decade", msg, sizeof(msg)), "31/decade refused");
	ok(prom_ladder_parse(&l, "4/decades", msg, sizeof(msg)), "4/decades refused");
	ok(prom_ladder_parse(&l, "5,x", msg, sizeof(msg)), "5,x refused");
}

static char *render(const struct snap *s, const struct prom_ladder *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ok(f && !prom_render(f, s, l), "rendered");
	fclose(f);
	return text;
}

static void has(const char *text, const char *line)
{
	ok(strstr(text, line) != NULL, "has %s", line);
}

/* A table of two sessions, one over IPv4 and one over IPv6. */
static void sessions_table(struct snap *s)
{
	static struct session v[2];
	struct sockaddr_in *a = (struct sockaddr_in *)&v[0].addr;
	struct sockaddr_in6 *b = (struct sockaddr_in6 *)&v[1].addr;

	a->sin_family = AF_INET;
	a->sin_port = htons(4000);
	inet_pton(AF_INET, "10.0.0.2", &a->sin_addr);
	b->sin6_family = AF_INET6;
	b->sin6_port = htons(4001);
	inet_pton(AF_INET6, "fd00::2", &b->sin6_addr);
	v[0].id = 0xabcd;
	v[0].ordinal = 4;
	v[0].received = 7;
	v[1].id = 0xdeadbeef;
	v[1].ordinal = 5;
	v[1].sent = 8;
	s->have_sessions = true;
	s->sessions = (struct sessions_snap){ .n = 2, .v = v, .evicted = 3 };
}

static void exposition(void)
{
	static struct hist_bucket hdr[] = {
		{ -5, -5, 1 }, { 999, 999, 2 }, { 1000, 1000, 3 }, { 1001, 1001, 4 },
		{ 1290, 1300, 5 }, { 1301, 1302, 7 }, { 20000000000LL, 20000999999LL, 6 },
	};
	struct rant_cfg cfg = { .mode = MODE_EMIT, .iface = "eth0", .addr = "a\"b\\c" };
	struct snap *s = calloc(1, sizeof(*s));
	struct prom_ladder l;
	char msg[128], *text;

	prom_ladder_parse(&l, "1,1.3,10000000", msg, sizeof(msg));
	s->cfg = &cfg;
	s->emit = true;
	s->cnt.sent = 100;
	s->cnt.lost = 3;
	s->cnt.missing_rx_ts = 2;
	s->shown[M_RTT] = true;
	s->metric[M_RTT] = (struct snap_stats){ .key = "rtt", .hdr = hdr, .nhdr = 7,
						.st = { .samples = 28, .avg = 1000 } };
	s->have_clock = true;
	s->clock.peer_samples = 10;
	s->clock.peer_drift_valid = true;
	s->clock.peer_drift_ppb = 25;
	s->have_clock_live = true;
	s->clock_live.peer_samples = 10;
	s->clock_live.peer_offset_ns = -1500;
	text = render(s, &l);
	has(text, "rant_peer_offset_seconds{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} -1.5e-06\n");
	has(text, "rant_peer_drift_ratio{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 2.5e-08\n");
	ok(!strstr(text, "rant_phc_offset_seconds"), "no PHC offset without PHC readings");
	has(text, "interface=\"eth0\",peer=\"a\\\"b\\\\c\"");
	has(text, "rant_packets_sent_total{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 100\n");
	has(text, "rant_packets_lost_total{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 3\n");
	has(text, "rant_missing_stamps_total{direction=\"rx\",interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 2\n");
	has(text, "# TYPE rant_latency_seconds histogram\n");
	has(text, "{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\",le=\"1e-06\"} 6\n");
	has(text, "{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\",le=\"1.3e-06\"} 15\n");
	has(text, "{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\",le=\"10\"} 22\n");
	has(text, "{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\",le=\"+Inf\"} 28\n");
	has(text, "rant_latency_seconds_count{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 28\n");
	has(text, "rant_latency_seconds_sum{metric=\"rtt\",interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 2.8e-05\n");
	has(text, "mode=\"emit\",interface=\"eth0\"");
	ok(!strstr(text, "metric=\"response\""), "no series of a metric not in the run");
	ok(!strstr(text, "rant_reflector_sessions_total"), "no reflector counters emitting");
	free(text);
	/* live: the PHC's gauges as clock_live read them, no theta drift yet */
	s->have_clock = false;
	s->clock_live = (struct clock_live){ .have_phc = true, .phc_offset_ns = 2500,
					     .phc_drift_valid = true, .phc_drift_ppb = -50000 };
	text = render(s, &l);
	has(text, "rant_phc_offset_seconds{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} 2.5e-06\n");
	has(text, "rant_phc_drift_ratio{interface=\"eth0\",peer=\"a\\\"b\\\\c\"} -5e-05\n");
	ok(!strstr(text, "rant_peer_offset_seconds"), "no theta gauge before a theta");
	ok(!strstr(text, "rant_peer_drift_ratio"), "theta's drift at the end only");
	free(text);
	cfg.mode = MODE_REFLECT;
	s->emit = false;
	s->cnt.sessions = 4;
	text = render(s, &l);
	has(text, "rant_reflector_sessions_total{interface=\"eth0\"} 4\n");
	ok(!strstr(text, "rant_reflector_sessions{"), "no table gauge without the table");
	free(text);
	sessions_table(s);
	text = render(s, &l);
	has(text, "rant_reflector_sessions{interface=\"eth0\"} 2\n");
	has(text, "rant_reflector_sessions_evicted_total{interface=\"eth0\"} 3\n");
	has(text, "# TYPE rant_reflector_session_packets_received_total counter\n");
	has(text, "rant_reflector_session_packets_received_total{interface=\"eth0\",peer=\"10.0.0.2:4000\","
	    "session=\"0000abcd\",ordinal=\"4\"} 7\n");
	has(text, "rant_reflector_session_packets_sent_total{interface=\"eth0\",peer=\"[fd00::2]:4001\","
	    "session=\"deadbeef\",ordinal=\"5\"} 8\n");
	has(text, "rant_packets_sent_total{interface=\"eth0\"} 100\n");
	ok(!strstr(text, "rant_packets_lost_total"), "no loss counter reflecting");
	free(text);
	free(s);
}

int main(void)
{
	ladders();
	exposition();
	return done_testing();
}
