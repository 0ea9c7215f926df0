/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a pong says (emitpong.c), for both measuring loops (emit.c,
 * emitopen.c): its MAC (--key), its body's stamps into the record, its
 * follow-up T3 to the record that awaits it.
 */
#ifndef RANT_EMITPONG_H
#define RANT_EMITPONG_H

#include <stdbool.h>

#include "emitter.h"
#include "msgfmt.h"
#include "record.h"
#include "sock.h"

/* --key: false (counted) when a datagram shaped as this phase's pong in
 * e->rx has no valid MAC. */
bool emit_authentic(struct emitter *e, const struct sk_msg *m);

/* Fill rec from the pong in e->rx; patch an earlier record from the
 * follow-up. */
void emit_take_pong(struct emitter *e, struct txrec *rec, const struct msg_hdr *h);

#endif
