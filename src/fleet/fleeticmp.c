// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The icmp targets' echo replies (see fleeticmp.h).
 */
#include <netinet/in.h>

#include "fleeticmp.h"
#include "fleetrx.h"
#include "fleettab.h"
#include "icmpwire.h"

/* The seq of slot's pings nearest its last with these low 16 bits. */
static uint64_t widen(const struct fl_target *t, uint16_t got)
{
	uint16_t back = (uint16_t)((uint16_t)t->seq - got);

	return back > t->seq ? 0 : t->seq - back;
}

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
	if (v6)
		((struct sockaddr_in6 *)&m->src)->sin6_port = 0;
	else
		((struct sockaddr_in *)&m->src)->sin_port = 0;
	slot = fleettab_find(L->f, &m->src, TARGET_ICMP);
	if (slot < 0) {
		r->cnt.foreign++;	/* from no icmp target of the table */
		return;
	}
	fl_answer(L, (size_t)slot, widen(&L->t[slot], seq), m);
}

void fl_icmp_receive(struct fleetloop *L, unsigned int i)
{
	fl_read(L, i, take);
}
