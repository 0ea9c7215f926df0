// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packets' verdict against the server's own state (see srvjudge.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "srvjudge.h"
#include "syswrite.h"

static const char *const names[SRVJ_KINDS] = {
	[SRVJ_NONE] = "none", [SRVJ_NAGLE_CONFIRMED] = "nagle_confirmed",
	[SRVJ_NAGLE_REFUTED] = "nagle_refuted", [SRVJ_CORK] = "cork",
	[SRVJ_LATE_WRITE] = "late_write", [SRVJ_SERVER_CONFIRMED] = "server_time_confirmed",
	[SRVJ_SERVER_REFUTED] = "server_time_refuted",
	[SRVJ_QUEUE_CONFIRMED] = "server_queue_confirmed",
};

const char *srvjudge_name(enum srvjudge_kind k)
{
	return k < SRVJ_KINDS ? names[k] : "?";
}

/* The process the verdict is about: the connections' (a worker), else
 * the listener's. */
static const char *who_comm(const struct srv_view *v)
{
	return v->conn_pid ? v->conn_comm : v->comm;
}

static int who_pid(const struct srv_view *v)
{
	return v->conn_pid ? v->conn_pid : v->pid;
}

static const struct tcpana_diag *named(const struct segdiag_result *d, enum tcpana_kind k)
{
	for (size_t i = 0; d && d->have && i < d->n; i++)
		if (d->d[i].kind == k)
			return &d->d[i];
	return NULL;
}

static const char *ms(int64_t ns, char *buf, size_t len)
{
	if (ns < 10000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	return buf;
}

/* "each response in 2 writes (writev 240 B, then sendfile 600 B)" */
static void writes_text(const struct srv_writes *w, char *buf, size_t len)
{
	if (!w->traced || !w->responses) {
		snprintf(buf, len, "its writes not traced");
		return;
	}
	if (w->typical_writes >= 2 && w->second_kind >= 0)
		snprintf(buf, len, "each response in %u writes (%s %" PRId64 " B, then %s %" PRId64 " B)",
			 w->typical_writes, syswrite_kind_name(w->first_kind), w->first_bytes,
			 syswrite_kind_name(w->second_kind), w->second_bytes);
	else
		snprintf(buf, len, "each response in %u write (%s %" PRId64 " B)", w->typical_writes,
			 w->first_kind >= 0 ? syswrite_kind_name(w->first_kind) : "?",
			 w->first_bytes);
}

static void judge_nagle(const struct tcpana_diag *n, const struct srv_view *v,
			const struct srv_optcount *oc, struct srvjudge *j)
{
	char wr[160], a[24], b[24];
	const struct srv_writes *w = &v->w;

	writes_text(w, wr, sizeof(wr));
	if (oc->cork) {
		j->kind = SRVJ_CORK;
		snprintf(j->line, sizeof(j->line), "%s %d: TCP_CORK on on %" PRIu64 " of %" PRIu64 " connections, %s: the cork held each response's tail (up to 200 ms) until it was pulled: not Nagle's; uncork after the last write, or drop TCP_CORK",
			 who_comm(v), who_pid(v), oc->cork, oc->read, wr);
	} else if (oc->nodelay == oc->read) {
		j->kind = SRVJ_NAGLE_REFUTED;
		snprintf(j->line, sizeof(j->line), "%s %d: TCP_NODELAY on on all %" PRIu64 " connections: Nagle cannot hold its writes; the %s stall is not Nagle's (%s)",
			 who_comm(v), who_pid(v), oc->read, ms(n->typical_ns, a, sizeof(a)), wr);
	} else if (w->traced && w->write_gap_ns >= n->typical_ns / 2) {
		j->kind = SRVJ_LATE_WRITE;
		snprintf(j->line, sizeof(j->line), "%s %d: %s, %s apart: the server wrote the tail late itself (its own time, not the client's delayed ACK)",
			 who_comm(v), who_pid(v), wr, ms(w->write_gap_ns, a, sizeof(a)));
	} else {
		j->kind = SRVJ_NAGLE_CONFIRMED;
		snprintf(j->line, sizeof(j->line), "%s %d: TCP_NODELAY off on %" PRIu64 " of %" PRIu64 " connections, %s%s%s: the tail waited %s for the client's delayed ACK: set TCP_NODELAY on the server's sockets (nginx: tcp_nodelay on)",
			 who_comm(v), who_pid(v), oc->read - oc->nodelay, oc->read, wr,
			 w->traced && w->write_gap_ns >= 0 ? ", written within " : "",
			 w->traced && w->write_gap_ns >= 0 ? ms(w->write_gap_ns, b, sizeof(b)) : "",
			 ms(n->typical_ns, a, sizeof(a)));
	}
}

static void judge_server(const struct tcpana_diag *st, const struct srv_view *v,
			 struct srvjudge *j)
{
	const struct srv_writes *w = &v->w;
	char a[24], b[24];

	if (!w->traced || !w->responses)
		return;
	if (st->kind == TCPANA_SERVER_QUEUE && w->read_to_write_ns < st->typical_ns / 2) {
		j->kind = SRVJ_QUEUE_CONFIRMED;
		snprintf(j->line, sizeof(j->line), "%s %d: it wrote %s after reading each request (typical), where the requests waited %s: they waited before its read, behind the others (the load, not its own work)",
			 who_comm(v), who_pid(v), ms(w->read_to_write_ns, a, sizeof(a)),
			 ms(st->typical_ns, b, sizeof(b)));
	} else if (w->read_to_write_ns >= st->typical_ns / 2) {
		j->kind = SRVJ_SERVER_CONFIRMED;
		snprintf(j->line, sizeof(j->line), "%s %d: its threads took %s from reading a request to their first write (typical): the server's own time, as the packets say (%s)",
			 who_comm(v), who_pid(v), ms(w->read_to_write_ns, a, sizeof(a)),
			 ms(st->typical_ns, b, sizeof(b)));
	} else {
		j->kind = SRVJ_SERVER_REFUTED;
		snprintf(j->line, sizeof(j->line), "%s %d: it wrote %s after reading each request (typical), where the packets saw %s: the rest was not the server's work (the path or its queues, or the server not scheduled before its read)",
			 who_comm(v), who_pid(v), ms(w->read_to_write_ns, a, sizeof(a)),
			 ms(st->typical_ns, b, sizeof(b)));
	}
}

void srvjudge(const struct segdiag_result *d, const struct srv_view *v, struct srvjudge *j)
{
	const struct tcpana_diag *n = named(d, TCPANA_NAGLE_DELAYED_ACK);
	const struct tcpana_diag *st = named(d, TCPANA_SERVER_TIME);
	const struct tcpana_diag *sq = named(d, TCPANA_SERVER_QUEUE);
	struct srv_optcount oc;

	j->kind = SRVJ_NONE;
	j->line[0] = '\0';
	if (!v)
		return;
	srvview_optcount(v, &oc);
	if (n && oc.read) {
		judge_nagle(n, v, &oc, j);
		return;
	}
	if (st && oc.cork) {
		j->kind = SRVJ_CORK;
		snprintf(j->line, sizeof(j->line), "%s %d: TCP_CORK on on %" PRIu64 " of %" PRIu64 " connections: the cork held the responses (up to 200 ms) until it was pulled; uncork after the last write",
			 who_comm(v), who_pid(v), oc.cork, oc.read);
		return;
	}
	if (st || sq)
		judge_server(st ? st : sq, v, j);
}
