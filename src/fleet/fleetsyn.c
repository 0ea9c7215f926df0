// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The syn targets' answers (see fleetsyn.h).
 */
#include <netinet/in.h>
#include <string.h>

#include "fleetrx.h"
#include "fleetsyn.h"
#include "fleettab.h"
#include "tcpwire.h"

#define TCP_HDR_MIN 20

/* The seq of slot's pings nearest its last with these low 32 bits. */
static uint64_t widen(const struct fl_target *t, uint32_t got)
{
	uint32_t back = (uint32_t)t->seq - got;

	return back > t->seq ? 0 : t->seq - back;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An RST answering slot's SYN seq (a closed port): the target answers
 * (its warm-up may end), the SYN counted refused and retired unmeasured,
 * neither received nor lost, as --syn counts it. */
static void refused(struct fleetloop *L, size_t slot, uint64_t seq)
{
	struct fl_target *t = &L->t[slot];
	struct fl_ping *p = fl_ping_of(L, slot, seq);

	t->warm = true;
	if (!seq || seq > t->seq || p->rec.seq != seq || p->state != FL_SENT)
		return;		/* not a SYN in flight (a second RST) */
	p->state = FL_EMPTY;
	if (p->warmup)
		return;
	L->f->t[slot].cnt.refused++;
	L->r->cnt.refused++;
}

/* One segment of a raw socket: IPv4's with its IP header first, IPv6's
 * the TCP header alone. */
static void take(struct fleetloop *L, const uint8_t *buf, struct sk_msg *m)
{
	struct run *r = L->r;
	bool v6 = m->src.ss_family == AF_INET6;
	size_t off = v6 ? 0 : (size_t)(buf[0] & 0x0f) * 4, n = m->len < 0 ? 0 : (size_t)m->len;
	const uint8_t *tcp = buf + off;
	uint64_t seq;
	uint8_t flags;
	long slot;

	if (n < off + TCP_HDR_MIN || be16(tcp + 2) != r->fs.syn_port[v6])
		return;		/* not to the fleet's port: not the fleet's */
	flags = tcp[13];
	if (!(flags & TCPWIRE_ACK) || !(flags & (TCPWIRE_SYN | TCPWIRE_RST)))
		return;		/* neither a SYN-ACK nor an RST answering a SYN */
	if (v6)
		((struct sockaddr_in6 *)&m->src)->sin6_port = htons(be16(tcp));
	else
		((struct sockaddr_in *)&m->src)->sin_port = htons(be16(tcp));
	slot = fleettab_find(L->f, &m->src, TARGET_SYN);
	if (slot < 0) {
		r->cnt.foreign++;
		return;
	}
	seq = widen(&L->t[slot], (be32(tcp + 8) - 1) ^ L->f->t[slot].session);
	if (flags & TCPWIRE_RST)
		refused(L, (size_t)slot, seq);
	else
		fl_answer(L, (size_t)slot, seq, m);
}

void fl_syn_receive(struct fleetloop *L, unsigned int i)
{
	fl_read(L, i, take);
}
