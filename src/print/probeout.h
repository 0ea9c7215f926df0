/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A probe's part of the summary (--syn, --http, --request), from the
 * snapshot: its own counts (--syn's refused probes; the connections,
 * the responses by status class, the timeouts and the responses that
 * did not parse), and what the packets said held the requests (the
 * diagnosis: each kind with its share, typical delay and fix). Text and
 * JSON from one call.
 */
#ifndef RANT_PROBEOUT_H
#define RANT_PROBEOUT_H

#include "out.h"
#include "snap.h"

/* Answers (whole responses, SYN-ACKs) a second since measuring began
 * (to the end, or to the snapshot live); 0 before any time passed. */
double probeout_rate(const struct snap *s);

/* The ICMP errors that answered echo requests (--icmp's, a fleet's icmp
 * targets', and its syn targets' SYNs), by kind, and those after --timeout: their line and their
 * keys in the object open (unreachable, time_exceeded, other_error,
 * late_errors). */
void probeout_icmp_errors(struct out *o, const struct snap *s);

/* The "probe" object and its lines. */
void probeout_counts(struct out *o, const struct snap *s);

/* The "diagnosis" list and its lines (--http, --request). */
void probeout_diagnosis(struct out *o, const struct snap *s);

/* The headline's line: what held most of the requests, if anything. */
void probeout_headline(struct out *o, const struct snap *s);

#endif
