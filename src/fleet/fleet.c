// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet's loop and its schedule (see fleet.h).
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "dueheap.h"
#include "fleet.h"
#include "fleetdone.h"
#include "fleethttp.h"
#include "fleeticmp.h"
#include "fleetloop.h"
#include "fleetreload.h"
#include "fleetrx.h"
#include "fleetsyn.h"
#include "icmpwire.h"
#include "skpeer.h"
#include "tcpwire.h"
#include "measure.h"
#include "mem.h"
#include "msgfmt.h"
#include "pathsk.h"
#include "skbatch.h"

/* A power of two at least n. */
static size_t pow2(size_t n)
{
	size_t p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/*
 * The pings a target has in flight at most: one an --interval for
 * --timeout (each waits that long for its pong, and for its TX stamp),
 * one more settled at the next send, and a margin. The keys of a socket
 * likewise, for every slot's pings of that socket, twice over.
 */
static void sizes(struct fleetloop *L)
{
	const struct rant_cfg *c = L->r->cfg;
	size_t in_flight = (size_t)(c->timeout_ns / c->interval_ns) + 4;
	/* a ping or raw socket carries every icmp or syn target's */
	bool icmp = L->r->fs.icmp[0] || L->r->fs.icmp[1] || L->r->fs.syn[0] || L->r->fs.syn[1];
	size_t per_sock = L->f->cap * in_flight / (icmp ? 1 : L->r->fs.nsk);

	L->ring_len = pow2(in_flight);
	L->nkeys = pow2(2 * per_sock + 1024);
}

/* A ping's bytes of each kind: -m's, and never below its format's
 * smallest (STAMP's 44, 112 with --key). */
static void lengths(struct fleetloop *L)
{
	struct run *r = L->r;
	uint32_t m = r->cfg->size;

	L->len[TARGET_RANT] = msgfmt_wire_len(&r->fmt, m);
	L->len[TARGET_ICMP] = ICMPWIRE_HDR_LEN + m;
	L->len[TARGET_SYN] = TCPWIRE_SYN_LEN;
	L->len[TARGET_STAMP] = L->len[TARGET_RANT];
	if (r->fs.have_stamp) {
		const struct msgfmt_caps *k = &r->fs.stamp.f->caps;
		uint32_t min = r->auth ? k->auth_min_len : k->min_len;

		L->len[TARGET_STAMP] = msgfmt_wire_len(&r->fs.stamp, m < min ? min : m);
	}
}

/* The longest ping of any kind. */
static size_t longest(const struct fleetloop *L)
{
	size_t n = 0;

	for (int k = 0; k < TARGET_NKINDS; k++)
		n = L->len[k] > n ? L->len[k] : n;
	return n;
}

static int alloc_keys(struct fleetloop *L, unsigned int i, size_t slot_len)
{
	const struct rant_cfg *c = L->r->cfg;

	L->keys[i] = mem_alloc(L->nkeys * sizeof(struct fl_key), c->hugepages);
	L->batch[i] = skbatch_create(slot_len, c->hugepages);
	return L->keys[i] && L->batch[i] ? 0 : -ENOMEM;
}

static int alloc_state(struct fleetloop *L)
{
	struct run *r = L->r;
	size_t slot_len = longest(L) + 64;

	sizes(L);
	L->t = calloc(L->f->cap, sizeof(*L->t));
	L->pings = mem_alloc(L->f->cap * L->ring_len * sizeof(*L->pings), r->cfg->hugepages);
	L->tx = calloc(1, slot_len);
	if (!L->t || !L->pings || !L->tx || dueheap_init(&L->sched, L->f->cap))
		return -ENOMEM;
	for (size_t i = 0; i < L->f->cap; i++)
		L->t[i].ring = fl_ring(L, i);
	for (unsigned int i = 0; i < FLEETSET_ALL_SK; i++)
		if (fl_sock(L, i) && (i < r->fs.nsk || i >= FLEETSET_MAX_SK) &&
		    alloc_keys(L, i, slot_len))
			return -ENOMEM;
	return 0;
}

static void free_state(struct fleetloop *L)
{
	const struct rant_cfg *c = L->r->cfg;

	for (unsigned int i = 0; i < FLEETSET_ALL_SK; i++) {
		if (L->keys[i])
			mem_free(L->keys[i], L->nkeys * sizeof(struct fl_key), c->hugepages);
		skbatch_destroy(L->batch[i]);
	}
	if (L->pings)
		mem_free(L->pings, L->f->cap * L->ring_len * sizeof(*L->pings), c->hugepages);
	dueheap_free(&L->sched);
	fl_http_free(L);
	free(L->t);
	free(L->tx);
}

/* A rant or STAMP ping of slot's target, seq, into L->tx: its header
 * written whole (the format keeps its session from it: STAMP's SSID),
 * then its T1_SW at once, then its MAC (--key). */
static void put_ping(struct fleetloop *L, const struct fleet_target *ft, uint64_t seq,
		     bool warmup, int64_t t1_sw)
{
	struct run *r = L->r;
	struct msgfmt_ctx *fmt = ft->spec.kind == TARGET_STAMP ? &r->fs.stamp : &r->fmt;
	uint32_t len = L->len[ft->spec.kind];
	struct msg_hdr h = {
		.type = MSG_PING, .session = ft->session, .len = len, .seq = seq,
		.dscp = (uint8_t)(ft->tos >> 2),
		.flags = (uint16_t)((warmup ? MSG_F_WARMUP : 0) | (r->cfg->sw ? MSG_F_WANT_SW : 0) |
				    (r->auth ? MSG_F_MAC : 0)),
	};

	msgfmt_put_ping(fmt, L->tx, &h);
	msgfmt_set_seq(fmt, L->tx, seq, t1_sw);
	if (r->auth)
		msgfmt_sign(fmt, r->auth, L->tx, len);
}

/*
 * A ping of an icmp or syn target on the ping or raw socket s. An ICMP
 * error that answered an earlier one (any target's) leaves its errno on
 * the socket (IP_RECVERR), which the kernel hands to the next call and
 * clears: a send that fails goes once more, and fails again only for a
 * reason of its own.
 */
static int send_again(struct sk *s, const uint8_t *buf, size_t len,
		      const struct sockaddr_storage *to, socklen_t tolen, int tos, int sock_tos,
		      uint32_t *key)
{
	int ret = pathsk_send(s, buf, len, to, tolen, tos, sock_tos, 0, key);

	if (ret && ret != -EAGAIN)
		ret = pathsk_send(s, buf, len, to, tolen, tos, sock_tos, 0, key);
	return ret;
}

/* A syn target's SYN for seq, from the fleet's port, its sequence
 * number the target's session XOR seq (fleetsyn.c reads it back). */
static int send_syn(struct fleetloop *L, const struct fleet_target *ft, uint64_t seq,
		    unsigned int *sock, uint32_t *key)
{
	const struct fleetset *fs = &L->r->fs;
	bool v6 = ft->spec.addr.ss_family == AF_INET6;
	struct sockaddr_storage to = ft->spec.addr;	/* a raw socket's: port 0 */
	const uint8_t *dst = v6 ? (const uint8_t *)&((struct sockaddr_in6 *)&to)->sin6_addr :
			     (const uint8_t *)&((struct sockaddr_in *)&to)->sin_addr;

	*sock = FLEETSET_SYN_SK(v6);
	tcpwire_syn(L->tx, v6 ? 6 : 4, ft->src, dst, fs->syn_port[v6], ft->spec.port,
		    ft->session ^ (uint32_t)seq, v6 ? 1440 : 1460,
		    (uint32_t)(monotonic_ns() / NS_PER_MS));
	sk_set_port(&to, 0);
	return send_again(fl_sock(L, *sock), L->tx, TCPWIRE_SYN_LEN, &to, ft->spec.addr_len,
			  ft->tos, L->r->cfg->dscp << 2, key);
}

/* A ping sent on no socket of the loop's tables: an http request. */
#define FL_NO_SOCK UINT32_MAX

/* Slot's ping seq sent (an echo request for icmp, a SYN for syn, a
 * request for http): 0 with its socket's index in the loop's tables at
 * *sock and its key, or -errno (-EBUSY: http's request before is out). */
static int send_kind(struct fleetloop *L, size_t slot, uint64_t seq, unsigned int path,
		     bool warmup, int64_t t1_sw, unsigned int *sock, uint32_t *key)
{
	struct run *r = L->r;
	struct fleet *f = L->f;
	const struct fleet_target *ft = &f->t[slot];

	if (ft->spec.kind == TARGET_HTTP) {
		*sock = FL_NO_SOCK;	/* its connection's stamps are its own */
		return fl_http_send(L, slot, seq);
	}
	if (ft->spec.kind == TARGET_SYN)
		return send_syn(L, ft, seq, sock, key);
	if (ft->spec.kind == TARGET_ICMP) {
		bool v6 = ft->spec.addr.ss_family == AF_INET6;

		*sock = FLEETSET_ICMP_SK(v6);
		icmpwire_echo(L->tx, v6, (uint16_t)seq);
		return send_again(fl_sock(L, *sock), L->tx, L->len[TARGET_ICMP], &ft->spec.addr,
				  ft->spec.addr_len, ft->tos, r->cfg->dscp << 2, key);
	}
	*sock = fleetset_sock(&r->fs, path, slot);
	put_ping(L, ft, seq, warmup, t1_sw);
	return pathsk_send(r->fs.sk[*sock], L->tx, L->len[ft->spec.kind], &ft->to, ft->to_len,
			   ft->tos, r->cfg->dscp << 2, f->flow_label ? f->label[path] : 0, key);
}

/* Slot's next ping, due now: sent on its path's socket, its key kept. */
static void send_ping(struct fleetloop *L, size_t slot, int64_t now)
{
	struct run *r = L->r;
	struct fleet *f = L->f;
	struct fleet_target *ft = &f->t[slot];
	struct fl_target *t = &L->t[slot];
	uint64_t seq = t->seq + 1;
	unsigned int path = (unsigned int)(seq % f->npaths), sock;
	struct fl_ping *p = fl_ping_of(L, slot, seq);
	struct fleet_counts *pc = ft->path ? &ft->path[path].cnt : NULL;
	/* warm-up: its first -w pings, and until its first pong (the
	 * neighbour resolved, the reflector's session made), at most
	 * --warmup-timeout: a target dead from the start is then lost */
	bool warmup = seq <= r->cfg->warmup ||
		      (!t->warm && now - t->started < r->cfg->warmup_timeout_ns);
	struct fl_key *k;
	int64_t t1_sw;
	int ret;

	if (p->state != FL_EMPTY)
		return;		/* its ring is full: cannot be, settled first */
	t->seq = seq;
	t->answered &= ~(1ULL << (seq & 63));
	t1_sw = realtime_ns();
	txrec_clear(&p->rec);
	p->rec.seq = seq;
	p->rec.t1_sw = t1_sw;
	p->rec.fleet_id = txrec_fleet_id((uint32_t)slot, path);
	p->sent_mono = now;
	p->path = (uint8_t)path;
	p->warmup = warmup;
	p->t4_wire = p->t4_sw = TS_NONE;
	p->state = FL_SENT;	/* an http request may be refused at once */
	ret = send_kind(L, slot, seq, path, warmup, t1_sw, &sock, &p->key);
	if (ret) {
		p->state = FL_EMPTY;	/* no ping: its slot stays empty */
		if (ret == -EBUSY) {	/* http: the request before is out */
			ft->cnt.missed_slots += !warmup;
			r->cnt.missed_slots += !warmup;
		} else {
			ft->cnt.send_errors++;
			r->cnt.send_errors++;
		}
		return;
	}
	if (sock != FL_NO_SOCK) {
		k = &L->keys[sock][p->key & (L->nkeys - 1)];
		*k = (struct fl_key){ .key = p->key, .slot = (uint32_t)slot, .seq = seq };
	}
	if (warmup) {
		ft->cnt.warmup++;
		r->cnt.warmup++;
		return;
	}
	if (!t->measured++)
		t->first_measured = seq;
	ft->cnt.sent++;
	if (pc)
		pc->sent++;
	r->cnt.sent++;
}

/*
 * The targets due by now, FL_SEND_BURST at most: each settled, its ping
 * sent, its next slot set (a target an --interval or more late skips
 * what it missed). True when more are due: the queues are read before
 * the rest go, so that a loop held back (a busy CPU) never lets its
 * pongs pile up behind a long run of sends.
 */
static bool send_due(struct fleetloop *L, int64_t now)
{
	const struct rant_cfg *c = L->r->cfg;
	unsigned int sent = 0;
	uint32_t slot;
	int64_t due;

	while (dueheap_top(&L->sched, &slot, &due) && due <= now) {
		struct fl_target *t = &L->t[slot];
		int64_t behind = now - due, interval = fl_interval(L, slot);

		if (sent++ == FL_SEND_BURST)
			return true;
		fl_settle(L, slot, now, false);
		send_ping(L, slot, now);
		if (behind >= interval) {
			uint64_t missed = (uint64_t)(behind / interval);

			L->f->t[slot].cnt.missed_slots += missed;
			L->r->cnt.missed_slots += missed;
			t->due += (int64_t)missed * interval;
		}
		t->due += interval;
		if (c->count && t->measured >= c->count)
			dueheap_remove(&L->sched, slot);	/* -c: done */
		else
			dueheap_set(&L->sched, slot, t->due);
	}
	return false;
}

/* Every target of the table at set-up, spread over the interval. */
static void start_all(struct fleetloop *L, int64_t now)
{
	size_t n = L->f->used;

	for (size_t i = 0; i < n; i++)
		fl_target_start(L, i, now + (int64_t)i * L->r->cfg->interval_ns / (int64_t)n);
}

/*
 * --block: asleep until the next ping is due. A pong or a TX stamp does
 * not wake the loop: the kernel (or the NIC) stamped it as it came, so it
 * waits in its queue for the next turn without its stamps moving, and a
 * turn reads every one queued in batches (one wake a ping sent, not
 * three). The sockets' buffers (fleetset.h: a --timeout's pongs) hold
 * far more than comes between two sends.
 */
static void sleep_until(int64_t deadline)
{
	struct timespec ts = ns_to_timespec(deadline);

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Sending done: has every target's last ping been retired? Each is
 * settled (lost --timeout after it left, its TX stamp given up then). */
static bool drained(struct fleetloop *L, int64_t now)
{
	bool empty = true;

	for (size_t i = 0; i < L->f->used; i++) {
		if (L->f->t[i].state != FLEET_ACTIVE)
			continue;
		fl_settle(L, i, now, false);
		if (L->t[i].retired < L->t[i].seq)
			empty = false;
	}
	return empty;
}

/*
 * One turn: due pings out; pongs and stamps in, every FL_DRAIN_NS while
 * sending and after every FL_SEND_BURST pings (each turn after: a turn a
 * ping costs its send alone, the queues read in batches), a reload's
 * changes.
 */
static void turn(struct fleetloop *L, int64_t now)
{
	struct run *r = L->r;
	bool behind = L->sending && send_due(L, now);

	if (!L->sending || behind || now - L->drained >= FL_DRAIN_NS) {
		L->drained = now;	/* what came before now is read below */
		for (unsigned int i = 0; i < r->fs.nsk; i++) {
			fl_receive(L, i);
			fl_harvest(L, i, NULL);
		}
		for (unsigned int i = FLEETSET_MAX_SK; i < FLEETSET_ALL_SK; i++)
			if (fl_sock(L, i) && i < FLEETSET_SYN_SK(0)) {
				fl_icmp_receive(L, i);
				fl_harvest(L, i, fl_icmp_error);
			} else if (fl_sock(L, i)) {
				fl_syn_receive(L, i);
				fl_harvest(L, i, fl_syn_error);
			}
		fl_http_poll(L);
	}
	if (L->reload)
		fl_reload_apply(L, now);
}

static void loop(struct fleetloop *L)
{
	const struct rant_cfg *c = L->r->cfg;
	int64_t stopped = 0, next;
	uint32_t slot;

	for (;;) {
		int64_t now = monotonic_ns();

		if (L->sending && (run_stop || (L->end && now >= L->end) ||
				   (c->count && !L->sched.n && L->active))) {
			L->sending = false;
			stopped = now;
			L->r->stop_reason = run_stop ? "signal" : L->end && now >= L->end ?
					    "duration" : "count";
		}
		turn(L, now);
		if (!L->sending && (drained(L, now) ||
				    now - stopped > c->timeout_ns + 100 * NS_PER_MS))
			break;
		if (!c->block)
			continue;
		next = now + 100 * NS_PER_MS;
		if (L->sending && dueheap_top(&L->sched, &slot, &next) && L->end && next > L->end)
			next = L->end;
		if (next > L->drained + FL_DRAIN_NS)	/* the queues read at least that often */
			next = L->drained + FL_DRAIN_NS;
		if (!L->sending)
			next = now + NS_PER_MS;
		sleep_until(next);
	}
	for (size_t i = 0; i < L->f->used; i++)
		if (L->f->t[i].state == FLEET_ACTIVE)
			fl_settle(L, i, monotonic_ns(), true);
}

int fleet_run(struct run *r)
{
	struct fleetloop L = { .r = r, .f = r->fleet, .sending = true, .http_ep = -1 };
	int64_t start;
	int ret;

	lengths(&L);
	ret = alloc_state(&L);
	/* http targets: a connection each, those a reload may add too */
	if (!ret && r->fs.nkind[TARGET_HTTP] &&
	    conn_fd_limit(L.f->cap, "the fleet's http targets (a connection each)",
			  "fewer http targets", r->failure, sizeof(r->failure))) {
		free_state(&L);
		return -EMFILE;
	}
	if (!ret && r->cfg->targets_path)
		ret = fl_reload_start(&L);
	if (ret) {
		snprintf(r->failure, sizeof(r->failure), "the fleet's state (%zu targets): %s",
			 L.f->cap, strerror(-ret));
		free_state(&L);
		return ret;
	}
	fprintf(r->text, "measuring: %zu targets, each warming up until its first pong (%g s at most) and for its first %u pings\n",
		L.f->used, (double)r->cfg->warmup_timeout_ns / NS_PER_SEC, r->cfg->warmup);
	fflush(r->text);
	measure_start(r);
	start = monotonic_ns();
	L.end = r->cfg->duration_ns ? start + r->cfg->duration_ns : 0;
	start_all(&L, start);
	loop(&L);
	fl_reload_stop(&L);
	r->end_ns = realtime_ns();
	free_state(&L);
	return 0;
}
