// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The icmp targets' echo replies and ICMP errors (see fleeticmp.h).
 */
#include <netinet/in.h>

#include "fleeticmp.h"
#include "fleetrx.h"
#include "fleettab.h"
#include "icmpwire.h"
#include "skpeer.h"

/* One datagram of a ping socket: an echo reply, ICMP header first. */
static void take(struct fleetloop *L, const uint8_t *buf, struct sk_msg *m)
{
	struct run *r = L->r;
	bool v6 = m->src.ss_family == AF_INET6;
	uint16_t seq;
	long slot;

	if (m->len < 0 ||
	    !icmpwire_seq(buf, (size_t)m->len, v6 ? ICMPWIRE6_ECHO_REPLY : ICMPWIRE_ECHO_REPLY,
			  &seq)) {
		r->cnt.invalid++;
		return;
	}
	/* the kernel names no port: an icmp target's is 0 */
	sk_set_port(&m->src, 0);
	slot = fleettab_find(L->f, &m->src, TARGET_ICMP);
	if (slot < 0) {
		r->cnt.foreign++;	/* from no icmp target of the table */
		return;
	}
	fl_answer(L, (size_t)slot, fl_seq_near(&L->t[slot], seq, UINT16_MAX), m);
}

void fl_icmp_receive(struct fleetloop *L, unsigned int i)
{
	fl_read(L, i, take);
}

void fl_icmp_error(struct fleetloop *L, const struct sk_icmp_err *e)
{
	struct sockaddr_storage to = e->to;
	uint16_t seq;
	long slot;

	if (!icmpwire_seq(e->head, e->head_len, e->e.v6 ? ICMPWIRE6_ECHO : ICMPWIRE_ECHO, &seq))
		return;		/* it returned no echo request */
	sk_set_port(&to, 0);
	slot = fleettab_find(L->f, &to, TARGET_ICMP);
	if (slot < 0)
		return;		/* to no icmp target of the table (one removed) */
	fl_error(L, (size_t)slot, fl_seq_near(&L->t[slot], seq, UINT16_MAX),
		 icmpwire_err_kind(e->e.v6, e->e.type));
}
