// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --syn: each transaction one TCP handshake begun and answered, timed
 * from the kernel's (or NIC's) stamps of the SYN (its TX stamp, off the
 * raw socket's error queue) and of the answer (the RX stamp the raw
 * socket reads it with): syn_rtt. The answer is a SYN-ACK (an open
 * port: measured), or an RST (a closed port: counted refused, as hping3
 * does); none within --timeout is lost.
 *
 * Each probe has a source port of its own, held by a bound socket
 * (synsock_reserve) until its answer came or it was lost: the probes in
 * flight are found by their port. This host's kernel answers the
 * SYN-ACK with an RST (no socket of its owns the connection), so the
 * server keeps no half-open connection; rant sends nothing more itself.
 *
 * Closed loop (the default): one probe at a time, back to back or a slot
 * every --interval (a slot that passed while a probe was out is missed
 * and its probe leaves late: syn_rtt_intended counts from the slot).
 * Open loop (--open-loop): a probe every --interval whatever the others
 * do, as many in flight as --timeout / --interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <linux/errqueue.h>
#include <unistd.h>

#include "pktparse.h"
#include "prober.h"
#include "syn.h"
#include "synsock.h"
#include "tcpwire.h"

#define SYN_PORTS 65536
#define SYN_KEYS 65536		/* TX stamps' keys remembered (their port) */
/* An answer that came before its SYN's TX stamp waits this long for it. */
#define SYN_TX_WAIT_NS (2 * NS_PER_MS)
#define SYN_MSS4 1460
#define SYN_MSS6 1440
#define SYN_BUF 2048

/* One SYN out, by its source port. */
struct syn_slot {
	uint64_t seq;			/* 0: free */
	int fd;				/* the socket that holds the port */
	uint32_t isn, key;
	bool measured;
	uint16_t reply;			/* the answer's TCPSEG_F_*, 0: none yet */
	int64_t t1_sw, sent_mono, late_ns;
	int64_t t1_wire, t1_kn, sched_kn;	/* the SYN's stamps, TS_NONE: not yet */
	int64_t t4_wire, reply_mono;		/* the answer's */
};

/* The probes in flight in the order sent: their timeouts in order. */
struct syn_out {
	uint16_t port;
	uint64_t seq;
};

struct syn {
	struct prober p;
	struct sk *sk;
	struct syn_slot *slot;		/* [SYN_PORTS] */
	uint16_t *keyport;		/* [SYN_KEYS] */
	struct syn_out *out;		/* [SYN_PORTS], a ring */
	size_t head, tail;
	int icmp_errno;			/* the last ICMP error's, as the kernel took it */
	uint32_t isn_base;
	uint8_t buf[SYN_BUF];
};

/* The probe table whose prober is p (its first member). */
static struct syn *syn_of(struct prober *p)
{
	return (struct syn *)p;
}

static int syn_alloc(struct syn *s)
{
	s->slot = calloc(SYN_PORTS, sizeof(*s->slot));
	s->keyport = calloc(SYN_KEYS, sizeof(*s->keyport));
	s->out = calloc(SYN_PORTS, sizeof(*s->out));
	if (!s->slot || !s->keyport || !s->out)
		return -ENOMEM;
	if (getrandom(&s->isn_base, sizeof(s->isn_base), 0) != sizeof(s->isn_base))
		s->isn_base = (uint32_t)monotonic_ns();
	return 0;
}

static void syn_free(struct syn *s)
{
	for (size_t i = 0; s->slot && i < SYN_PORTS; i++)
		if (s->slot[i].seq)
			close(s->slot[i].fd);
	free(s->slot);
	free(s->keyport);
	free(s->out);
}

/* Send one probe, late_ns after its slot: 0, or -errno (counted). */
static int syn_send(struct prober *p, bool measured, int64_t late_ns)
{
	struct syn *s = syn_of(p);
	struct run *r = s->p.r;
	uint8_t pkt[TCPWIRE_SYN_LEN];
	const uint8_t *dst = s->sk->family == AF_INET6 ?
		(const uint8_t *)&((struct sockaddr_in6 *)&s->sk->peer)->sin6_addr :
		(const uint8_t *)&((struct sockaddr_in *)&s->sk->peer)->sin_addr;
	int fam = s->sk->family == AF_INET6 ? 6 : 4, fd, ret;
	struct syn_slot *sl;
	uint16_t port;
	uint32_t isn = s->isn_base + (uint32_t)(s->p.seq + 1) * 0x9e3779b9u, key;

	ret = synsock_reserve(s->sk, &fd, &port);
	if (ret) {
		r->cnt.send_errors++;
		return ret;
	}
	tcpwire_syn(pkt, fam, synsock_local(s->sk), dst, port, r->cfg->port, isn,
		    fam == 6 ? SYN_MSS6 : SYN_MSS4, (uint32_t)(monotonic_ns() / NS_PER_MS));
	sl = &s->slot[port];
	*sl = (struct syn_slot){ .seq = ++s->p.seq, .fd = fd, .isn = isn, .measured = measured,
				 .late_ns = late_ns, .t1_wire = TS_NONE, .t1_kn = TS_NONE,
				 .sched_kn = TS_NONE, .t4_wire = TS_NONE };
	sl->t1_sw = realtime_ns();
	sl->sent_mono = monotonic_ns();
	ret = r->tp->send(s->sk, pkt, sizeof(pkt), NULL, &key);
	if (ret) {
		close(fd);
		sl->seq = 0;
		r->cnt.send_errors++;
		return ret;
	}
	sl->key = key;
	s->keyport[key % SYN_KEYS] = port;
	s->out[s->head++ % SYN_PORTS] = (struct syn_out){ port, sl->seq };
	s->p.inflight++;
	if (measured)
		prober_sent(&s->p, sl->seq, sl->t1_sw);
	return 0;
}

static void syn_release(struct syn *s, struct syn_slot *sl)
{
	close(sl->fd);
	sl->seq = 0;
	s->p.inflight--;
}

/* The record of a probe answered (SYN-ACK). */
static void syn_record(const struct syn_slot *sl, struct txrec *rec)
{
	txrec_clear(rec);
	rec->seq = sl->seq;
	rec->t1_sw = sl->t1_sw;
	rec->t1_wire = sl->t1_wire;
	txrec_set_t4_wire(rec, sl->t4_wire);
	txrec_set_queue(rec, sl->t1_kn, sl->sched_kn);
}

/* A probe's answer and (or, after SYN_TX_WAIT_NS, without) its SYN's TX
 * stamp are in: measured, counted refused, or a warm-up answer. */
static void syn_done(struct syn *s, struct syn_slot *sl)
{
	struct run *r = s->p.r;
	struct txrec rec;

	if (!sl->measured) {
		r->cnt.warmup++;
		s->p.answered += sl->t1_wire != TS_NONE && sl->t4_wire != TS_NONE;
	} else if (sl->reply & TCPSEG_F_RST) {
		r->cnt.refused++;	/* a closed port: no handshake to time */
	} else {
		syn_record(sl, &rec);
		if (s->p.step == MEASURE_GO_ON)
			s->p.step = prober_measured(&s->p, &rec, sl->late_ns);
	}
	syn_release(s, sl);
}

/* TX stamps off the error queue, to their probes. */
static void syn_tx(struct prober *p)
{
	struct syn *s = syn_of(p);
	struct ts_tx tx;

	while (sk_tx_read(s->sk, &tx) == 0) {
		struct syn_slot *sl = &s->slot[s->keyport[tx.key % SYN_KEYS]];

		if (!sl->seq || sl->key != tx.key)
			continue;	/* a probe gone (lost) before its stamp */
		if (tx.type == SCM_TSTAMP_SCHED) {
			sl->sched_kn = tx.ts.kn_ns;
			continue;
		}
		if (tx.type != SCM_TSTAMP_SND)
			continue;
		sl->t1_wire = ts_wire(&tx.ts, s->sk->hw);
		sl->t1_kn = tx.ts.kn_ns;
		if (sl->reply)
			syn_done(s, sl);
	}
}

/* One segment read off the raw socket: the answer to a probe in flight? */
static void syn_answer(struct syn *s, const struct sk_msg *m)
{
	struct pkt_tcp seg;
	struct syn_slot *sl;
	uint16_t fl;
	enum pkt_verdict v = s->sk->family == AF_INET6 ?
		pktparse_tcp(s->buf, (uint32_t)m->len, 0, &seg) :
		pktparse_ip(s->buf, (uint32_t)m->len, 0, &seg);

	if (v != PKT_TCP || seg.noflags || seg.sport != s->p.r->cfg->port)
		return;
	sl = &s->slot[seg.dport];
	fl = seg.seg.flags;
	if ((fl & TCPSEG_F_RST) && !(fl & TCPSEG_F_ACK) && sl->seq) {
		s->p.r->probe.rst_no_ack++;	/* no answer to a SYN (RFC 9293 3.10.7.3) */
		return;
	}
	if (!(fl & (TCPSEG_F_SYN | TCPSEG_F_RST)) || !(fl & TCPSEG_F_ACK))
		return;
	if (!sl->seq || sl->reply || seg.seg.ack != sl->isn + 1) {
		s->p.r->probe.rst_late += !sl->seq;	/* its probe was given up */
		return;
	}
	sl->reply = fl;
	sl->t4_wire = ts_wire(&m->rx, s->sk->hw);
	sl->reply_mono = monotonic_ns();
	if (sl->t1_wire != TS_NONE)
		syn_done(s, sl);
}

/* The segments read; an ICMP error for a SYN (port unreachable, a
 * firewall's prohibited: the connected raw socket's pending error)
 * counted and kept. */
static void syn_rx(struct prober *p)
{
	struct syn *s = syn_of(p);
	struct sk_msg m;
	int ret;

	while ((ret = s->p.r->tp->recv(s->sk, s->buf, sizeof(s->buf), &m, false, false)) == 0)
		if (m.len > 0)
			syn_answer(s, &m);
	if (ret != -EAGAIN && ret != -EINTR) {
		s->p.r->probe.icmp_errors++;
		s->icmp_errno = -ret;
	}
}

/*
 * Probes past --timeout without an answer are lost; those answered
 * whose TX stamp has not come in SYN_TX_WAIT_NS are done without it.
 * Returns the monotonic time the oldest probe out times out (0: none).
 */
static int64_t syn_expire(struct prober *p, int64_t now)
{
	struct syn *s = syn_of(p);
	struct run *r = s->p.r;
	struct txrec rec;

	while (s->tail != s->head) {
		struct syn_out *o = &s->out[s->tail % SYN_PORTS];
		struct syn_slot *sl = &s->slot[o->port];

		if (sl->seq != o->seq) {
			s->tail++;	/* done already */
			continue;
		}
		if (sl->reply && now - sl->reply_mono > SYN_TX_WAIT_NS) {
			syn_done(s, sl);
			continue;
		}
		if (now - sl->sent_mono <= r->cfg->timeout_ns)
			return sl->sent_mono + r->cfg->timeout_ns;
		if (sl->measured && !sl->reply) {
			txrec_clear(&rec);
			rec.seq = sl->seq;
			rec.t1_sw = sl->t1_sw;
			rec.t1_wire = sl->t1_wire;
			if (s->p.step == MEASURE_GO_ON)
				s->p.step = prober_lost(&s->p, &rec);
		} else if (!sl->measured) {
			r->cnt.warmup++;
		}
		syn_release(s, sl);
		s->tail++;
	}
	return 0;
}

/* Why nothing could be measured, in r->failure. */
static int syn_failed(struct syn *s, bool warmup)
{
	struct run *r = s->p.r;
	const struct rant_cfg *c = r->cfg;

	if (warmup && r->probe.icmp_errors)
		snprintf(r->failure, sizeof(r->failure),
			 "no answer (SYN-ACK or RST) to a SYN to %s port %u in %g s of warm-up: %" PRIu64 " ICMP errors came instead (%s): a firewall rejects the SYNs, or no router has a way there; is the port open to this host?",
			 c->addr, c->port, (double)c->warmup_timeout_ns / NS_PER_SEC,
			 r->probe.icmp_errors, strerror(s->icmp_errno));
	else if (warmup && r->probe.rst_no_ack)
		snprintf(r->failure, sizeof(r->failure),
			 "no answer (SYN-ACK or RST) to a SYN to %s port %u in %g s of warm-up: %" PRIu64 " RSTs without ACK came instead, which answer no SYN (RFC 9293 wants the SYN acknowledged): a middlebox forging resets?",
			 c->addr, c->port, (double)c->warmup_timeout_ns / NS_PER_SEC,
			 r->probe.rst_no_ack);
	else if (warmup)
		snprintf(r->failure, sizeof(r->failure),
			 "no answer (SYN-ACK or RST) to a SYN to %s port %u in %g s of warm-up%s: is the host up, and does a firewall drop the SYNs?",
			 c->addr, c->port, (double)c->warmup_timeout_ns / NS_PER_SEC,
			 r->cnt.send_errors ? " (and sending failed: see send_errors)" : "");
	else
		snprintf(r->failure, sizeof(r->failure),
			 "every SYN to %s port %u was refused (%" PRIu64 " RSTs): nothing listens on that port",
			 c->addr, c->port, r->cnt.refused);
	return -EIO;
}

static const struct prober_ops syn_ops = {
	.send = syn_send, .tx = syn_tx, .rx = syn_rx, .expire = syn_expire,
	.tx_wait_ns = SYN_TX_WAIT_NS,
};

static struct syn ss;

int syn_setup(struct run *r)
{
	memset(&ss, 0, sizeof(ss));
	ss.p.r = r;
	ss.p.ops = &syn_ops;
	ss.p.sk = ss.sk = &r->sk;
	ss.p.open = r->cfg->open_loop;
	if (syn_alloc(&ss)) {
		fprintf(stderr, "rant: no memory for the table of probes (%zu KiB)\n",
			(SYN_PORTS * (sizeof(*ss.slot) + sizeof(*ss.out)) +
			 SYN_KEYS * sizeof(*ss.keyport)) / 1024);
		return -ENOMEM;
	}
	return 0;
}

void syn_teardown(void)
{
	syn_free(&ss);
	memset(&ss, 0, sizeof(ss));
}

int syn_run(struct run *r)
{
	int ret = prober_warmup(&ss.p);

	if (ret == -EIO) {
		r->stop_reason = "warm-up failed: no answer";
		ret = syn_failed(&ss, true);
	} else if (!ret) {
		prober_measure(&ss.p);
		if (!r->cnt.received && r->cnt.refused)
			ret = syn_failed(&ss, false);
	}
	return ret;
}
