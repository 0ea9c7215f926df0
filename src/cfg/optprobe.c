// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A probe's options checked (optprobe.h).
 */
#include <stdlib.h>
#include <string.h>

#include "optprobe.h"
#include "opttab.h"
#include "timeutil.h"

/* The options of rant's own pair that mean nothing to a probe. */
static const struct {
	int val;
	const char *name;
} not_probe[] = {
	{ O_TCP, "--tcp" }, { O_STAMP, "--stamp" }, { O_PTP_MODE, "--ptp-mode" },
	{ 'm', "-m/--size" }, { O_KEY, "--key" }, { O_ONE_WAY, "--one-way" },
	{ 's', "-s/--sw-timestamps" },
};

/* --server-pid: auto or a pid. */
static int check_server_pid(const struct rant_cfg *c, FILE *err)
{
	char *end;
	long v;

	if (!c->server_pid || !strcmp(c->server_pid, "auto"))
		return 0;
	v = strtol(c->server_pid, &end, 10);
	if (*end || v < 1 || v > 4194304) {
		fprintf(err, "rant: --server-pid %s: give the server's pid (1 to 4194304) or auto (the process listening on --port)\n",
			c->server_pid);
		return -1;
	}
	return 0;
}

static const char *probe_name(const struct rant_cfg *c)
{
	return c->syn ? "--syn" : c->http_path ? "--http" : "--request";
}

/* A header's text: no control character, no space (nothing that could
 * end the request line or a header early). */
static bool header_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static int check_http(const struct rant_cfg *c, FILE *err)
{
	if (c->http_path && c->http_path[0] != '/') {
		fprintf(err, "rant: --http %s: the path begins with '/': give --http /%s\n",
			c->http_path, c->http_path);
		return -1;
	}
	if (c->http_path && !header_safe(c->http_path)) {
		fprintf(err, "rant: --http: the path holds a space or a control character: percent-encode it (%%20)\n");
		return -1;
	}
	if (c->host && !header_safe(c->host)) {
		fprintf(err, "rant: --host %s: a host name holds no space or control character\n",
			c->host);
		return -1;
	}
	if (c->request_path && !c->response_bytes) {
		fprintf(err, "rant: --request needs --response-bytes N: how long each response is, so rant knows when it is complete\n");
		return -1;
	}
	return 0;
}

/* Options that need a probe of one kind or another. */
static int check_needs(const struct rant_cfg *c, const bool *given, FILE *err)
{
	if (given[O_CONNECTIONS] && !cfg_requests(c)) {
		fprintf(err, "rant: --connections is for --http or --request: give one of them, or drop it\n");
		return -1;
	}
	if ((c->server_pid || c->client_pid) && !cfg_probe(c)) {
		fprintf(err, "rant: %s is for a probe of a TCP service (--syn, --http, --request): the server's side beside its packets\n",
			c->server_pid ? "--server-pid" : "--client-pid");
		return -1;
	}
	if (c->quickack && !c->tcp && !cfg_requests(c)) {
		fprintf(err, "rant: --quickack needs --tcp (rant's own pair) or --http/--request (a service's connections)\n");
		return -1;
	}
	return 0;
}

int optprobe_check(struct rant_cfg *c, const bool *given, FILE *err)
{
	int kinds = c->syn + (c->http_path != NULL) + (c->request_path != NULL);

	if (check_needs(c, given, err))
		return -1;
	if (!kinds)
		return 0;
	if (kinds > 1) {
		fprintf(err, "rant: --syn, --http and --request are each a probe of its own: give one of them\n");
		return -1;
	}
	if (c->mode != MODE_EMIT) {
		fprintf(err, "rant: %s needs -a ADDR: the address of the server to probe\n",
			probe_name(c));
		return -1;
	}
	for (size_t i = 0; i < sizeof(not_probe) / sizeof(not_probe[0]); i++) {
		if (!given[not_probe[i].val])
			continue;
		fprintf(err, "rant: %s is for rant's own pair, not for %s (a service that is not rant): drop it\n",
			not_probe[i].name, probe_name(c));
		return -1;
	}
	if (check_http(c, err) || check_server_pid(c, err))
		return -1;
	if (!given[O_PORT])
		c->port = PROBE_DEFAULT_PORT;
	if (!given[O_TIMEOUT])
		c->timeout_ns = NS_PER_SEC;	/* a service is slower than a reflector */
	return 0;
}

void optprobe_host(const struct rant_cfg *c, char *buf, size_t len)
{
	bool v6 = strchr(c->addr, ':') && c->addr[0] != '[';

	if (c->host)
		snprintf(buf, len, "%s", c->host);
	else if (c->port == 80)
		snprintf(buf, len, v6 ? "[%s]" : "%s", c->addr);
	else
		snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", c->addr, c->port);
}
