// SPDX-License-Identifier: GPL-2.0-or-later
/* The names of what --read and --watch report (watchrep.h). */
#include <arpa/inet.h>
#include <stdio.h>

#include "watchrep.h"

const double watch_pcts[WATCH_NPCT] = { 50, 90, 95, 99, 99.9, 99.99, 99.999 };

const char *const watch_metric_keys[WM_COUNT] = {
	"exchange", "first_byte", "rtt_client", "rtt_server", "handshake",
};

const char *const watch_metric_labels[WM_COUNT] = {
	"exchange: the request's first segment to the response's last (what wrk reports)",
	"first byte: the request's first segment to the response's first",
	"RTT from the capture point to the client and back (the server's data acknowledged)",
	"RTT from the capture point to the server and back (the client's data acknowledged)",
	"handshake: SYN to SYN-ACK, and SYN-ACK to its ACK where both were captured",
};

const char *const watch_end_names[WE_COUNT] = {
	"fin", "rst", "idle", "capture_end", "evicted", "reused",
};

const char *watch_addr_str(const struct watch_addr *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->a, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	snprintf(buf, len, a->family == 6 ? "[%s]:%u" : "%s:%u", host, (unsigned int)a->port);
	return buf;
}
