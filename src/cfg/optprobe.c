// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A probe's options checked (optprobe.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "optnum.h"

#include "optprobe.h"
#include "opttab.h"

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
	return c->icmp ? "--icmp" : c->syn ? "--syn" : c->http_path ? "--http" : "--request";
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

/* --icmp from rant emit: none of rant's own pair's options, no sweep. */
static int check_icmp(const struct rant_cfg *c, FILE *err)
{
	const char *pair = c->tcp ? "--tcp" : c->stamp ? "--stamp" : c->ptp_mode ? "--ptp-mode" :
			   c->key_path ? "--key" : c->one_way ? "--one-way" : c->sw ? "-s" :
			   c->targets_path ? "--targets" : NULL;

	if (pair) {
		fprintf(err, "rant: --icmp and %s: %s is for rant's own reflector, an ICMP echo has none: drop one\n",
			pair, pair);
		return -1;
	}
	if (c->nsizes > 1) {
		fprintf(err, "rant: --icmp measures one payload size: give -m BYTES once (a sweep is for rant's reflector)\n");
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
	if (given[O_THREADS] && !cfg_requests(c)) {
		fprintf(err, "rant: --threads is for --http or --request: give one of them, or drop it\n");
		return -1;
	}
	if (c->quickack && !c->tcp && !cfg_requests(c)) {
		fprintf(err, "rant: --quickack needs --tcp (rant's own pair) or --http/--request (a service's connections)\n");
		return -1;
	}
	return 0;
}

static int probe_target(struct rant_cfg *c, const char *w, bool *given, FILE *err);

/* --http http://ADDR[:PORT][/PATH]: the server and the path from the URL
 * (https:// refused: rant's requests are plain HTTP/1.1). */
static int http_url(struct rant_cfg *c, bool *given, FILE *err)
{
	const char *url = c->http_path;

	if (!url || url[0] == '/')
		return 0;
	if (!strncmp(url, "https://", 8)) {
		fprintf(err, "rant: --http %s: rant sends plain HTTP/1.1, without TLS: probe the server's plain port, or its TLS port with --syn\n",
			url);
		return -1;
	}
	if (strncmp(url, "http://", 7))
		return 0;	/* check_http() names it */
	c->http_path = NULL;
	if (probe_target(c, url, given, err))
		return -1;
	if (!c->http_path)
		c->http_path = "/";
	return 0;
}

/*
 * --threads N above 1: each thread needs a connection and a share of -c;
 * the closed loop only (one schedule for --interval), and what keeps one
 * copy for the run (-t's breaches, the live --metrics-listen) is not split.
 */
static int check_threads(const struct rant_cfg *c, FILE *err)
{
	if (c->threads <= 1)
		return 0;
	if (c->threads > c->connections) {
		fprintf(err, "rant: --threads %u with --connections %u: each thread needs a connection of its own: give --connections %u or more, or fewer threads\n",
			c->threads, c->connections, c->threads);
		return -1;
	}
	if (c->count && c->count < c->threads) {
		fprintf(err, "rant: --threads %u with -c %" PRIu64 ": each thread sends a share of -c: give -c %u or more, or fewer threads\n",
			c->threads, c->count, c->threads);
		return -1;
	}
	if (c->interval_ns) {
		fprintf(err, "rant: --threads %u and --interval: one loop keeps the schedule of --interval: give --threads 1 with it (more threads are for the closed loop)\n",
			c->threads);
		return -1;
	}
	if (c->threshold_ns || c->metrics_listen) {
		fprintf(err, "rant: --threads %u and %s: that is kept for one loop: give --threads 1 with it\n",
			c->threads, c->threshold_ns ? "-t" : "--metrics-listen");
		return -1;
	}
	return 0;
}

int optprobe_check(struct rant_cfg *c, bool *given, FILE *err)
{
	int kinds;

	if (check_needs(c, given, err) || http_url(c, given, err))
		return -1;
	kinds = c->icmp + c->syn + (c->http_path != NULL) + (c->request_path != NULL);
	if (!kinds && c->sub == SUB_PROBE) {
		fprintf(err, "rant: probe needs what to probe: rant probe icmp|syn|http|request (rant probe --help)\n");
		return -1;
	}
	if (!kinds)
		return 0;
	if (kinds > 1) {
		fprintf(err, "rant: --icmp, --syn, --http and --request are each a probe of its own: give one of them\n");
		return -1;
	}
	if (!given['a']) {
		fprintf(err, "rant: %s needs -a ADDR: the address of the host to probe (rant probe %s -i IFACE ADDR)\n",
			probe_name(c), probe_name(c) + 2);
		return -1;
	}
	if (c->icmp)
		return check_icmp(c, err);
	return check_http(c, err) || check_server_pid(c, err) || check_threads(c, err) ? -1 : 0;
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

static bool probe_word(const char *w)
{
	return !strcmp(w, "icmp") || !strcmp(w, "syn") || !strcmp(w, "http") || !strcmp(w, "request");
}

/* The kind word (syn, http, request) into c, agreeing with its flag. */
static int probe_kind(struct rant_cfg *c, const char *w, bool *given, FILE *err)
{
	bool flag = c->icmp || c->syn || c->http_path || c->request_path;

	if (!probe_word(w)) {
		fprintf(err, "rant: probe %s: give what to probe: icmp, syn, http or request\n", w);
		return -1;
	}
	if (flag && strcmp(probe_name(c) + 2, w)) {
		fprintf(err, "rant: probe %s and %s are two probes: give one of them\n", w,
			probe_name(c));
		return -1;
	}
	if (!strcmp(w, "syn"))
		c->syn = given[O_SYN] = true;
	else if (!strcmp(w, "icmp"))
		c->icmp = given[O_ICMP] = true;
	else if (!strcmp(w, "request") && !c->request_path) {
		fprintf(err, "rant: probe request needs --request FILE: the bytes of each request\n");
		return -1;
	}
	return 0;
}

/* "[v6]:PORT", "v4:PORT" or an address alone (fe80::1 has colons of its own). */
static int split_port(struct rant_cfg *c, char *host, bool *given, FILE *err)
{
	char *colon = NULL, msg[160];
	uint64_t port;

	if (*host == '[') {
		char *end = strchr(host, ']');

		if (!end || (end[1] && end[1] != ':')) {
			fprintf(err, "rant: probe: '%s': give [ADDR]:PORT or [ADDR]\n", host);
			return -1;
		}
		*end = '\0';
		colon = end[1] ? end + 1 : NULL;
		host++;
	} else if (strchr(host, ':') == strrchr(host, ':')) {
		colon = strchr(host, ':');
	}
	c->addr = host;
	if (!colon)
		return 0;
	*colon = '\0';
	if (given[O_PORT]) {
		fprintf(err, "rant: probe: the port given twice, in ADDR:PORT and --port: give it once\n");
		return -1;
	}
	if (optnum_u64(colon + 1, 1, 65535, &port, msg, sizeof(msg))) {
		fprintf(err, "rant: probe: port %s\n", msg);
		return -1;
	}
	c->port = (uint16_t)port;
	given[O_PORT] = true;
	return 0;
}

/* ADDR[:PORT][/PATH] or http://ADDR[:PORT][/PATH], split into c->word_buf. */
static int probe_target(struct rant_cfg *c, const char *w, bool *given, FILE *err)
{
	const char *s = strncmp(w, "http://", 7) ? w : w + 7, *path = strchr(s, '/');
	size_t hl = path ? (size_t)(path - s) : strlen(s);
	char *host = c->word_buf;

	if (given['a']) {
		fprintf(err, "rant: probe: '%s' and -a both name the server: give it once\n", w);
		return -1;
	}
	if (hl + (path ? strlen(path) : 0) + 2 > sizeof(c->word_buf) || !hl) {
		fprintf(err, "rant: probe: '%s': give ADDR[:PORT][/PATH]\n", w);
		return -1;
	}
	if ((path || s != w) && (c->icmp || c->syn || c->request_path)) {
		fprintf(err, "rant: probe %s: '%s': a path or URL is for probe http\n",
			probe_name(c) + 2, w);
		return -1;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (path && c->http_path) {
		fprintf(err, "rant: probe http: the path given twice, in '%s' and --http: give it once\n", w);
		return -1;
	}
	if (path)
		c->http_path = strcpy(host + hl + 1, path);
	given['a'] = true;
	return split_port(c, host, given, err);
}

int optprobe_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	bool http = false;
	int i = 0;

	if (http_url(c, given, err))	/* --http URL: the server given */
		return -1;
	if (n && (probe_word(w[0]) || !(c->syn || c->http_path || c->request_path))) {
		if (probe_kind(c, w[0], given, err))
			return -1;
		http = !strcmp(w[0], "http");
		i = 1;
	}
	if (n > i + 1) {
		fprintf(err, "rant: unexpected argument '%s': rant probe takes one server\n", w[i + 1]);
		return -1;
	}
	if (i == n && !given['a']) {
		fprintf(err, "rant: probe needs the server: rant probe %s -i IFACE ADDR[:PORT]\n",
			n ? w[0] : "icmp|syn|http|request");
		return -1;
	}
	if (i < n && probe_target(c, w[i], given, err))
		return -1;
	if (http && !c->http_path)
		c->http_path = "/";
	given[O_HTTP] = c->http_path != NULL;
	return 0;
}
