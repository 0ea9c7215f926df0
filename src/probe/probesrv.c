// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's side of a probe (see probesrv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probesrv.h"
#include "srvview.h"

static int open_server(struct run *r, char *err, size_t len)
{
	const struct rant_cfg *c = r->cfg;
	struct srv_query q = {
		.pid = strcmp(c->server_pid, "auto") ? atoi(c->server_pid) : 0,
		.addr = &r->sk.peer, .port = c->port,
	};
	int ret = srvview_open(&r->server, &q, err, len);

	if (ret || !cfg_requests(c))
		return ret;
	if (srvview_trace(r->server, err, len))	/* found: go on without its calls */
		warn_add(&r->warn, stderr, "server_writes",
			 "run rant as root where tracefs and the syscall tracepoints are",
			 "the server's writes are not traced: %s", err);
	return 0;
}

int probesrv_open(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	char err[512] = "";
	int ret = 0;

	if (c->server_pid)
		ret = open_server(r, err, sizeof(err));
	if (!ret && c->client_pid) {
		struct srv_query q = { .pid = (int)c->client_pid, .client = true, .port = c->port };

		ret = srvview_open(&r->client, &q, err, sizeof(err));
	}
	if (ret)
		fprintf(stderr, "rant: %s: %s\n", c->server_pid && !r->server ? "--server-pid" :
			"--client-pid", err);
	return ret;
}

void probesrv_read(struct run *r)
{
	char err[512];

	if (r->server && srvview_read(r->server, err, sizeof(err)))
		warn_add(&r->warn, stderr, "server_read", "see the line",
			 "the server's side could not be read after the run: %s", err);
	if (r->client && srvview_read(r->client, err, sizeof(err)))
		warn_add(&r->warn, stderr, "client_read", "see the line",
			 "the client's side could not be read after the run: %s", err);
}

void probesrv_close(struct run *r)
{
	srvview_close(r->server);
	srvview_close(r->client);
	r->server = r->client = NULL;
}
