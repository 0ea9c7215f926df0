// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant sockets (see sockcmd.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "out.h"
#include "outfile.h"
#include "serverout.h"
#include "sockcmd.h"
#include "srvview.h"
#include "stopsig.h"
#include "timeutil.h"

#define SOCKCMD_MAX_PORTS 64

/* "[ADDR]:PORT", "ADDR:PORT" or ":PORT" into addr (family 0: any) and port. */
static int parse_port(const char *t, struct sockaddr_storage *addr, uint16_t *port)
{
	const char *colon = strrchr(t, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t n;
	char *end;
	long p;

	if (!colon)
		return -EINVAL;
	p = strtol(colon + 1, &end, 10);
	if (*end || p < 1 || p > 65535)
		return -EINVAL;
	*port = (uint16_t)p;
	memset(addr, 0, sizeof(*addr));
	n = (size_t)(colon - t);
	if (!n)
		return 0;
	if (t[0] == '[' && n >= 2 && t[n - 1] == ']') {
		t++;
		n -= 2;
	}
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, t, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)addr)->sin_addr) == 1)
		addr->ss_family = AF_INET;
	else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)addr)->sin6_addr) == 1)
		addr->ss_family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

/* -d: the server's calls traced that long (or until SIGINT). */
static void observe(struct srv_view *v, int64_t d_ns)
{
	int64_t end = monotonic_ns() + d_ns;
	char err[512];

	if (srvview_trace(v, err, sizeof(err))) {
		fprintf(stderr, "rant: sockets: its writes are not traced: %s\n", err);
		return;
	}
	while (!stopsig_caught && monotonic_ns() < end) {
		struct timespec ts = { 0, 50 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/* One port's view, read and printed; 0 or -errno (said). */
static int one_port(struct out *o, const struct rant_cfg *c, const struct srv_query *q)
{
	struct srv_view *v;
	char err[512];
	int ret = srvview_open(&v, q, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "rant: sockets: %s\n", err);
		return ret;
	}
	if (c->duration_ns)
		observe(v, c->duration_ns);
	ret = srvview_read(v, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: sockets: %s\n", err);
	else
		serverout_print(o, NULL, v, NULL, true);
	srvview_close(v);
	return ret;
}

/* The ports of the target: one given, or each one PID listens on. */
static int ports_of(const struct rant_cfg *c, struct srv_query *q, uint16_t *ports,
		    struct sockaddr_storage *addr)
{
	const char *t = c->sockets_target;
	char *end, err[512];
	long pid = strtol(t, &end, 10);
	int n;

	if (!*end && pid > 0 && pid <= 4194304) {
		q->pid = (int)pid;
		n = srvview_ports(q->pid, ports, SOCKCMD_MAX_PORTS, err, sizeof(err));
		if (n < 0)
			fprintf(stderr, "rant: sockets: %s\n", err);
		else if (!n)
			fprintf(stderr, "rant: sockets: process %ld listens on no TCP port\n", pid);
		return n;
	}
	if (parse_port(t, addr, &ports[0])) {
		fprintf(stderr, "rant: sockets: '%s' is neither a pid nor [ADDR]:PORT: give e.g. 1234, :8080, 10.0.0.2:80 or [::1]:80\n",
			t);
		return -EINVAL;
	}
	q->addr = addr->ss_family ? addr : NULL;
	return 1;
}

int sockcmd_main(const struct rant_cfg *c)
{
	struct sockaddr_storage addr;
	struct srv_query q = { 0 };
	uint16_t ports[SOCKCMD_MAX_PORTS];
	struct outfile jf;
	struct json j;
	struct out o = { .t = stdout };
	char msg[512];
	int n = ports_of(c, &q, ports, &addr), bad = 0;

	if (n <= 0)
		return 1;
	if (c->json_path) {
		if (outfile_open(&jf, c->json_path, c->follow_links ? OUTFILE_FOLLOW : 0, msg,
				 sizeof(msg))) {
			fprintf(stderr, "rant: -j/--json: %s\n", msg);
			return 1;
		}
		json_init(&j, outfile_stream(&jf));
		o.j = &j;
		if (!strcmp(c->json_path, "-"))
			o.t = NULL;
		out_obj(&o, NULL);
		out_str(&o, "rant_version", NULL, RANT_VERSION);
		out_str(&o, "mode", NULL, "sockets");
		out_arr(&o, "servers");
	}
	stopsig_arm();
	for (int i = 0; i < n; i++) {
		q.port = ports[i];
		bad += one_port(&o, c, &q) != 0;
	}
	if (c->json_path && bad == n) {
		outfile_abort(&jf);	/* nothing was read: no document */
	} else if (c->json_path) {
		out_arr_end(&o);
		out_obj_end(&o);
		out_doc_end(&o);
		if (outfile_commit(&jf)) {
			fprintf(stderr, "rant: -j/--json: writing %s failed: %s\n", c->json_path,
				strerror(errno));
			return 2;
		}
	}
	return bad == n ? 1 : 0;
}
