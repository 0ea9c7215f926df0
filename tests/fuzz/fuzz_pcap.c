// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: captured frames, as a hostile network or a corrupt
 * capture file may hand them to --read and --watch (or to the capture
 * beside a probe, or --syn's raw socket): the packet parser (pktparse.h,
 * rant's one) and the flow tracker behind it (flowtab.h, with each
 * flow's tcpana.h analysis and the sums of watchagg.h).
 *
 * The first byte picks the link type; the rest is records of [length:
 * 2 bytes][time step: 1 byte][frame], the step in milliseconds (255: 70
 * s, past --flow-idle). Each frame is parsed with its captured length
 * and a wire length a little longer (a snaplen cut); what parses as TCP
 * goes to a table of 16 flows (so eviction, idle expiry, reuse and
 * closing all happen); each frame is also read as a raw socket's TCP
 * header alone, and as trace's raw ICMP socket reads it (an IPv4
 * packet, an ICMPv6 message: pktparse_icmp). Checks: a verdict in range,
 * a TCP segment's family 4 or 6 (0 for a TCP header alone), a payload
 * within the frame's wire length (an IP length past it is cut to it) and
 * at most 16 tunnels deep, an ICMP result 0, -ENOMSG or -EINVAL with a
 * kind in range; at the end every flow reported, none left open.
 */
#include <errno.h>
#include <pcap/dlt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flowtab.h"
#include "pktparse.h"
#include "watchagg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int dlts[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW, DLT_IPV4,
			    DLT_IPV6, DLT_NULL };

/* The sums live across inputs (their histograms take 4 MiB to make). */
static struct watch_report rep;
static struct watchagg *agg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flowtab_params fp = { .max_flows = 16, .idle_ns = 60000000000LL,
				     .linger_ns = 2000000000LL, .counters_max = 4 };
	struct watchagg_params ap = { .flows_max = 4, .bucket_ns = 1000, .overflow_ns = 100000 };
	int64_t t = 1700000000000000000LL;
	struct flowtab *tab;
	size_t off = 1;
	int dlt;

	if (size < 1)
		return 0;
	if (!agg && !(agg = watchagg_create(&rep, &ap)))
		abort();
	tab = flowtab_create(&fp, agg, &rep);
	if (!tab)
		abort();
	dlt = dlts[data[0] % (sizeof(dlts) / sizeof(dlts[0]))];
	while (off + 3 <= size) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		uint8_t step = data[off + 2];
		struct pkt_tcp pk, alone;
		enum pkt_verdict v, v2;

		off += 3;
		if (len > size - off)
			len = size - off;
		t += step == 255 ? 70000000000LL : (int64_t)step * 1000000;
		v = pktparse(dlt, data + off, (uint32_t)len, (uint32_t)len + (data[0] >> 4),
			     t, &pk);
		if (v >= PKT_VERDICTS)
			abort();
		v2 = pktparse_tcp(data + off, (uint32_t)len, t, &alone);
		if ((v2 != PKT_TCP && v2 != PKT_CUT && v2 != PKT_BAD) ||
		    (v2 == PKT_TCP && (alone.family || alone.seg.len > len)))
			abort();
		for (int fam = 4; fam <= 6; fam += 2) {
			struct pkt_icmp ic;
			int r = pktparse_icmp(fam, data + off, (uint32_t)len, &ic);

			if ((r && r != -ENOMSG && r != -EINVAL) ||
			    (!r && ic.kind > PKT_ICMP_UNREACH))
				abort();
		}
		if (v == PKT_TCP) {
			/* the payload within the frame on the wire, whatever an
			 * IP length says; tunnels within pktparse's bound */
			if ((pk.family != 4 && pk.family != 6) ||
			    pk.seg.len > len + (data[0] >> 4) || pk.tunnels > 16)
				abort();
			flowtab_packet(tab, &pk);
		}
		off += len;
	}
	flowtab_end_all(tab, t);
	if (rep.cnt.flows_active)
		abort();
	watchagg_finish(agg);
	flowtab_destroy(tab);
	return 0;
}
