/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --read/--watch's Prometheus exposition (text format 0.0.4): the
 * capture's packets and pcap's drops, and per server port (at most
 * WATCH_PORTS and "other": never per flow) its flows, exchanges,
 * exchanges held by each kind, retransmissions and the classic
 * histograms rant_latency_seconds{metric=exchange|first_byte|rtt_client|
 * rtt_server|handshake,port=...}. Read live from another thread than the
 * one reading the capture (watchrep.h says what may be).
 */
#ifndef RANT_WATCHPROM_H
#define RANT_WATCHPROM_H

#include <stdio.h>

#include "cfg.h"
#include "prom.h"
#include "watchrep.h"

/* 0, or -errno when f failed. */
int watchprom_render(FILE *f, const struct rant_cfg *c, const struct watch_report *r,
		     const struct prom_ladder *l);

#endif
