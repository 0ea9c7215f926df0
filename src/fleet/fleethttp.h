/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The http targets (fleethttp.c), for the fleet's loop (fleet.c): each
 * target its own connection, kept alive, one request out at a time
 * (HTTP/1.1 without pipelining), made at the target's first request
 * and again after the server closed it or a request of it was lost.
 * A request's T1 is the TX stamp of its write (OPT_ID: the offset of
 * its last byte), its T4 the RX stamp of the read that completed the
 * response (httpresp.h frames it), as rant probe http takes them.
 *
 * A request due while the one before is still out is not sent: a
 * missed slot. A connection refused (an RST to its SYN) counts the
 * request refused, as a syn target's; any other failure leaves it to
 * --timeout (lost). The connections' events are read without blocking
 * when the loop reads its sockets (every FL_DRAIN_NS): their stamps
 * were taken as the segments came.
 */
#ifndef RANT_FLEETHTTP_H
#define RANT_FLEETHTTP_H

#include <stddef.h>
#include <stdint.h>

#include "fleetloop.h"

/* Slot's request seq, due now: 0 when it left, or waits for the
 * connection made for it; -EBUSY while the one before is out (a missed
 * slot); or -errno (-EMFILE: the open-file limit). */
int fl_http_send(struct fleetloop *L, size_t slot, uint64_t seq);

/* The connections' events: connections made, stamps, responses. */
void fl_http_poll(struct fleetloop *L);

/* Slot's connection closed (the target left the table). */
void fl_http_close(struct fleetloop *L, size_t slot);

/* Every connection closed, the state freed. */
void fl_http_free(struct fleetloop *L);

#endif
