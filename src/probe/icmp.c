// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --icmp: each transaction one ICMP echo request and its reply, timed
 * from the kernel's (or NIC's) stamps of both: the request's TX stamp
 * off the ping socket's error queue, the reply's RX stamp as it is read
 * (icmpsock.h): rtt, T4 - T1. Any host answers; nothing of rant's runs
 * there. Requests are matched by their sequence (the identifier is the
 * ping socket's, and the kernel hands it only the replies that carry
 * it). A reply to a request already answered is a duplicate; one to a
 * request given up after --timeout is late; an ICMP error that returns
 * a request (unreachable, time exceeded) is counted by its name, not
 * lost.
 *
 * Closed loop (the default): one request at a time, back to back or a
 * slot every --interval (a slot that passed while a request was out is
 * missed). Open loop (--open-loop): a request every --interval whatever
 * the others do, as many in flight as --timeout / --interval (at most
 * ICMP_SLOTS: the sequence is 16 bits).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>

#include "icmp.h"
#include "icmpsock.h"
#include "icmpwire.h"
#include "prober.h"

#define ICMP_SLOTS 65536	/* one per sequence number */
/* A reply that came before its request's TX stamp waits this long for it. */
#define ICMP_TX_WAIT_NS (2 * NS_PER_MS)
#define ICMP_BUF 65536

enum icmp_state { SLOT_FREE, SLOT_OUT, SLOT_ANSWERED, SLOT_LOST };

/* One request, by its 16-bit sequence. */
struct icmp_slot {
	uint64_t seq;			/* the run's 64-bit sequence */
	uint8_t state;			/* enum icmp_state */
	bool measured, replied;
	uint32_t key;
	int64_t t1_sw, sent_mono, late_ns;
	int64_t t1_wire, t1_kn, sched_kn;	/* the request's stamps, TS_NONE: not yet */
	int64_t t4_wire, reply_mono;		/* the reply's */
};

struct icmp {
	struct prober p;
	struct sk *sk;
	struct icmp_slot *slot;		/* [ICMP_SLOTS] */
	uint16_t *keyslot;		/* [ICMP_SLOTS]: a TX key's request */
	uint64_t oldest;		/* the oldest request's 64-bit seq */
	uint64_t warm_errors;		/* in the warm-up: ICMP errors back */
	bool v6;
	uint8_t req[ICMP_BUF], buf[ICMP_BUF];
};

/* The request table whose prober is p (its first member). */
static struct icmp *icmp_of(struct prober *p)
{
	return (struct icmp *)p;
}

static struct icmp_slot *slot_of(struct icmp *s, uint64_t seq)
{
	return &s->slot[seq % ICMP_SLOTS];
}

/* Send one request, late_ns after its slot: 0, or -errno (counted). */
static int icmp_send(struct prober *p, bool measured, int64_t late_ns)
{
	struct icmp *s = icmp_of(p);
	struct run *r = s->p.r;
	size_t len = ICMPWIRE_HDR_LEN + r->cfg->size;
	uint64_t seq = s->p.seq + 1;
	struct icmp_slot *sl = slot_of(s, seq);
	uint32_t key;
	int ret;

	if (sl->state == SLOT_OUT)
		return -EBUSY;	/* 65536 out: the caller waits for the oldest */
	s->p.seq = seq;
	icmpwire_echo(s->req, s->v6, (uint16_t)seq);
	*sl = (struct icmp_slot){ .seq = seq, .state = SLOT_OUT, .measured = measured,
				  .late_ns = late_ns, .t1_wire = TS_NONE, .t1_kn = TS_NONE,
				  .sched_kn = TS_NONE, .t4_wire = TS_NONE };
	sl->t1_sw = realtime_ns();
	sl->sent_mono = monotonic_ns();
	ret = r->tp->send(s->sk, s->req, len, NULL, &key);
	if (ret) {
		sl->state = SLOT_FREE;
		r->cnt.send_errors++;
		return ret;
	}
	sl->key = key;
	s->keyslot[key % ICMP_SLOTS] = (uint16_t)seq;
	if (!s->p.inflight++)
		s->oldest = seq;
	if (measured)
		prober_sent(&s->p, seq, sl->t1_sw);
	return 0;
}

/* A request is done (answered, returned by an error, or lost). */
static void icmp_release(struct icmp *s, struct icmp_slot *sl, enum icmp_state st)
{
	sl->state = (uint8_t)st;
	s->p.inflight--;
}

static void icmp_record(const struct icmp_slot *sl, struct txrec *rec)
{
	txrec_clear(rec);
	rec->seq = sl->seq;
	rec->t1_sw = sl->t1_sw;
	rec->t1_wire = sl->t1_wire;
	txrec_set_t4_wire(rec, sl->t4_wire);
	txrec_set_queue(rec, sl->t1_kn, sl->sched_kn);
}

/* A request's reply and (or, after ICMP_TX_WAIT_NS, without) its TX
 * stamp are in: measured, or a warm-up answer. */
static void icmp_done(struct icmp *s, struct icmp_slot *sl)
{
	struct run *r = s->p.r;
	struct txrec rec;

	if (!sl->measured) {
		r->cnt.warmup++;
		s->p.answered += sl->t1_wire != TS_NONE && sl->t4_wire != TS_NONE;
	} else {
		icmp_record(sl, &rec);
		if (s->p.step == MEASURE_GO_ON)
			s->p.step = prober_measured(&s->p, &rec, sl->late_ns);
	}
	icmp_release(s, sl, SLOT_ANSWERED);
}

/* An ICMP error returned request seq16: counted by its name. */
static void icmp_errored(struct icmp *s, const struct icmpsock_event *ev)
{
	struct run *r = s->p.r;
	struct icmp_slot *sl = &s->slot[ev->seq];

	if (sl->state != SLOT_OUT) {
		r->probe.echo_late_errors += sl->state == SLOT_LOST;
		return;
	}
	if (sl->measured)
		r->probe.echo_errors[icmpwire_err_kind(s->v6, ev->type)]++;
	else
		s->warm_errors++, r->cnt.warmup++;
	icmp_release(s, sl, SLOT_ANSWERED);
}

/* TX stamps and ICMP errors off the error queue, to their requests. */
static void icmp_errq(struct prober *p)
{
	struct icmp *s = icmp_of(p);
	struct icmpsock_event ev;
	int ret;

	while ((ret = icmpsock_errq(s->sk, &ev)) != -EAGAIN) {
		struct icmp_slot *sl;

		if (ret)
			continue;
		if (ev.is_error) {
			icmp_errored(s, &ev);
			continue;
		}
		sl = &s->slot[s->keyslot[ev.tx.key % ICMP_SLOTS]];
		if (sl->state != SLOT_OUT || sl->key != ev.tx.key)
			continue;	/* a request gone (lost) before its stamp */
		if (ev.tx.type == SCM_TSTAMP_SCHED) {
			sl->sched_kn = ev.tx.ts.kn_ns;
			continue;
		}
		if (ev.tx.type != SCM_TSTAMP_SND)
			continue;
		sl->t1_wire = ts_wire(&ev.tx.ts, s->sk->hw);
		sl->t1_kn = ev.tx.ts.kn_ns;
		if (sl->replied)
			icmp_done(s, sl);
	}
}

/* One reply read off the ping socket. */
static void icmp_answer(struct icmp *s, const struct sk_msg *m)
{
	struct run *r = s->p.r;
	struct icmp_slot *sl;
	uint16_t seq;
	uint8_t reply = s->v6 ? ICMPWIRE6_ECHO_REPLY : ICMPWIRE_ECHO_REPLY;

	if (m->len < 0 || !icmpwire_seq(s->buf, (size_t)m->len, reply, &seq)) {
		r->cnt.invalid++;
		return;
	}
	sl = &s->slot[seq];
	if (sl->state == SLOT_FREE) {
		r->cnt.foreign++;	/* no request of this run had it */
		return;
	}
	if (sl->state != SLOT_OUT || sl->replied) {
		bool late = sl->state == SLOT_LOST;

		if (sl->measured)
			late ? r->cnt.late++ : r->cnt.duplicate++;
		else
			late ? r->cnt.warmup_late++ : r->cnt.warmup_duplicate++;
		return;
	}
	sl->replied = true;
	sl->t4_wire = ts_wire(&m->rx, s->sk->hw);
	sl->reply_mono = monotonic_ns();
	if (sl->t1_wire != TS_NONE)
		icmp_done(s, sl);
}

static void icmp_rx(struct prober *p)
{
	struct icmp *s = icmp_of(p);
	struct sk_msg m;

	while (s->p.r->tp->recv(s->sk, s->buf, sizeof(s->buf), &m, false, false) == 0)
		icmp_answer(s, &m);
}

/* The oldest request out past --timeout is lost (or, replied, done
 * without its TX stamp after ICMP_TX_WAIT_NS). Returns the monotonic
 * time the oldest out times out (0: none). */
static int64_t icmp_expire(struct prober *p, int64_t now)
{
	struct icmp *s = icmp_of(p);
	struct run *r = s->p.r;
	struct txrec rec;

	for (; s->p.inflight && s->oldest <= s->p.seq; s->oldest++) {
		struct icmp_slot *sl = slot_of(s, s->oldest);

		if (sl->seq != s->oldest || sl->state != SLOT_OUT)
			continue;	/* done already, or never sent */
		if (sl->replied && now - sl->reply_mono > ICMP_TX_WAIT_NS) {
			icmp_done(s, sl);
			continue;
		}
		if (sl->replied)
			return sl->reply_mono + ICMP_TX_WAIT_NS;
		if (now - sl->sent_mono <= r->cfg->timeout_ns)
			return sl->sent_mono + r->cfg->timeout_ns;
		if (sl->measured) {
			txrec_clear(&rec);
			rec.seq = sl->seq;
			rec.t1_sw = sl->t1_sw;
			rec.t1_wire = sl->t1_wire;
			if (s->p.step == MEASURE_GO_ON)
				s->p.step = prober_lost(&s->p, &rec);
		} else {
			r->cnt.warmup++;
		}
		icmp_release(s, sl, SLOT_LOST);
	}
	return 0;
}

static const struct prober_ops icmp_ops = {
	.send = icmp_send, .tx = icmp_errq, .rx = icmp_rx, .expire = icmp_expire,
	.tx_wait_ns = ICMP_TX_WAIT_NS, .warmup_may_skip = true,
};

static struct icmp is;

int icmp_setup(struct run *r)
{
	memset(&is, 0, sizeof(is));
	is.p.r = r;
	is.p.ops = &icmp_ops;
	is.p.sk = is.sk = &r->sk;
	is.v6 = r->sk.family == AF_INET6;
	is.p.open = r->cfg->open_loop;
	is.slot = calloc(ICMP_SLOTS, sizeof(*is.slot));
	is.keyslot = calloc(ICMP_SLOTS, sizeof(*is.keyslot));
	if (!is.slot || !is.keyslot) {
		fprintf(stderr, "rant: no memory for the table of echo requests (%zu KiB)\n",
			ICMP_SLOTS * (sizeof(*is.slot) + sizeof(*is.keyslot)) / 1024);
		icmp_teardown();
		return -ENOMEM;
	}
	return 0;
}

void icmp_teardown(void)
{
	free(is.slot);
	free(is.keyslot);
	is.slot = NULL;
	is.keyslot = NULL;
}

int icmp_run(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	int ret = prober_warmup(&is.p);

	if (ret == -EIO) {
		r->stop_reason = "warm-up failed: no answer";
		snprintf(r->failure, sizeof(r->failure),
			 "no echo reply from %s in %g s of warm-up (%" PRIu64 " ICMP errors back, unreachable or time exceeded): is the host up, does it ignore echo requests (net.ipv4.icmp_echo_ignore_all) or a firewall drop them? -w 0 measures it anyway",
			 c->addr, (double)c->warmup_timeout_ns / NS_PER_SEC, is.warm_errors);
		return ret;
	}
	if (!ret)
		prober_measure(&is.p);
	return ret;
}
