// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metrics table and what derives from it (see metric.h).
 */
#include "metric.h"
#include "msgfmt.h"

const struct metric_def metric_defs[M_COUNT] = {
	[M_RTT] = { "rtt", "Round trip (T4 - T1)",
		    P_T4_WIRE, P_T1_WIRE, 0, 0, false, false },
	[M_RESPONSE] = { "response", "Reflector response (T3 - T2)",
			 P_T3_WIRE, P_T2_WIRE, 0, 0, false, false },
	[M_NETWORK] = { "network", "Network, both ways (RTT - response)",
			P_T4_WIRE, P_T1_WIRE, P_T3_WIRE, P_T2_WIRE, false, true },
	[M_RTT_SW] = { "rtt_sw", "Round trip, user space (T4_SW - T1_SW)",
		       P_T4_SW, P_T1_SW, 0, 0, true, false },
	[M_EMIT_TX] = { "emit_tx", "App-to-NIC TX, emitter (T1 - T1_SW)",
			P_T1_WIRE, P_T1_SW, 0, 0, true, true },
	[M_REFLECT_RX] = { "reflect_rx", "NIC-to-App RX, reflector (T2_SW - T2)",
			   P_T2_SW, P_T2_WIRE, 0, 0, true, true },
	[M_REFLECT_PROC] = { "reflect_proc", "App processing, reflector (T3_SW - T2_SW)",
			     P_T3_SW, P_T2_SW, 0, 0, true, true },
	[M_REFLECT_TX] = { "reflect_tx", "App-to-NIC TX, reflector (T3 - T3_SW)",
			   P_T3_WIRE, P_T3_SW, 0, 0, true, true },
	[M_EMIT_RX] = { "emit_rx", "NIC-to-App RX, emitter (T4_SW - T4)",
			P_T4_SW, P_T4_WIRE, 0, 0, true, true },
	[M_EMIT_ACK] = { "emit_ack", "Until the peer's ACK (reflector, server), TCP (T_ACK - T1)",
			 P_T_ACK, P_T1_WIRE, 0, 0, false, false },
	[M_OWD_FWD] = { "owd_fwd", "One way, emitter to reflector (T2 - T1)",
			P_T2_WIRE, P_T1_WIRE, 0, 0, false, false },
	[M_OWD_BACK] = { "owd_back", "One way, reflector to emitter (T4 - T3)",
			 P_T4_WIRE, P_T3_WIRE, 0, 0, false, false },
	[M_EMIT_QUEUE] = { "emit_queue", "Sender's queue, emitter (T1_KN - T1_SCHED)",
			   0, 0, 0, 0, false, false },
	[M_REFLECT_QUEUE] = { "reflect_queue", "Sender's queue, reflector (T3_KN - T3_SCHED)",
			      0, 0, 0, 0, false, false },
	[M_SYN_RTT] = { "syn_rtt", "Handshake, SYN to SYN-ACK (T4 - T1)",
			P_T4_WIRE, P_T1_WIRE, 0, 0, false, false },
	[M_REQUEST] = { "request", "Request, first byte sent to last byte received",
			P_T4_WIRE, P_T1_WIRE, 0, 0, false, false },
	[M_FIRST_BYTE] = { "first_byte", "Request sent to the response's first byte",
			   P_T2_WIRE, P_T1_WIRE, 0, 0, false, false },
	[M_CONNECT] = { "connect", "Each connection's handshake, SYN to SYN-ACK",
			0, 0, 0, 0, false, false },
};

static bool diff(const struct txrec *r, enum point a, enum point b,
		 int64_t *ns)
{
	int64_t ta = txrec_stamp(r, a), tb = txrec_stamp(r, b);

	if (ta == TS_NONE || tb == TS_NONE)
		return false;
	*ns = ns_sub(ta, tb);	/* saturates: stamps may come off the wire */
	return true;
}

bool metric_value(enum metric_id m, const struct txrec *r, int64_t *ns)
{
	const struct metric_def *d = &metric_defs[m];
	int64_t v, w;

	if (metric_is_queue(m))
		return txrec_queue(r, m == M_EMIT_QUEUE, ns);
	if (!metric_of_record(m))
		return false;
	if (!diff(r, d->a, d->b, &v))
		return false;
	if (d->c != d->d) {
		if (!diff(r, d->c, d->d, &w))
			return false;
		v = ns_sub(v, w);
	}
	*ns = v;
	return true;
}

/* A probe's metrics: the handshake, or the requests' (with the server's
 * ACK of each request: emit_ack); the sender's queue of a SYN. */
static bool probe_metric(const struct rant_cfg *c, enum metric_id m)
{
	if (c->icmp || c->syn)
		return m == metric_primary(c) || (m == M_EMIT_QUEUE && !c->no_queue_stamps);
	return m == M_REQUEST || m == M_FIRST_BYTE || m == M_CONNECT || m == M_EMIT_ACK;
}

static uint32_t max_size(const struct rant_cfg *c)
{
	uint32_t max = c->size;

	for (unsigned int i = 0; i < c->nsizes; i++)
		if (c->sizes[i] > max)
			max = c->sizes[i];
	return max;
}

/* Do the pongs of some size of the run carry the reflector's stamps? */
static bool carry_body(const struct rant_cfg *c)
{
	const struct msgfmt_caps *k = &msgfmt_find(opts_format(c))->caps;

	return k->reflector_stamps && max_size(c) >= k->body_len;
}

bool metric_in_run(const struct rant_cfg *c, enum metric_id m)
{
	const struct metric_def *d = &metric_defs[m];

	if (cfg_probe(c))
		return probe_metric(c, m);
	if (m >= M_SYN_RTT)
		return false;
	if (cfg_fleet(c))
		return m == M_RTT;	/* a fleet's targets: the round trip */
	if (d->sw && !c->sw)
		return false;
	if (m == M_EMIT_ACK)
		return c->tcp && c->mode == MODE_EMIT;
	if (m == M_OWD_FWD || m == M_OWD_BACK)	/* --one-way needs pongs with a body */
		return c->one_way && c->mode == MODE_EMIT && carry_body(c);
	/* Each side's own queue (the reflector's is not carried in pongs),
	 * from the SCHED stamp, unless --no-queue-stamps. */
	if (m == M_EMIT_QUEUE || m == M_REFLECT_QUEUE)
		return !c->no_queue_stamps && (m == M_EMIT_QUEUE) == (c->mode == MODE_EMIT);
	if (c->mode == MODE_REFLECT)
		return m == M_RESPONSE || m == M_REFLECT_RX ||
		       m == M_REFLECT_PROC || m == M_REFLECT_TX;
	/* The reflector's side travels in the pong body (in a sweep: in
	 * the pongs of its sizes that are long enough). */
	if (!carry_body(c))
		return m == M_RTT || m == M_RTT_SW || m == M_EMIT_TX ||
		       m == M_EMIT_RX;
	return true;
}

static bool needs_t3(enum metric_id m)
{
	const struct metric_def *d = &metric_defs[m];

	return d->a == P_T3_WIRE || d->b == P_T3_WIRE ||
	       (d->c != d->d && (d->c == P_T3_WIRE || d->d == P_T3_WIRE));
}

unsigned int metric_step(enum metric_id m)
{
	return needs_t3(m) ? METRIC_T3 : METRIC_NO_T3;
}

void metric_sample(struct hist *const hist[M_COUNT], const struct txrec *rec,
		   unsigned int which)
{
	int64_t v;

	for (int m = 0; m < M_COUNT; m++) {
		if (hist[m] && (which & metric_step(m)) && metric_value(m, rec, &v))
			hist_add(hist[m], v, rec->seq);
	}
}

/* The segments from point b to point a (a after b), as bits. */
static unsigned int span(enum point a, enum point b)
{
	if (a >= P_COUNT || b >= P_COUNT || a <= b)
		return 0;
	return (1u << a) - (1u << b);
}

unsigned int metric_span(enum metric_id m)
{
	const struct metric_def *d = &metric_defs[m];

	if (metric_is_queue(m))
		return m == M_EMIT_QUEUE ? span(P_T1_WIRE, P_T1_SW) : span(P_T3_WIRE, P_T3_SW);
	if (!metric_of_record(m))
		return 0;
	return span(d->a, d->b) & ~(d->c != d->d ? span(d->c, d->d) : 0u);
}
