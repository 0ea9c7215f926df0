// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "record.h"

void txrec_clear(struct txrec *r)
{
	memset(r, 0, sizeof(*r));
	r->t3_sw_d = TXREC_NO_DELTA;
	r->t4_sw_d = TXREC_NO_DELTA;
	r->t4_wire_d = TXREC_NO_DELTA;
	r->t_ack_d = TXREC_NO_DELTA;
	r->t3_wire_d = TXREC_NO_DELTA;
	r->t1_queue = TXREC_NO_DELTA;
}

static int32_t delta32(int64_t base, int64_t t)
{
	int64_t d;

	if (base == TS_NONE || t == TS_NONE)
		return TXREC_NO_DELTA;
	d = ns_sub(t, base);
	if (d <= TXREC_LOST || d > INT32_MAX)
		return TXREC_NO_DELTA;	/* the two markers are never offsets */
	return (int32_t)d;
}

static int64_t undelta(int64_t base, int32_t d)
{
	return base == TS_NONE || d == TXREC_NO_DELTA || d == TXREC_LOST ?
	       TS_NONE : ns_add(base, d);
}

void txrec_set_t3_sw(struct txrec *r, int64_t t3_sw)
{
	r->t3_sw_d = delta32(r->t2_sw, t3_sw);
}

void txrec_set_t4_sw(struct txrec *r, int64_t t4_sw)
{
	r->t4_sw_d = delta32(r->t1_sw, t4_sw);
}

void txrec_set_t4_wire(struct txrec *r, int64_t t4_wire)
{
	r->t4_wire_d = delta32(r->t1_wire, t4_wire);
}

void txrec_set_t3_wire(struct txrec *r, int64_t t3_wire)
{
	r->t3_wire_d = delta32(r->t2_wire, t3_wire);
}

void txrec_set_queue(struct txrec *r, int64_t kn, int64_t sched)
{
	/* One field of two names: the emitter's or the reflector's. */
	r->t1_queue = delta32(sched, kn);
}

bool txrec_queue(const struct txrec *r, bool emit, int64_t *ns)
{
	if (txrec_is_emit(r) != emit || r->t1_queue == TXREC_NO_DELTA)
		return false;
	*ns = emit ? r->t1_queue : r->t3_queue;
	return true;
}

int64_t txrec_sched(const struct txrec *r, bool emit, bool kn_wire)
{
	int64_t q, snd = txrec_stamp(r, emit ? P_T1_WIRE : P_T3_WIRE);

	if (!kn_wire || snd == TS_NONE || !txrec_queue(r, emit, &q))
		return TS_NONE;
	return ns_sub(snd, q);
}

void txrec_set_ack(struct txrec *r, int64_t t_ack)
{
	r->t_ack_d = delta32(r->t1_sw, t_ack);
}

void txrec_set_lost(struct txrec *r)
{
	r->t4_sw_d = TXREC_NO_DELTA;
	r->t4_wire_d = TXREC_LOST;
}

int64_t txrec_stamp(const struct txrec *r, enum point p)
{
	switch (p) {
	case P_T1_SW:
		return r->t1_sw;
	case P_T1_WIRE:
		return r->t1_wire;
	case P_T2_WIRE:
		return r->t2_wire;
	case P_T2_SW:
		return r->t2_sw;
	case P_T3_SW:
		return undelta(r->t2_sw, r->t3_sw_d);
	case P_T3_WIRE:
		return undelta(r->t2_wire, r->t3_wire_d);
	case P_T4_WIRE:
		return undelta(r->t1_wire, r->t4_wire_d);
	case P_T4_SW:
		return undelta(r->t1_sw, r->t4_sw_d);
	case P_T_ACK:
		return undelta(r->t1_sw, r->t_ack_d);
	default:
		return TS_NONE;
	}
}
