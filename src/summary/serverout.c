// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's side, printed (see serverout.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "pidsock.h"
#include "serverout.h"
#include "statout.h"
#include "syswrite.h"

static const char *tcp_state(uint8_t st)
{
	static const char *const names[] = {
		"?", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT",
		"CLOSE", "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING",
	};

	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

static const char *onoff(int v)
{
	return v < 0 ? "?" : v ? "on" : "off";
}

/* A socket's options (what getsockopt read), JSON names as the options'. */
static void print_opts(struct out *o, const struct srv_opts *p)
{
	struct out jo = out_json_only(o);

	if (p->err) {
		out_str(&jo, "options_error", NULL, pidsock_why(p->err));
		return;
	}
	out_bool(&jo, "tcp_nodelay", NULL, p->nodelay > 0);
	out_bool(&jo, "tcp_cork", NULL, p->cork > 0);
	out_text(o, " nodelay %s cork %s", onoff(p->nodelay), onoff(p->cork));
	out_i64(o, "tcp_notsent_lowat", " notsent_lowat %" PRId64, p->notsent_lowat);
	out_i64(o, "tcp_user_timeout_ms", " user_timeout %" PRId64 "ms", p->user_timeout_ms);
	out_bool(&jo, "delayed_acks", NULL, p->delayed_acks > 0);
	out_text(o, " delayed_acks %s", onoff(p->delayed_acks));
	out_i64(o, "so_sndbuf", " sndbuf %" PRId64, p->sndbuf);
	out_i64(o, "so_rcvbuf", " rcvbuf %" PRId64, p->rcvbuf);
	out_str(o, "tcp_congestion", " %s", p->cong);
}

/* TCP_INFO: JSON in its own units (us, bytes/s), text in ms and Mbit/s. */
static void print_info(struct out *o, const struct srv_tcpinfo *t)
{
	struct out jo = out_json_only(o);

	out_obj(&jo, "tcp_info");
	out_bool(&jo, "whole", NULL, t->full);
	out_u64(&jo, "rtt_us", NULL, t->rtt_us);
	out_u64(&jo, "rttvar_us", NULL, t->rttvar_us);
	out_u64(&jo, "ato_us", NULL, t->ato_us);
	out_u64(&jo, "rto_us", NULL, t->rto_us);
	out_u64(&jo, "snd_cwnd", NULL, t->snd_cwnd);
	out_u64(&jo, "snd_mss", NULL, t->snd_mss);
	out_u64(&jo, "unacked", NULL, t->unacked);
	out_u64(&jo, "lost", NULL, t->lost);
	out_u64(&jo, "retrans", NULL, t->retrans);
	out_u64(&jo, "total_retrans", NULL, t->total_retrans);
	out_text(o, " rtt %.3f/%.3f ms ato %.0f ms cwnd %u unacked %u retrans %u/%u",
		 t->rtt_us / 1e3, t->rttvar_us / 1e3, t->ato_us / 1e3, t->snd_cwnd, t->unacked,
		 t->retrans, t->total_retrans);
	if (t->full) {
		out_u64(&jo, "delivery_rate", NULL, t->delivery_rate);
		out_u64(&jo, "busy_us", NULL, t->busy_us);
		out_u64(&jo, "rwnd_limited_us", NULL, t->rwnd_limited_us);
		out_u64(&jo, "sndbuf_limited_us", NULL, t->sndbuf_limited_us);
		out_text(o, " delivery %.1f Mbit/s busy %.0f ms rwnd_limited %.0f ms sndbuf_limited %.0f ms",
			 (double)t->delivery_rate * 8 / 1e6, (double)t->busy_us / 1e3,
			 (double)t->rwnd_limited_us / 1e3, (double)t->sndbuf_limited_us / 1e3);
	}
	out_obj_end(&jo);
}

/* One socket: its line (rant sockets) and its object. */
static void print_sock(struct out *o, const struct srv_sock *s, bool each)
{
	struct out so = each ? *o : out_json_only(o), jo = out_json_only(o);
	char a[64], b[64];

	srvview_addr(&s->local, a, sizeof(a));
	srvview_addr(&s->peer, b, sizeof(b));
	out_obj(&jo, NULL);
	out_str(&so, "state", "  %-6s", tcp_state(s->state));
	out_str(&so, "local", " %s", a);
	if (s->state != SRV_LISTEN)
		out_str(&so, "peer", " <- %s", b);
	out_u64(&jo, "inode", NULL, s->inode);
	if (s->pid) {
		out_i64(&so, "pid", "  pid %" PRId64, s->pid);
		out_i64(&so, "fd", " fd %" PRId64, s->fd);
	}
	if (s->state == SRV_LISTEN) {
		out_u64(&so, "queued", "  accept queue %" PRIu64, s->rqueue);
		out_u64(&so, "backlog", " of %" PRIu64, s->wqueue);
	}
	if (s->pid)
		print_opts(&so, &s->opt);
	if (s->ti.valid) {
		out_text(&so, "\n        ");
		print_info(&so, &s->ti);
	}
	out_text(&so, "\n");
	out_obj_end(&jo);
}

static void print_head(struct out *o, const struct srv_view *v, const char *key)
{
	struct out jo = out_json_only(o);

	out_text(o, "\n%s: ", key ? key : "server");
	if (v->pid) {
		out_str(o, "comm", "%s", v->comm);
		out_i64(o, "pid", " (pid %" PRId64, v->pid);
	} else {
		out_null(&jo, "comm");
		out_null(&jo, "pid");
		out_text(o, "the process is unknown (which holds the port could not be read");
	}
	out_u64(&jo, "netns", NULL, v->netns);
	out_bool(&jo, "other_netns", NULL, v->other_netns);
	out_text(o, ", network namespace net:[%" PRIu64 "]%s), port %u\n", v->netns,
		 v->other_netns ? ", not rant's" : "", v->port);
	out_u64(&jo, "port", NULL, v->port);
	out_arr(&jo, "owners");
	for (size_t i = 0; i < v->nowners; i++)
		out_i64(&jo, NULL, NULL, v->owners[i]);
	out_arr_end(&jo);
	if (v->conn_pid && v->conn_pid != v->pid) {
		out_str(o, "connections_comm", "  its connections: %s", v->conn_comm);
		out_i64(o, "connections_pid", " (pid %" PRId64 ")\n", v->conn_pid);
	}
	if (v->nowners > 1 && !v->client) {
		out_text(o, "  the listener is held by %zu processes:", v->nowners);
		for (size_t i = 0; i < v->nowners && i < 16; i++)
			out_text(o, " %d", v->owners[i]);
		out_text(o, "%s\n", v->nowners > 16 ? " ..." : "");
	}
}

static void print_options(struct out *o, const struct srv_view *v)
{
	struct out jo = out_json_only(o);
	struct srv_optcount c;

	srvview_optcount(v, &c);
	out_obj(&jo, "connections");
	out_u64(o, "count", "  connections: %" PRIu64, c.conns);
	out_u64(o, "options_read", ", options read on %" PRIu64, c.read);
	if (v->opts_err)
		out_str(o, "options_error", " (%s)", pidsock_why(v->opts_err));
	out_u64(o, "tcp_nodelay", ": TCP_NODELAY set on %" PRIu64, c.nodelay);
	out_u64(o, "tcp_cork", ", TCP_CORK set on %" PRIu64, c.cork);
	out_u64(o, "delayed_acks", ", in delayed-ACK mode %" PRIu64 "\n", c.delayed_acks);
	out_obj_end(&jo);
	if (v->typical.valid) {
		out_text(o, "  tcp_info (median of the connections):");
		print_info(o, &v->typical);
		out_text(o, "%s\n", v->typical.full ? "" : " (sock_diag's part only)");
	}
}

static void print_writes(struct out *o, const struct srv_view *v)
{
	const struct srv_writes *w = &v->w;
	struct out jo = out_json_only(o);
	char a[32], b[32];

	out_dbl_or_null(&jo, "writes_per_response", NULL, w->traced && w->responses,
			w->per_response);
	if (!w->traced)
		return;
	out_obj(&jo, "writes");
	out_u64(o, "responses", "  writes: %" PRIu64 " responses", w->responses);
	out_dbl(o, "per_response", ", %.2f writes each", w->per_response);
	out_u64(&jo, "writes", NULL, w->writes);
	out_u64(&jo, "calls", NULL, w->calls);
	out_u64(&jo, "lost", NULL, w->lost);
	if (w->first_kind >= 0) {
		out_str(o, "first", " (%s", syswrite_kind_name(w->first_kind));
		out_i64(o, "first_bytes", " %" PRId64 " B", w->first_bytes);
		if (w->second_kind >= 0) {
			out_str(o, "second", ", then %s", syswrite_kind_name(w->second_kind));
			out_i64(o, "second_bytes", " %" PRId64 " B", w->second_bytes);
		}
		out_text(o, ")");
	}
	out_i64(&jo, "read_to_write_ns", NULL, w->read_to_write_ns);
	out_i64(&jo, "write_gap_ns", NULL, w->write_gap_ns);
	if (w->read_to_write_ns >= 0)
		out_text(o, "; read to first write %s",
			 statout_human_ns(w->read_to_write_ns, a, sizeof(a)));
	if (w->write_gap_ns >= 0)
		out_text(o, ", first to last %s (max %s)",
			 statout_human_ns(w->write_gap_ns, a, sizeof(a)),
			 statout_human_ns(w->write_gap_max_ns, b, sizeof(b)));
	if (w->lost)
		out_text(o, "; %" PRIu64 " calls lost by the trace", w->lost);
	out_text(o, "\n");
	out_obj_end(&jo);
}

void serverout_print(struct out *o, const char *key, const struct srv_view *v,
		     const struct srvjudge *j, bool each)
{
	struct out jo = out_json_only(o);

	if (!v)
		return;
	out_obj(&jo, key);
	print_head(o, v, key);
	if (!v->client) {
		out_u64(o, "listen_overflows", "  listen queue: %" PRIu64 " overflows", v->listen_overflows);
		out_u64(o, "listen_drops", ", %" PRIu64 " drops (TcpExt, its namespace, during the run)\n",
			v->listen_drops);
	}
	print_options(o, v);
	print_writes(o, v);
	if (j && j->kind != SRVJ_NONE) {
		out_obj(&jo, "verdict");
		out_str(&jo, "kind", NULL, srvjudge_name(j->kind));
		out_str(o, "line", "  verdict: %s\n", j->line);
		out_obj_end(&jo);
	}
	out_arr(&jo, "sockets");
	if (each)
		out_text(o, "  sockets (%zu of %zu):\n", v->nsocks, v->socks_total);
	for (size_t i = 0; i < v->nsocks; i++)
		print_sock(o, &v->socks[i], each);
	out_arr_end(&jo);
	out_obj_end(&jo);
}
