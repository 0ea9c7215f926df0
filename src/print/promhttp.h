/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --metrics-listen [ADDR]:PORT: the latest published exposition (prom.h)
 * served at /metrics by libmicrohttpd, a maintained embedded HTTP server
 * that bounds what a client can take: at most PROMHTTP_CONNECTIONS
 * connections, PROMHTTP_PER_IP from one address (well below the total,
 * so that a few addresses cannot hold every slot), PROMHTTP_MEMORY bytes
 * of request per connection (a larger header is answered 431 and
 * closed), PROMHTTP_TIMEOUT_S seconds of an idle connection, and
 * PROMHTTP_REQUEST_S seconds for a whole request to arrive, from the
 * connection's start or its last answer, however its bytes trickle in
 * (a watchdog thread shuts it down), and for the answer's sending that
 * and its length's time at PROMHTTP_SEND_RATE; when fewer than
 * PROMHTTP_SPARE slots are free, a connection kept alive without a
 * request gives way to the new one (the one idle longest). Its threads are created
 * by the caller's thread, whose CPUs, policy and blocked signals they
 * inherit: start it from a thread off the measuring CPU (metrics.c). A
 * scrape copies the text under a mutex the measuring loop never takes.
 */
#ifndef RANT_PROMHTTP_H
#define RANT_PROMHTTP_H

#include <stddef.h>

#define PROMHTTP_CONNECTIONS 64
#define PROMHTTP_PER_IP 4
#define PROMHTTP_MEMORY (32 * 1024)
#define PROMHTTP_TIMEOUT_S 5
#define PROMHTTP_REQUEST_S 3
/* An answer's sending has PROMHTTP_REQUEST_S and its length at this rate,
 * bytes a second (512 kbit/s: a 3 MB exposition has 51 s) */
#define PROMHTTP_SEND_RATE (64 * 1024)
/* Slots kept free: beyond, the connection idle longest gives way */
#define PROMHTTP_SPARE 8
#define PROMHTTP_DEFAULT_ADDR "127.0.0.1"

struct promhttp;

/* Listen on spec ("[ADDR]:PORT", ADDR a numeric IPv4 or [IPv6] address,
 * loopback when omitted). NULL with err set. */
struct promhttp *promhttp_start(const char *spec, char *err, size_t len);
/* Serve text (len bytes, malloc'ed; taken over) from now on. */
void promhttp_publish(struct promhttp *h, char *text, size_t len);
/* Stop serving, close every connection, free. NULL is fine. */
void promhttp_stop(struct promhttp *h);

#endif
