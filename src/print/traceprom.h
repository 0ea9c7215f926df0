/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rant trace's Prometheus exposition (text format 0.0.4), for --metrics
 * FILE (node_exporter's textfile collector), from the trace's summary
 * (trace/hopsum.h) as the text and the JSON are. Per (path, hop), path
 * the source port (icmp: the echo identifier), ttl the hop, responder
 * its address ("" for `*`): rant_trace_hop_rtt_seconds (a summary:
 * quantiles 0, 0.5, 0.99 and 1, _sum, _count), _sent_total,
 * _received_total, _rate_limited (0 or 1), _increment_seconds (the p50
 * over the previous answering hop's). Per path: rant_trace_path_reached
 * and _hops. The verdict: rant_trace_delay_step_seconds{path,ttl} on
 * each path named, and rant_trace_finding_paths{kind,ttl} for every
 * finding. Every series carries interface and destination, so traces
 * to several destinations share a textfile directory. The labels are
 * bounded: HOPS_MAX_PATHS paths, --max-hops hops, HOPDIAG_MAX findings.
 */
#ifndef RANT_TRACEPROM_H
#define RANT_TRACEPROM_H

#include <stdio.h>

#include "hopsum.h"

/* 0, or -errno when f failed. */
int traceprom_render(FILE *f, const struct hopsum *s);

#endif
