/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path's SYNs: while --http and --request probe a server, a SYN to
 * the server's port every PATHSYN_EVERY_NS, from a raw socket. The
 * server's kernel answers each with a SYN-ACK at once, this host's
 * kernel answers that with an RST (the port is held by a bound socket
 * that neither listens nor connects), so no application on either side
 * does any work: the capture of the probe's segments on -i times each
 * SYN to its SYN-ACK, a sample of the path's round trip as it is under
 * the load (analysis/tcpana.h's tcpana_path). The raw socket reads
 * nothing (a filter drops every copy the kernel would hand it).
 */
#ifndef RANT_PATHSYN_H
#define RANT_PATHSYN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PATHSYN_EVERY_NS 10000000LL	/* 100 SYNs a second */
#define PATHSYN_PORTS 16		/* ports held at once: each 160 ms */

struct pathsyn;

/* SYNs from local (its address; its port unused) to peer on iface:
 * NULL with errno set and a line in err (the call, the fix). */
struct pathsyn *pathsyn_open(const struct sockaddr_storage *local,
			     const struct sockaddr_storage *peer, const char *iface, char *err,
			     size_t len);
/* One SYN when the last left PATHSYN_EVERY_NS before now (monotonic). */
void pathsyn_tick(struct pathsyn *p, int64_t now_ns);
void pathsyn_close(struct pathsyn *p);

#endif
