// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What held the time in a TCP exchange, from its segments (tcpana.h).
 *
 * Each direction's sender is followed as the capture point sees it: the
 * next sequence number it will send (nxt), what the peer has acknowledged
 * (una), the window the peer offers, its data segments awaiting their ACK
 * (for RTT samples) and its timestamps awaiting their echo. A data segment
 * that leaves after a hold (TCPANA_STALL_NS at least since the sender's
 * previous one, within one request or one response) is explained by what
 * happened in the hold:
 *
 * - the window: the sender had filled the window the peer offered (or
 *   the peer offered none) and sent again once it opened;
 * - Nagle's algorithm: the segment is small (below the peer's MSS), the
 *   sender's earlier data had all been acknowledged during the hold, the
 *   ACK came late (in the second half of the hold, and DELACK_MIN_NS
 *   after the data beyond the capture point's round trip to the peer: a
 *   delayed ACK, not a peer slow to read) and the segment followed it at
 *   once (within the capture point's round trip to the other side and
 *   back, plus a margin): the sender held it until that ACK. The
 *   server's segment is nagle_delayed_ack, the client's client_nagle.
 *   Within RECOVERY_NS of the sender's last retransmission the same shape
 *   is its congestion window recovering (one segment at a time, each
 *   waiting for its ACK): the hold is the retransmission's.
 *   Without the client's ACKs (a socket's view), a hold of a known
 *   delayed-ACK timer's length is taken for one.
 *
 * The server's own time is the gap from the request's last copy (its
 * last segment, or that segment sent again: a request lost is waited for
 * by the retransmission, not by the server) to the response's first,
 * less the capture point's round trip to the server at that moment: the
 * largest of the path's recent samples (tcppath.c: its handshakes,
 * answered by a kernel at once), else the connection's least RTT sample
 * (zero where the server is captured). What the path's RTT then (its
 * median) had grown above its idle RTT is the path's queue. A segment
 * sent again (all or part of its bytes below nxt) is a retransmission; the
 * time since those bytes first left is what it held, unless all of them
 * had reached a receiver on the capture's host already (a spurious copy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcpana.h"

#define OUT_SEGS 12		/* a direction's segments awaiting their ACK */
#define TS_VALS 6		/* a direction's tsvals awaiting their echo */
#define DUPACKS_FAST 3		/* duplicate ACKs before a fast retransmission */
#define MSS_DEFAULT 1460	/* the peer's MSS when no SYN said it */
#define NS_MS 1000000LL
#define TS_TICK_NS NS_MS	/* a tsval's tick */
#define TS_QUEUE_MIN_NS (2 * TS_TICK_NS)	/* a wait the ticks tell */
#define TS_EPOCH_NS (10 * 1000 * NS_MS)
#define SLACK_NS NS_MS		/* the margin a held segment leaves after its ACK */
/* An ACK this late is a delayed ACK: half the shortest delayed-ACK timer
 * (Linux's 40 ms; BSD's 100, Windows' 200). A peer that ACKs a few ms
 * late because it was slow to run is not one. */
#define DELACK_MIN_NS (20 * NS_MS)
/* After a retransmission a sender's congestion window is small for a
 * while: a hold until an ACK then is that, not Nagle. */
#define RECOVERY_NS (1000 * NS_MS)

static const char *const names[TCPANA_KINDS] = {
	[TCPANA_NONE] = "none",
	[TCPANA_NAGLE_DELAYED_ACK] = "nagle_delayed_ack",
	[TCPANA_CLIENT_NAGLE] = "client_nagle",
	[TCPANA_SERVER_TIME] = "server_time",
	[TCPANA_RETRANSMISSION] = "retransmission",
	[TCPANA_WINDOW] = "window",
	[TCPANA_PATH_QUEUE] = "path_queue",
	[TCPANA_SERVER_QUEUE] = "server_queue",
};

static const char *const fixes[TCPANA_KINDS] = {
	[TCPANA_NAGLE_DELAYED_ACK] =
		"the server's Nagle held the response's tail until the client's delayed ACK: set TCP_NODELAY on the server (nginx: tcp_nodelay on), or TCP_QUICKACK on the client (rant --quickack shows the stall go)",
	[TCPANA_CLIENT_NAGLE] =
		"the client wrote the request in pieces and its Nagle held the last until the server's delayed ACK: one write per request, or TCP_NODELAY on the client (rant: --nodelay)",
	[TCPANA_SERVER_TIME] =
		"the server's own work before its first byte: look at the server (its CPU, its backends, its logs), not the network",
	[TCPANA_RETRANSMISSION] =
		"segments were lost and sent again: look for loss on the path (interface and qdisc drops: ip -s link, tc -s qdisc; nstat TcpRetransSegs)",
	[TCPANA_WINDOW] =
		"the receiver's window was full: the reading side is slow to read, or its buffer small (SO_RCVBUF, net.ipv4.tcp_rmem)",
	[TCPANA_PATH_QUEUE] =
		"the path's round trip grew under the load, not the server's time: a queue on the path (a router's or an interface's qdisc: tc -s qdisc shows its backlog; a shaper, a slow link)",
	[TCPANA_SERVER_QUEUE] =
		"requests waited in a busy server, not a stall: that load is its limit (fewer --connections, or --interval, measure it below; more workers or CPUs raise it)",
};

const char *tcpana_kind_name(enum tcpana_kind k)
{
	return (unsigned int)k < TCPANA_KINDS ? names[k] : "unknown";
}

const char *tcpana_kind_fix(enum tcpana_kind k)
{
	return (unsigned int)k < TCPANA_KINDS ? fixes[k] : NULL;
}

/* Sequence numbers wrap: a after b. */
static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* Packed: a connection's state stays under 1 KiB (tcpana.h). */
struct __attribute__((packed)) out_seg {
	int64_t t_ns;		/* when it first left */
	uint32_t end;		/* seq + len: the ACK that covers it */
	bool again;		/* sent again: no RTT sample (Karn) */
};

struct __attribute__((packed)) ts_val {
	int64_t t_ns;		/* when first seen */
	uint32_t val;
};

/* One direction's sender, as the capture point sees it. */
struct side {
	bool started;		/* nxt and una hold sequence numbers */
	bool win_known;		/* win is scaled by the handshake's scale */
	bool ts_known;		/* ts_first holds its first tsval */
	uint32_t nxt;		/* the next sequence number it sends */
	uint32_t una;		/* what the peer acknowledged */
	uint32_t win;		/* the window the peer offers it, bytes */
	uint32_t mss;		/* the peer's MSS */
	uint32_t dupacks;	/* duplicate ACKs from the peer since una moved */
	int64_t last_data_ns;	/* its last new data segment, -1: none */
	int64_t acked_all_ns;	/* the peer acknowledged all its data, after
				 * its last data segment, -1: not since */
	int64_t full_ns;	/* the window full (or zero) since, -1: not */
	int64_t retrans_ns;	/* its last retransmission, -1: none */
	int64_t rtt_min_ns;	/* the least RTT sample of its data, -1 */
	struct out_seg out[OUT_SEGS];
	unsigned int out_head, out_n;
	struct ts_val ts[TS_VALS];
	unsigned int ts_head, ts_n;
	uint32_t ts_first;
	int64_t owd_min_ns[2];	/* the least of its one-way delay, relative:
				 * this TS_EPOCH_NS and the one before */
	int64_t epoch_ns;	/* this epoch's start */
	int64_t queue_ns;	/* its last segment's wait beyond that, 0: none seen */
	uint64_t segs, retrans;
};

enum phase { IDLE, REQUEST, RESPONSE };

struct tcpana {
	struct tcpana_cfg cfg;
	struct side s[2];
	enum phase phase;
	bool syn_again, synack_again;	/* sent again: no path sample (Karn) */
	struct tcpana_exchange x;
	int64_t held[TCPANA_EXCHANGE_KINDS];	/* this exchange's, ns, by kind */
	int64_t syn_ns, synack_ns, hs_ack_ns;	/* -1: not seen */
	int64_t req_again_ns;		/* the request's bytes sent again, -1 */
	int64_t req_queue_ns;		/* its last segment's wait on the path */
	uint32_t unknowns;
	/* bytes of a direction received here never seen, below its nxt:
	 * lost on the way (hole_lo == hole_hi: none) */
	uint32_t hole_lo, hole_hi;
	uint64_t retrans, syn_retries;
};

size_t tcpana_size(void)
{
	return sizeof(struct tcpana);
}

static void side_reset(struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->last_data_ns = s->acked_all_ns = s->full_ns = s->rtt_min_ns = s->retrans_ns = -1;
	s->mss = MSS_DEFAULT;
}

static void exchange_reset(struct tcpana *a)
{
	uint64_t n = a->x.n;

	memset(&a->x, 0, sizeof(a->x));
	memset(a->held, 0, sizeof(a->held));
	a->x.n = n;
	a->x.path_ns = -1;
	a->req_again_ns = -1;
	a->req_queue_ns = 0;
}

void tcpana_reset(struct tcpana *a, const struct tcpana_cfg *cfg)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	side_reset(&a->s[TCPSEG_C2S]);
	side_reset(&a->s[TCPSEG_S2C]);
	a->syn_ns = a->synack_ns = a->hs_ack_ns = -1;
	exchange_reset(a);
}

struct tcpana *tcpana_create(const struct tcpana_cfg *cfg)
{
	struct tcpana *a = malloc(sizeof(*a));

	if (a)
		tcpana_reset(a, cfg);
	return a;
}

void tcpana_destroy(struct tcpana *a)
{
	free(a);
}

/* ---- round trips ------------------------------------------------------ */

static void rtt_sample(struct tcpana *a, enum tcpseg_dir dir, int64_t rtt_ns)
{
	struct side *s = &a->s[dir];

	if (rtt_ns < 0)
		return;
	if (s->rtt_min_ns < 0 || rtt_ns < s->rtt_min_ns)
		s->rtt_min_ns = rtt_ns;
	if (a->cfg.rtt)
		a->cfg.rtt(a->cfg.ctx, dir, rtt_ns);
}

static void out_push(struct side *s, uint32_t end, int64_t t_ns)
{
	if (s->out_n == OUT_SEGS) {	/* the oldest goes: no sample from it */
		s->out_head = (s->out_head + 1) % OUT_SEGS;
		s->out_n--;
	}
	s->out[(s->out_head + s->out_n++) % OUT_SEGS] = (struct out_seg){ t_ns, end, false };
}

/* Bytes [seq, end) sent again: their segments give no sample; when the
 * ones that held them first left (-1: not kept). */
static int64_t out_again(struct side *s, uint32_t seq)
{
	int64_t first = -1;

	for (unsigned int i = 0; i < s->out_n; i++) {
		struct out_seg *o = &s->out[(s->out_head + i) % OUT_SEGS];

		if (!seq_after(o->end, seq))
			continue;
		if (first < 0)
			first = o->t_ns;
		o->again = true;
	}
	return first;
}

/* The peer acknowledged s's bytes up to ack at t_ns: the segments it
 * covers leave; the last of them, ending at ack exactly and never sent
 * again, is an RTT sample (Karn's rule) unless the ACK gave one already
 * (sampled: its timestamp echo). */
static void out_acked(struct tcpana *a, enum tcpseg_dir dir, uint32_t ack, int64_t t_ns,
		      bool sampled)
{
	struct side *s = &a->s[dir];
	const struct out_seg *last = NULL;

	while (s->out_n && !seq_after(s->out[s->out_head].end, ack)) {
		last = &s->out[s->out_head];
		s->out_head = (s->out_head + 1) % OUT_SEGS;
		s->out_n--;
	}
	if (last && last->end == ack && !last->again && !sampled)
		rtt_sample(a, dir, t_ns - last->t_ns);
}

/* s sent tsval at t_ns: kept until echoed (one sample a value). */
static void ts_sent(struct side *s, uint32_t val, int64_t t_ns)
{
	if (s->ts_n && s->ts[(s->ts_head + s->ts_n - 1) % TS_VALS].val == val)
		return;
	if (s->ts_n == TS_VALS) {
		s->ts_head = (s->ts_head + 1) % TS_VALS;
		s->ts_n--;
	}
	s->ts[(s->ts_head + s->ts_n++) % TS_VALS] = (struct ts_val){ t_ns, val };
}

/*
 * s sent tsval, seen at t_ns: its one-way delay to the capture point,
 * less an unknown constant (the sender's clock's offset), is t_ns less
 * tsval's time; what it stands above its least (the handshake's, before
 * any load) is how long this segment waited on the way: a queue of the
 * path in this direction. The sender's clock ticks in TS_TICK_NS (Linux,
 * the BSDs: 1 ms), so a wait is told at TS_QUEUE_MIN_NS and more. The
 * least is of this TS_EPOCH_NS and the one before: two clocks that drift
 * apart (by 10 ppm: 0.2 ms in 20 s) do not make a queue of the drift.
 */
static void ts_queue(struct side *s, uint32_t val, int64_t t_ns)
{
	int64_t owd;

	if (!s->ts_known) {
		s->ts_known = true;
		s->ts_first = val;
	}
	/* tsval unwrapped from the first (it wraps in 49 days) */
	owd = t_ns - ((int64_t)s->ts_first + (int32_t)(val - s->ts_first)) * TS_TICK_NS;
	if (t_ns - s->epoch_ns >= TS_EPOCH_NS || !s->epoch_ns) {
		s->owd_min_ns[1] = s->epoch_ns ? s->owd_min_ns[0] : owd;
		s->owd_min_ns[0] = owd;
		s->epoch_ns = t_ns;
	}
	if (owd < s->owd_min_ns[0])
		s->owd_min_ns[0] = owd;
	s->queue_ns = owd - (s->owd_min_ns[0] < s->owd_min_ns[1] ? s->owd_min_ns[0] :
			     s->owd_min_ns[1]);
	if (s->queue_ns < TS_QUEUE_MIN_NS)
		s->queue_ns = 0;
}

/* The peer echoed s's tsval ecr at t_ns: a sample, as pping takes it.
 * True when it gave one. */
static bool ts_echoed(struct tcpana *a, enum tcpseg_dir dir, uint32_t ecr, int64_t t_ns)
{
	struct side *s = &a->s[dir];

	while (s->ts_n) {
		struct ts_val *v = &s->ts[s->ts_head];

		if (seq_after(v->val, ecr))
			return false;
		s->ts_head = (s->ts_head + 1) % TS_VALS;
		s->ts_n--;
		if (v->val == ecr) {
			rtt_sample(a, dir, t_ns - v->t_ns);
			return true;
		}
	}
	return false;
}

/* ---- exchanges -------------------------------------------------------- */

static void exchange_done(struct tcpana *a)
{
	struct tcpana_exchange *x = &a->x;

	if (a->phase == RESPONSE) {
		x->n++;
		x->latency_ns = x->resp_last_ns - x->req_first_ns;
		x->first_byte_ns = x->resp_first_ns - x->req_first_ns;
		for (int k = TCPANA_NONE + 1; k < TCPANA_EXCHANGE_KINDS; k++) {
			if (a->held[k] < TCPANA_STALL_NS)
				continue;
			x->kinds |= 1u << k;
			if (a->held[k] > x->held_ns) {
				x->held = (enum tcpana_kind)k;
				x->held_ns = a->held[k];
			}
		}
		if (a->cfg.exchange)
			a->cfg.exchange(a->cfg.ctx, x);
	}
	exchange_reset(a);
	a->phase = IDLE;
}

/* The capture point's least round trip to the far end of dir's data and
 * back (its RTT samples, else the handshake's), 0 when unknown. */
static int64_t rtt_base(const struct tcpana *a, enum tcpseg_dir dir)
{
	int64_t r = a->s[dir].rtt_min_ns;

	if (r < 0)
		r = tcpana_handshake_ns(a);
	return r < 0 ? 0 : r;
}

/*
 * The capture point's round trip to the server at t: the largest of the
 * path's recent samples of that leg where it has some (never below the
 * connection's least), else rtt_base. What the path's median RTT then
 * stood above its idle one, on both legs, is the path's queue, and the
 * path's RTT the exchange's path_ns.
 */
static int64_t path_now(struct tcpana *a, int64_t t_ns)
{
	int64_t base = rtt_base(a, TCPSEG_C2S), leg = base, med, max, queue = 0, seen;
	const struct tcpana_path *p = a->cfg.path;

	/* the request's and the response's own waits, as their tsvals say */
	seen = a->req_queue_ns + a->s[TCPSEG_S2C].queue_ns;
	if (seen)
		leg = base + seen + TS_TICK_NS;
	for (int d = TCPSEG_C2S; p && d <= TCPSEG_S2C; d++) {
		if (!tcpana_path_at(p, (enum tcpseg_dir)d, t_ns, &med, &max))
			continue;
		if (a->x.path_ns < 0)
			a->x.path_ns = a->x.path_idle_ns = 0;
		a->x.path_ns += med;
		a->x.path_idle_ns += p->leg[d].idle_ns;
		queue += med - p->leg[d].idle_ns;
		if (d == TCPSEG_C2S && max > leg)
			leg = max;
	}
	a->held[TCPANA_PATH_QUEUE] = queue > seen ? queue : seen;
	return leg;
}

/* A delayed-ACK timer's length: Linux 40 ms (at least), BSD 100 ms,
 * Windows 200 ms. */
static bool delack_like(int64_t gap_ns)
{
	return (gap_ns >= 30 * NS_MS && gap_ns <= 70 * NS_MS) ||
	       (gap_ns >= 80 * NS_MS && gap_ns <= 140 * NS_MS) ||
	       (gap_ns >= 160 * NS_MS && gap_ns <= 260 * NS_MS);
}

/* New data from dir at t after a hold of gap since its previous segment
 * of this request or response: what held it, into held[]. */
static void explain_hold(struct tcpana *a, enum tcpseg_dir dir, const struct tcpseg *g,
			 int64_t gap)
{
	struct side *s = &a->s[dir];
	enum tcpseg_dir other = dir == TCPSEG_C2S ? TCPSEG_S2C : TCPSEG_C2S;
	enum tcpana_kind nagle = dir == TCPSEG_S2C ? TCPANA_NAGLE_DELAYED_ACK : TCPANA_CLIENT_NAGLE;
	int64_t acked = s->acked_all_ns;

	if (s->full_ns >= 0) {
		int64_t from = s->full_ns > s->last_data_ns ? s->full_ns : s->last_data_ns;

		a->held[TCPANA_WINDOW] += g->t_ns - from;
		return;
	}
	if (g->len < s->mss && acked >= 0 && acked - s->last_data_ns >= gap / 2 &&
	    acked - s->last_data_ns - rtt_base(a, dir) >= DELACK_MIN_NS &&
	    g->t_ns - acked <= 2 * rtt_base(a, other) + SLACK_NS) {
		bool recovering = s->retrans_ns >= 0 && g->t_ns - s->retrans_ns < RECOVERY_NS;

		a->held[recovering ? TCPANA_RETRANSMISSION : nagle] += gap;
		return;
	}
	if (a->cfg.no_client_acks && dir == TCPSEG_S2C && delack_like(gap))
		a->held[nagle] += gap;
}

/* Data of len > 0 from dir, new bytes, at t: the exchange moves on. */
static void exchange_data(struct tcpana *a, enum tcpseg_dir dir, const struct tcpseg *g)
{
	struct tcpana_exchange *x = &a->x;
	struct side *s = &a->s[dir];
	bool same_part = (dir == TCPSEG_C2S && a->phase == REQUEST) ||
			 (dir == TCPSEG_S2C && a->phase == RESPONSE);
	int64_t think;

	if (same_part && s->last_data_ns >= 0 && g->t_ns - s->last_data_ns >= TCPANA_STALL_NS)
		explain_hold(a, dir, g, g->t_ns - s->last_data_ns);
	if (dir == TCPSEG_C2S) {
		if (a->phase == RESPONSE)
			exchange_done(a);
		if (a->phase == IDLE) {
			a->phase = REQUEST;
			x->req_first_ns = g->t_ns;
		}
		x->req_last_ns = g->t_ns;
		x->req_bytes += g->len;
		a->req_queue_ns = s->queue_ns;
		return;
	}
	if (a->phase == IDLE)
		return;		/* the server spoke first (a greeting): no request */
	if (a->phase == REQUEST) {
		a->phase = RESPONSE;
		x->resp_first_ns = g->t_ns;
		think = g->t_ns - (a->req_again_ns > x->req_last_ns ? a->req_again_ns :
				   x->req_last_ns) - path_now(a, g->t_ns);
		x->server_ns = think > 0 ? think : 0;
		/* a hole before the response's first segment seen: its
		 * first bytes were lost on the way, and the wait is theirs */
		a->held[a->s[dir].nxt != g->seq ? TCPANA_RETRANSMISSION : TCPANA_SERVER_TIME] +=
			x->server_ns;
	}
	x->resp_last_ns = g->t_ns;
	x->resp_bytes += g->len;
}

/* ---- one segment ------------------------------------------------------ */

static void syn_retried(struct tcpana *a)
{
	a->syn_again = true;
	a->syn_retries++;
}

/* The server's SYN-ACK: the handshake's leg to the server timed (the
 * path's sample, unless either was sent again). */
static void synack(struct tcpana *a, const struct tcpseg *g)
{
	if (a->synack_ns >= 0) {
		a->synack_again = true;
		return;
	}
	a->synack_ns = g->t_ns;
	if (a->cfg.path && a->syn_ns >= 0 && !a->syn_again)
		tcpana_path_sample(a->cfg.path, TCPSEG_C2S, g->t_ns, g->t_ns - a->syn_ns);
}

/* The handshake's part of g: SYN, SYN-ACK and the ACK after them. */
static void handshake(struct tcpana *a, const struct tcpseg *g)
{
	struct side *s = &a->s[g->dir];
	struct side *peer = &a->s[g->dir ^ 1];

	if (g->flags & TCPSEG_F_SYN) {
		s->started = true;
		s->una = g->seq;	/* the SYN awaits its ACK */
		s->nxt = g->seq + 1;
		if (g->mss)
			peer->mss = g->mss;	/* what the peer may send this side */
		out_push(s, s->nxt, g->t_ns);
		if (g->flags & TCPSEG_F_ACK)
			synack(a, g);
		else if (a->syn_ns < 0)
			a->syn_ns = g->t_ns;
		else
			syn_retried(a);
		return;
	}
	if (a->synack_ns >= 0 && a->hs_ack_ns < 0 && g->dir == TCPSEG_C2S &&
	    (g->flags & (TCPSEG_F_ACK | TCPSEG_F_RST))) {
		a->hs_ack_ns = g->t_ns;
		if (a->cfg.path && !a->synack_again)
			tcpana_path_sample(a->cfg.path, TCPSEG_S2C, g->t_ns,
					   g->t_ns - a->synack_ns);
	}
	if (!s->started) {	/* the handshake was not seen */
		s->started = true;
		s->nxt = s->una = g->seq;
	}
}

/* g acknowledges the other direction's data, and offers it a window. */
static void acknowledge(struct tcpana *a, const struct tcpseg *g)
{
	enum tcpseg_dir other = g->dir == TCPSEG_C2S ? TCPSEG_S2C : TCPSEG_C2S;
	struct side *o = &a->s[other];
	bool ts = false;

	o->win = g->win;
	o->win_known = a->syn_ns >= 0 && a->synack_ns >= 0;
	if (!g->win && o->full_ns < 0)
		o->full_ns = g->t_ns;
	if (!(g->flags & TCPSEG_F_ACK) || !o->started)
		return;
	if ((g->flags & TCPSEG_F_TS) && g->tsecr)
		ts = ts_echoed(a, other, g->tsecr, g->t_ns);
	if (seq_after(g->ack, o->una)) {
		o->una = g->ack;
		o->dupacks = 0;
		out_acked(a, other, g->ack, g->t_ns, ts);
		if (!seq_after(o->nxt, g->ack) && o->acked_all_ns < 0)
			o->acked_all_ns = g->t_ns;
	} else if (!g->len && g->ack == o->una && o->nxt != o->una &&
		   !(g->flags & (TCPSEG_F_SYN | TCPSEG_F_FIN))) {
		o->dupacks++;
	}
}

/* Does a copy of [seq, end) of s's bytes fill what the capture never saw
 * (the hole, or beyond nxt)? The hole shrinks by what it fills. */
static bool filled(struct tcpana *a, const struct side *s, uint32_t seq, uint32_t end)
{
	if (seq_after(end, s->nxt))
		return true;
	if (a->hole_lo == a->hole_hi || !seq_after(end, a->hole_lo) ||
	    !seq_after(a->hole_hi, seq))
		return false;
	if (!seq_after(seq, a->hole_lo))
		a->hole_lo = seq_after(end, a->hole_hi) ? a->hole_hi : end;
	return true;
}

/* g carries bytes of its direction (or a FIN): new, or sent again. */
static void data(struct tcpana *a, const struct tcpseg *g)
{
	struct side *s = &a->s[g->dir];
	uint32_t end = g->seq + g->len + !!(g->flags & TCPSEG_F_FIN);
	int64_t first;

	if (g->flags & TCPSEG_F_TS)
		ts_sent(s, g->tsval, g->t_ns);
	if (!g->len && !(g->flags & TCPSEG_F_FIN))
		return;
	if (!seq_after(end, s->nxt) || seq_after(s->nxt, g->seq)) {
		/* a keep-alive's one old byte is no retransmission */
		if (g->len <= 1 && end == s->nxt && !(g->flags & TCPSEG_F_FIN))
			return;
		if (!seq_after(end, s->una) && !g->len)
			return;
		s->retrans++;
		s->retrans_ns = g->t_ns;
		if (g->dir == TCPSEG_C2S && a->phase == REQUEST && g->len)
			a->req_again_ns = g->t_ns;
		a->retrans++;
		a->x.retransmits++;
		first = out_again(s, g->seq);
		if (!(a->cfg.received_here & (1u << g->dir)) || filled(a, s, g->seq, end))
			a->held[TCPANA_RETRANSMISSION] += g->t_ns - (first >= 0 ? first :
				s->last_data_ns >= 0 ? s->last_data_ns : g->t_ns);
		if (seq_after(end, s->nxt))
			s->nxt = end;
		return;
	}
	if (seq_after(g->seq, s->nxt) && (a->cfg.received_here & (1u << g->dir))) {
		a->hole_lo = s->nxt;	/* a hole before it: lost */
		a->hole_hi = g->seq;
	}
	if (g->len)
		exchange_data(a, g->dir, g);
	out_push(s, end, g->t_ns);
	s->nxt = end;
	s->last_data_ns = g->t_ns;
	s->acked_all_ns = -1;
	s->full_ns = -1;
	if (s->win_known && s->nxt - s->una >= s->win)
		s->full_ns = g->t_ns;	/* it can send no more until the window opens */
}

void tcpana_seg(struct tcpana *a, const struct tcpseg *g)
{
	struct side *s = &a->s[g->dir & 1];

	s->segs++;
	if (g->flags & TCPSEG_F_CUT) {
		a->unknowns |= TCPANA_U_CUT;
		return;
	}
	if (g->flags & TCPSEG_F_TS)
		ts_queue(s, g->tsval, g->t_ns);	/* the SYN's tsval too: the idle delay */
	handshake(a, g);
	acknowledge(a, g);
	if (!(g->flags & TCPSEG_F_SYN))
		data(a, g);
	if (g->flags & (TCPSEG_F_FIN | TCPSEG_F_RST))
		exchange_done(a);
}

void tcpana_end(struct tcpana *a, int64_t t_ns)
{
	(void)t_ns;
	exchange_done(a);
}

int64_t tcpana_handshake_ns(const struct tcpana *a)
{
	if (a->syn_ns < 0 || a->synack_ns < 0)
		return -1;
	return a->synack_ns - a->syn_ns + (a->hs_ack_ns >= 0 ? a->hs_ack_ns - a->synack_ns : 0);
}

uint32_t tcpana_unknowns(const struct tcpana *a)
{
	uint32_t u = a->unknowns;

	if (!a->s[TCPSEG_C2S].segs)
		u |= TCPANA_U_NO_C2S;
	if (!a->s[TCPSEG_S2C].segs)
		u |= TCPANA_U_NO_S2C;
	if (a->cfg.no_client_acks)
		u |= TCPANA_U_NO_CLIENT_ACKS;
	return u;
}

uint64_t tcpana_segments(const struct tcpana *a, enum tcpseg_dir dir)
{
	return a->s[dir & 1].segs;
}

uint64_t tcpana_retransmits(const struct tcpana *a)
{
	return a->retrans;
}

uint64_t tcpana_syn_retries(const struct tcpana *a)
{
	return a->syn_retries;
}
