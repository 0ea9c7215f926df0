// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The syn targets' answers and ICMP errors (see fleetsyn.h).
 */
#include <netinet/in.h>
#include <string.h>

#include "be.h"
#include "fleetrx.h"
#include "fleetsyn.h"
#include "fleettab.h"
#include "skpeer.h"
#include "tcpwire.h"

#define TCP_HDR_MIN 20

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

	if (n < off + TCP_HDR_MIN || be_get16(tcp + 2) != r->fs.syn_port[v6])
		return;		/* not to the fleet's port: not the fleet's */
	flags = tcp[13];
	if (!(flags & TCPWIRE_ACK) || !(flags & (TCPWIRE_SYN | TCPWIRE_RST)))
		return;		/* neither a SYN-ACK nor an RST answering a SYN */
	sk_set_port(&m->src, be_get16(tcp));
	slot = fleettab_find(L->f, &m->src, TARGET_SYN);
	if (slot < 0) {
		r->cnt.foreign++;
		return;
	}
	seq = fl_seq_near(&L->t[slot], (be_get32(tcp + 8) - 1) ^ L->f->t[slot].session,
			  UINT32_MAX);
	if (flags & TCPWIRE_RST)
		fl_refused(L, (size_t)slot, seq);
	else
		fl_answer(L, (size_t)slot, seq, m);
}

void fl_syn_receive(struct fleetloop *L, unsigned int i)
{
	fl_read(L, i, take);
}

void fl_syn_error(struct fleetloop *L, const struct sk_icmp_err *e)
{
	struct sockaddr_storage to = e->to;
	uint64_t seq;
	long slot;

	/* ICMP quotes 8 bytes past the IP header at least: the ports and
	 * the sequence number */
	if (e->head_len < 8 || be_get16(e->head) != L->r->fs.syn_port[e->e.v6])
		return;		/* it returned no SYN of the fleet's port */
	sk_set_port(&to, be_get16(e->head + 2));
	slot = fleettab_find(L->f, &to, TARGET_SYN);
	if (slot < 0)
		return;		/* to no syn target of the table (one removed) */
	seq = fl_seq_near(&L->t[slot], be_get32(e->head + 4) ^ L->f->t[slot].session, UINT32_MAX);
	fl_error(L, (size_t)slot, seq, icmpwire_err_kind(e->e.v6, e->e.type));
}
