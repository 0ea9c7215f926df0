// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A probe's part of the summary (probeout.h).
 */
#include <inttypes.h>

#include "icmpwire.h"
#include "probeout.h"
#include "srvview.h"
#include "statout.h"

/* Fewer SYNs sent again or unanswered than this are not named: a
 * path SYN's SYN-ACK lost now and then is not a listen queue. */
#define SYN_DROPS_MIN 3

/* The connects' unanswered SYNs (syn_drops()). */
struct probe_syn_drops {
	uint64_t retries, unanswered, failed;
	int64_t overflows;	/* the server's ListenOverflows, -1: not read */
	bool overflow;		/* its listen queue's, not the path's */
};

static const char *const status_key[PROBE_STATUS_CLASSES] = {
	"other", "1xx", "2xx", "3xx", "4xx", "5xx",
};

static const char *probe_kind(const struct rant_cfg *c)
{
	return c->icmp ? "icmp" : c->syn ? "syn" : c->http_path ? "http" : "request";
}

/* --http: responses by status class, in one line and one object (the
 * text names 2xx and the classes that came). */
static void print_status(struct out *o, const struct probe_counts *p)
{
	out_obj(o, "status");
	out_text(o, ", status");
	for (int i = 1; i <= PROBE_STATUS_CLASSES; i++) {
		int k = i % PROBE_STATUS_CLASSES;	/* "other" last */
		bool shown = p->status[k] || k == 2;

		if (shown)
			out_text(o, " %s ", status_key[k]);
		out_u64(o, status_key[k], shown ? "%" PRIu64 : NULL, p->status[k]);
	}
	out_obj_end(o);
	out_u64(o, "non_2xx", " (non-2xx %" PRIu64, p->non_2xx);
	out_u64(o, "informational", p->informational ? "; 1xx interim %" PRIu64 : NULL,
		p->informational);
	out_text(o, ")");
}

double probeout_rate(const struct snap *s)
{
	int64_t ns = s->end_ns - s->start_ns;

	return s->start_ns && ns > 0 ? (double)s->cnt.received * 1e9 / (double)ns : 0;
}

static void print_requests(struct out *o, const struct snap *s)
{
	const struct probe_counts *p = &s->probe;
	struct out jo = out_json_only(o);

	out_u64(o, "connections", "connections: %u at once", s->cfg->connections);
	out_u64(o, "connects", ", made %" PRIu64, p->connections);
	out_u64(o, "reopened", ", closed by the server and made again %" PRIu64, p->reopened);
	out_u64(o, "connect_failures", ", failed (no SYN-ACK within --timeout, or refused) %" PRIu64,
		p->connect_failures);
	if (!p->reopened && !p->connect_failures)
		out_text(o, ", each kept alive");
	out_u64(o, "open_files", "; open-file limit %" PRIu64 "\n", p->fd_limit);
	out_u64(o, "timeouts", "responses: timed out %" PRIu64, p->timeouts);
	if (p->timeouts_after) {
		out_text(o, " (after the last answer, at %.2f s, %" PRIu64 ": nothing came in the last %.1f s)",
			 (double)p->last_answer_ns / 1e9, p->timeouts_after,
			 (double)p->silent_ns / 1e9);
	}
	out_u64(&jo, "timeouts_after_last_answer", NULL, p->timeouts_after);
	out_i64(&jo, "last_answer_ns", NULL, p->last_answer_ns);
	out_i64(&jo, "silent_ns", NULL, p->silent_ns);
	out_u64(o, "bad_responses", ", bad (did not parse) %" PRIu64, p->bad_responses);
	if (s->cfg->http_path)
		print_status(o, p);
	out_u64(o, "bytes_received", ", %" PRIu64 " bytes received", p->bytes_received);
	out_dbl(o, "requests_per_second", "; %.0f requests a second\n", probeout_rate(s));
}

void probeout_icmp_errors(struct out *o, const struct snap *s)
{
	const struct probe_counts *p = &s->probe;

	out_text(o, "icmp: errors back");
	for (int k = 0; k < ICMPWIRE_E_N; k++) {
		out_text(o, "%s %s", k ? "," : "", icmpwire_err_name((enum icmpwire_err)k));
		out_u64(o, icmpwire_err_name((enum icmpwire_err)k), " %" PRIu64, p->echo_errors[k]);
	}
	out_u64(o, "late_errors", ", after --timeout %" PRIu64 "\n", p->echo_late_errors);
}

/* --icmp: the errors that answered, by name; why the lost were lost. */
static void print_icmp(struct out *o, const struct snap *s)
{
	probeout_icmp_errors(o, s);
	if (s->cnt.lost)
		out_str(o, "lost_reason", "icmp: lost: %s\n",
			"no echo reply and no ICMP error within --timeout: the host is down, ignores echo requests (net.ipv4.icmp_echo_ignore_all) or a firewall drops them");
}

void probeout_counts(struct out *o, const struct snap *s)
{
	const struct rant_cfg *c = s->cfg;

	out_obj(o, "probe");
	out_str(o, "kind", NULL, probe_kind(c));
	if (c->icmp) {
		print_icmp(o, s);
	} else if (c->syn) {
		out_u64(o, "refused", "syn: refused (RST: a closed port) %" PRIu64, s->cnt.refused);
		out_u64(o, "late_answers", ", answers after --timeout %" PRIu64, s->probe.rst_late);
		out_u64(o, "icmp_errors", s->probe.icmp_errors ? ", ICMP errors %" PRIu64 : NULL,
			s->probe.icmp_errors);
		out_u64(o, "rst_without_ack", s->probe.rst_no_ack ?
			", RSTs without ACK %" PRIu64 : NULL, s->probe.rst_no_ack);
		out_text(o, "\n");
	} else {
		print_requests(o, s);
	}
	out_obj_end(o);
}

/* One kind named: its line and its object. */
static void print_kind(struct out *o, const struct tcpana_diag *d)
{
	char t[32], m[32];

	out_obj(o, NULL);
	out_str(o, "kind", "  %-18s", tcpana_kind_name(d->kind));
	out_text(o, " %5.1f%% of the exchanges", 100.0 * d->share);
	out_dbl(o, "share", NULL, d->share);
	out_u64(o, "exchanges", " (%" PRIu64 ")", d->exchanges);
	out_text(o, ", their median hold %s",
		 statout_human_ns_in(d->typical_ns, d->max_ns, t, sizeof(t)));
	if (d->kind == TCPANA_SERVER_TIME || d->kind == TCPANA_SERVER_QUEUE)
		out_text(o, " (the middle half %s to %s, ",
			 statout_human_ns_in(d->p25_ns, d->max_ns, t, sizeof(t)),
			 statout_human_ns_in(d->p75_ns, d->max_ns, m, sizeof(m)));
	else
		out_text(o, " (");
	out_text(o, "max %s)\n", statout_human_ns_in(d->max_ns, d->max_ns, m, sizeof(m)));
	out_i64(o, "typical_ns", NULL, d->typical_ns);
	out_i64(o, "p25_ns", NULL, d->p25_ns);
	out_i64(o, "p75_ns", NULL, d->p75_ns);
	out_i64(o, "max_ns", NULL, d->max_ns);
	out_text(o, "%20s", "");
	out_str(o, "fix", "fix: %s\n", d->fix ? d->fix : "");
	out_obj_end(o);
}

/* What the packets could not tell, named. */
static void print_unknowns(struct out *o, uint32_t u)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ TCPANA_U_NO_C2S, "no_client_segments" },
		{ TCPANA_U_NO_S2C, "no_server_segments" },
		{ TCPANA_U_CUT, "headers_cut" },
		{ TCPANA_U_NO_CLIENT_ACKS, "no_client_acks" },
	};

	out_arr(o, "unknowns");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (u & names[i].bit)
			out_str(o, NULL, i ? ", %s" : " (could not tell: %s", names[i].name);
	out_arr_end(o);
	if (u)
		out_text(o, ")");
}

/* --tcp --diagnosis auto gave the capture up: why, and the way to keep it. */
static void print_left_out(struct out *o, const struct snap *s)
{
	const struct pairdiag_left *l = &s->diag_left;
	struct out jo = out_json_only(o);

	out_obj(&jo, "diagnosis_left_out");
	out_u64(o, "after", "\ndiagnosis: left out: the first %" PRIu64, l->after);
	out_text(o, " %s' median was", s->emit ? "round trips" : "responses");
	out_us(o, "median_ns", " %.3f us", l->median_ns);
	out_us(o, "below_ns", ", under %.0f us:", l->below_ns);
	out_text(o, " no stall of Nagle, a delayed ACK or a retransmission there, and the\n"
		 "capture of the packets would have been part of each; it stopped (--diagnosis on keeps it)\n");
	out_obj_end(&jo);
}

/* What the verdict subtracted: the path's RTT idle and under the load,
 * the server's own time; the handshakes that went wrong. */
static void print_path(struct out *o, const struct segdiag_result *d)
{
	const struct tcpana_pathsum *p = &d->path;
	struct out jo = out_json_only(o);
	int64_t top = p->loaded_ns > p->server_ns ? p->loaded_ns : p->server_ns;
	char a[32], b[32], c[32];

	if (p->solo_ns > top)
		top = p->solo_ns;
	out_obj(&jo, "path");
	out_i64(&jo, "idle_ns", NULL, p->idle_ns);
	out_i64(&jo, "loaded_ns", NULL, p->loaded_ns);
	out_i64(&jo, "server_ns", NULL, p->server_ns);
	out_i64(&jo, "solo_ns", NULL, p->solo_ns);
	out_u64(&jo, "solo_exchanges", NULL, p->solo_exchanges);
	out_u64(&jo, "solo_held", NULL, p->solo_held);
	out_u64(&jo, "syn_retries", NULL, d->syn_retries);
	out_u64(&jo, "syn_unanswered", NULL, d->syn_unanswered);
	out_obj_end(&jo);
	if (p->loaded_ns >= 0)
		out_text(o, "path: round trip %s idle, %s under this load (median at the responses)",
			 statout_human_ns_in(p->idle_ns, top, a, sizeof(a)),
			 statout_human_ns_in(p->loaded_ns, top, b, sizeof(b)));
	else
		out_text(o, "path: its round trip under the load not measured (no handshake beside the requests)");
	if (p->server_ns >= 0)
		out_text(o, "; the server's own time %s (median)",
			 statout_human_ns_in(p->server_ns, top, c, sizeof(c)));
	if (p->solo_ns >= 0)
		out_text(o, "; alone %s (median of %" PRIu64 " requests one at a time, %" PRIu64 " held 1 ms or more)",
			 statout_human_ns_in(p->solo_ns, top, a, sizeof(a)), p->solo_exchanges,
			 p->solo_held);
	if (d->syn_retries || d->syn_unanswered)
		out_text(o, "; SYNs sent again %" PRIu64 ", unanswered %" PRIu64, d->syn_retries,
			 d->syn_unanswered);
	out_text(o, "\n");
}

/* The connects' SYNs that went unanswered, and why: the server's listen
 * queue full (its ListenOverflows grew, or no loss on the path was
 * named), or lost on the path. False: none went unanswered. */
static bool syn_drops(const struct snap *s, struct probe_syn_drops *k)
{
	const struct segdiag_result *d = &s->diag;
	bool path_loss = false;

	if (!d->have || s->cfg->syn)
		return false;
	k->retries = d->syn_retries;
	k->unanswered = d->syn_unanswered;
	k->failed = s->probe.connect_failures;
	k->overflows = s->server ? (int64_t)s->server->listen_overflows : -1;
	if (k->retries + k->unanswered < SYN_DROPS_MIN)
		return false;
	for (size_t i = 0; i < d->n; i++)
		path_loss |= d->d[i].kind == TCPANA_RETRANSMISSION;
	k->overflow = k->overflows > 0 || (k->overflows < 0 && !path_loss);
	return true;
}

static const char *syn_drops_fix(const struct probe_syn_drops *k)
{
	if (k->overflow)
		return "its listen queue is full: raise the server's listen backlog (listen(2), net.core.somaxconn, net.ipv4.tcp_max_syn_backlog) or accept faster (more workers, a quicker accept loop)";
	return "the SYNs or their SYN-ACKs were lost on the path (the server's listen queue did not overflow): look at the path's loss (retransmission), not the server";
}

/* The line (and the object) of the connects' unanswered SYNs. */
static void print_syn_drops(struct out *o, const struct snap *s)
{
	struct out jo = out_json_only(o);
	struct probe_syn_drops k;

	if (!syn_drops(s, &k))
		return;
	out_obj(&jo, "syn_drops");
	out_str(o, "kind", "  %-18s", k.overflow ? "listen_overflow" : "syn_lost");
	out_u64(o, "syn_retries", " SYNs sent again %" PRIu64, k.retries);
	out_u64(o, "syn_unanswered", ", unanswered %" PRIu64, k.unanswered);
	out_u64(o, "connect_failures", "; connects failed %" PRIu64, k.failed);
	out_i64(&jo, "server_listen_overflows", NULL, k.overflows);
	if (k.overflows >= 0)
		out_text(o, "; the server's ListenOverflows %" PRId64, k.overflows);
	else
		out_text(o, " (the server's ListenOverflows: give --server-pid)");
	out_text(o, "\n%20s", "");
	out_str(o, "fix", "fix: %s\n", syn_drops_fix(&k));
	out_obj_end(&jo);
}

void probeout_diagnosis(struct out *o, const struct snap *s)
{
	const struct segdiag_result *d = &s->diag;
	struct out jo = out_json_only(o);

	if (s->diag_left.left_out) {
		print_left_out(o, s);
		return;
	}
	if (!d->have)
		return;
	out_obj(&jo, "diagnosis_from");
	out_u64(o, "exchanges", "\ndiagnosis: from the packets of %" PRIu64 " exchanges", d->exchanges);
	out_u64(o, "packets", " (%" PRIu64 " segments captured", d->packets);
	out_u64(o, "dropped", ", %" PRIu64 " dropped by the kernel)", d->dropped);
	out_u64(&jo, "foreign", NULL, d->foreign);
	print_unknowns(o, d->unknowns);
	out_obj_end(&jo);
	if (d->n || syn_drops(s, &(struct probe_syn_drops){ 0 }))
		out_text(o, ":\n");
	else if (s->probe.timeouts)
		out_text(o, ": nothing held those answered, but %" PRIu64 " requests had no answer within --timeout (responses: timed out)\n",
			 s->probe.timeouts);
	else
		out_text(o, ": nothing held them (a clean run names nothing)\n");
	out_arr(&jo, "diagnosis");
	for (size_t i = 0; i < d->n; i++)
		print_kind(o, &d->d[i]);
	out_arr_end(&jo);
	print_syn_drops(o, s);
	print_path(o, d);
}

/* The headline's line of the connects' unanswered SYNs, if any. */
static void headline_syn_drops(struct out *o, const struct snap *s)
{
	struct probe_syn_drops k;

	if (syn_drops(s, &k))
		out_text(o, "held: %s: %" PRIu64 " SYNs unanswered, %" PRIu64 " sent again: %s\n",
			 k.overflow ? "listen_overflow" : "syn_lost", k.unanswered, k.retries,
			 syn_drops_fix(&k));
}

void probeout_headline(struct out *o, const struct snap *s)
{
	const struct tcpana_diag *d = &s->diag.d[0];
	char t[32];

	if (!s->diag.have || !s->diag.n) {
		headline_syn_drops(o, s);
		return;
	}
	const struct tcpana_pathsum *p = &s->diag.path;
	bool queue = d->kind == TCPANA_PATH_QUEUE;
	int64_t top = queue && p->loaded_ns > d->typical_ns ? p->loaded_ns : d->typical_ns;

	out_text(o, "held: %s in %.0f%% of the requests (their median hold %s): ",
		 tcpana_kind_name(d->kind), 100.0 * d->share,
		 statout_human_ns_in(d->typical_ns, top, t, sizeof(t)));
	if (d->kind == TCPANA_SERVER_QUEUE) {
		char a[32];

		out_text(o, "the server was %s at %.0f requests a second: queueing in the server (alone, one request at a time, its own time %s: the wait grew with the load, as a stall's would not): ",
			 d->share >= 0.5 ? "saturated" : "busy", probeout_rate(s),
			 statout_human_ns_in(p->solo_ns, top, a, sizeof(a)));
	}
	if (queue) {
		char a[32], b[32], c[32];

		out_text(o, "the path's RTT grew from %s idle to %s under this load; the server's own time %s: ",
			 statout_human_ns_in(p->idle_ns, top, a, sizeof(a)),
			 statout_human_ns_in(p->loaded_ns, top, b, sizeof(b)),
			 statout_human_ns_in(p->server_ns, top, c, sizeof(c)));
	}
	out_text(o, "%s\n", d->fix ? d->fix : "");
	headline_syn_drops(o, s);
}
