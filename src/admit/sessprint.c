// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflector's sessions put into words (see session.h): the
 * summary's "sessions" lines and array from a snapshot; apart from the
 * table (session.c), since none of it runs per ping.
 */
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>

#include "session.h"

/* The DSCPs its pings came with (more than one: a path re-marks, or the
 * sender changed it), the last one's. */
static void print_dscp(struct out *o, const struct session *s)
{
	bool first = true;

	out_arr(o, "dscp");
	for (int d = 0; d < 64; d++) {
		if (!(s->dscp_seen & (1ULL << d)))
			continue;
		out_u64(o, NULL, first ? ", dscp %" PRIu64 : ",%" PRIu64, (uint64_t)d);
		first = false;
	}
	out_arr_end(o);
	if (s->dscp_seen)
		out_u64(o, "dscp_last", s->dscp_seen & (s->dscp_seen - 1) ? " (last %" PRIu64 ")" :
			NULL, s->dscp_last);
}

/* One session's line and object. */
static void print_session(struct out *o, const struct session *s)
{
	char addr[INET6_ADDRSTRLEN + 16], id[12];

	session_addr_str(s, addr, sizeof(addr));
	snprintf(id, sizeof(id), "%08x", s->id);
	out_obj(o, NULL);
	out_str(o, "address", "  %s", addr);
	out_str(o, "session", " session %s:", id);
	out_u64(o, "received", " received %" PRIu64, s->received);
	out_u64(o, "sent", NULL, s->sent);
	out_u64(o, "warmup", ", warmup %" PRIu64, s->warmup);
	out_u64(o, "left_out", s->left_out ? " (-w left out %" PRIu64 ")" : NULL, s->left_out);
	out_u64(o, "duplicate", ", duplicate %" PRIu64, s->duplicate);
	out_u64(o, "rate_limited", s->rate_limited ? ", above --max-rate %" PRIu64 : NULL,
		s->rate_limited);
	out_u64(o, "missing_tx_ts", NULL, s->missing_tx_ts);
	out_u64(o, "missing_rx_ts", NULL, s->missing_rx_ts);
	print_dscp(o, s);
	out_obj(o, "response");
	out_u64(o, "samples", NULL, s->resp_n);
	if (s->resp_n) {
		out_us(o, "min", ", response min %.3f", s->resp_min);
		out_us_dbl(o, "avg", " avg %.3f", s->resp_sum / (double)s->resp_n);
		out_us(o, "max", " max %.3f us", s->resp_max);
	}
	out_obj_end(o);
	out_text(o, "\n");
	out_obj_end(o);
}

/* Reflector: the addresses refused, evicted or replaying, one line. */
static void print_turned_away(struct out *o, const struct sessions_snap *ss)
{
	char addr[INET6_ADDRSTRLEN + 16];

	out_arr(o, "sessions_turned_away");
	if (ss->nsenders)
		out_text(o, "  turned away:");
	for (size_t i = 0; i < ss->nsenders; i++) {
		const struct session_sender *x = &ss->senders[i];

		session_sockaddr_str(&x->addr, false, addr, sizeof(addr));
		out_obj(o, NULL);
		out_text(o, "%s", i ? "; " : " ");
		out_str(o, "address", "%s", addr);
		out_u64(o, "refused", x->refused ? " refused %" PRIu64 : NULL, x->refused);
		out_u64(o, "evicted", x->evicted ? " evicted %" PRIu64 : NULL, x->evicted);
		out_u64(o, "replayed", x->replayed ? " replayed %" PRIu64 : NULL, x->replayed);
		out_obj_end(o);
	}
	out_arr_end(o);
	if (ss->nsenders)
		out_text(o, ss->senders_more ? "; and %" PRIu64 " more\n" : "\n", ss->senders_more);
}

/* Reflector: each emitter run it served, as the table held them. */
void sessions_print(struct out *o, const struct sessions_snap *ss)
{
	out_text(o, "\nsessions (%zu now, %" PRIu64 " evicted, %" PRIu64 " refused, %" PRIu64
		 " replayed):\n", ss->n, ss->evicted, ss->refused, ss->replayed);
	out_u64(o, "sessions_evicted", NULL, ss->evicted);
	out_u64(o, "sessions_refused", NULL, ss->refused);
	out_u64(o, "sessions_replayed", NULL, ss->replayed);
	out_u64(o, "sessions_turned_away_more", NULL, ss->senders_more);
	print_turned_away(o, ss);
	out_arr(o, "sessions");
	for (size_t i = 0; i < ss->n; i++)
		print_session(o, &ss->v[i]);
	out_arr_end(o);
}
