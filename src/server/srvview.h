/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A server seen from its own side: the process that owns a TCP port
 * (given, or found: the listener's owner in whichever network namespace
 * holds it), its listener and connections with their options and
 * TCP_INFO (sockdiag.h, pidsock.h), the listen queue's overflows, and,
 * while a run lasts, its send calls grouped into responses
 * (syswrite.h). Read-only throughout.
 */
#ifndef RANT_SRVVIEW_H
#define RANT_SRVVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "procfd.h"
#include "srvsock.h"

#define SRV_MAX_SOCKS 4096	/* sockets of the port kept */
#define SRV_MAX_OWNERS 64	/* processes holding the listener kept */

struct srv_query {
	int pid;			/* 0: the owner of port's listener */
	bool client;			/* pid is a client of port: its sockets
					 * whose peer's port it is (no listener) */
	const struct sockaddr_storage *addr;	/* the server's address, or NULL */
	uint16_t port;
};

/* The responses' writes, summed up (over the connections of the port). */
struct srv_writes {
	bool traced;
	uint64_t responses;		/* reads of a request followed by writes */
	uint64_t writes;		/* send calls in those responses */
	uint64_t calls;			/* every call seen on the port's sockets */
	uint64_t lost;			/* calls the trace lost */
	double per_response;		/* writes / responses */
	uint32_t typical_writes;	/* the median response's writes */
	int64_t first_bytes, second_bytes;	/* the median sizes of a response's
						 * first and second write (-1: none) */
	int first_kind, second_kind;	/* enum syswrite_kind of the most common
					 * first and second write, -1: none */
	int64_t read_to_write_ns;	/* median: request read -> first write */
	int64_t write_gap_ns;		/* median: first -> last write (2 or more) */
	int64_t write_gap_max_ns;
};

struct srv_view {
	uint16_t port;
	bool client;			/* srv_query's */
	int pid;			/* the one asked for, or the listener's owner */
	char comm[32];
	int conn_pid;			/* the process holding most connections (0: none) */
	char conn_comm[32];		/* ... its name: a worker where the listener's
					 * owner is a master */
	struct procfd_ns ns;		/* its network namespace */
	uint64_t netns;			/* ... its inode */
	bool other_netns;		/* not rant's */
	int owners[SRV_MAX_OWNERS];	/* the processes holding the listener */
	size_t nowners;
	struct srv_sock *socks;		/* listeners first */
	size_t nsocks;			/* kept */
	size_t socks_total;		/* seen (more than SRV_MAX_SOCKS: not kept) */
	int opts_err;			/* the first pidsock_read() failure, 0: none */
	uint64_t listen_overflows, listen_drops;	/* TcpExt of its namespace,
							 * since srvview_open() */
	uint64_t overflows_at_open, drops_at_open;
	struct srv_writes w;
	struct srv_tcpinfo typical;	/* the connections' TCP_INFO, field by
					 * field the median (.valid: any) */
	struct syswrite *trace;		/* while tracing */
};

/*
 * Find the server q names. 0, or -errno with one line (the problem and
 * the fix) in err: -ENOENT when no process listens on the port.
 */
int srvview_open(struct srv_view **v, const struct srv_query *q, char *err, size_t len);

/* Trace its send and receive calls from now on (syswrite.h): 0, or
 * -errno with one line in err (the view stands without them). */
int srvview_trace(struct srv_view *v, char *err, size_t len);

/* Its sockets, their options and TCP_INFO, and its listen queue's
 * counters, now (the calls, when traced, stopped and summed up). */
int srvview_read(struct srv_view *v, char *err, size_t len);

/* The connections (not listeners) read, and those with TCP_NODELAY on,
 * TCP_CORK on, and in delayed-ACK mode, among those whose options could
 * be read. */
struct srv_optcount {
	uint64_t conns, read, nodelay, cork, delayed_acks;
};
void srvview_optcount(const struct srv_view *v, struct srv_optcount *c);

void srvview_close(struct srv_view *v);

/* The TCP ports process pid listens on, ascending, into ports (at most
 * max): how many, or -errno with one line in err. */
int srvview_ports(int pid, uint16_t *ports, size_t max, char *err, size_t len);

/* "10.0.0.2:80", "[fe80::1]:80" of a socket's address. */
void srvview_addr(const struct sockaddr_storage *s, char *buf, size_t len);

#endif
