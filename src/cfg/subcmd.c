// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The subcommands' table (subcmd.h) and the words each takes after its
 * options.
 */
#include <string.h>

#include "optprobe.h"
#include "opttrace.h"
#include "opttab.h"
#include "subcmd.h"

/* rant emit [-a] ADDR: one word, the reflector's address. */
static int emit_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	if (n > 1) {
		fprintf(err, "rant: unexpected argument '%s': rant emit measures one reflector (ADDR), or --targets FILE\n",
			w[1]);
		return -1;
	}
	if (n == 1 && (given['a'] || given[O_TARGETS])) {
		fprintf(err, "rant: emit: '%s' and %s both name what to measure: give the address once, as the word or as %s\n",
			w[0], given['a'] ? "-a" : "--targets", given['a'] ? "-a" : "--targets");
		return -1;
	}
	if (n == 1) {
		c->addr = w[0];
		given['a'] = true;
	}
	if (!given['a'] && !given[O_TARGETS]) {
		fprintf(err, "rant: emit needs the reflector's address: rant emit -i IFACE ADDR (or --targets FILE)\n");
		return -1;
	}
	return 0;
}

/* rant read FILE */
static int read_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	if (n > 1 || (n == 1 && given[O_READ])) {
		fprintf(err, "rant: read takes one capture: '%s' is one too many\n", w[n - 1]);
		return -1;
	}
	if (n == 1 && !*w[0]) {
		fprintf(err, "rant: read: the capture's name is empty: give FILE (- for stdin)\n");
		return -1;
	}
	if (n == 1) {
		c->read_path = w[0];
		given[O_READ] = true;
	}
	if (!given[O_READ]) {
		fprintf(err, "rant: read needs FILE: the capture to read (pcap or pcapng, - for stdin)\n");
		return -1;
	}
	return 0;
}

/* rant watch -i IFACE: no word. */
static int watch_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	if (n) {
		fprintf(err, "rant: unexpected argument '%s': rant watch -i IFACE captures on the interface\n",
			w[0]);
		return -1;
	}
	c->watch = given[O_WATCH] = true;
	return 0;
}

/* rant reflect: no word. */
static int no_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	(void)c;
	(void)given;
	if (!n)
		return 0;
	fprintf(err, "rant: unexpected argument '%s': rant reflect takes options only (rant reflect --help)\n",
		w[0]);
	return -1;
}

/* rant sockets PID|[ADDR]:PORT: one word. */
static int sockets_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	(void)given;
	if (n != 1 || !*w[0]) {
		fprintf(err, "rant: sockets takes one word: the server's PID, or its [ADDR]:PORT (:8080 for any address)\n");
		return -1;
	}
	c->sockets_target = w[0];
	return 0;
}

const struct subcmd subcmd_table[SUB_N] = {
	[SUB_EMIT] = { "emit", MODE_EMIT,
		"round trips to a rant or STAMP reflector, a fleet, a host (--icmp)",
		{ "rant emit -i IFACE ADDR [options]", "rant emit -i IFACE --targets FILE [options]",
		  "rant emit --icmp -i IFACE ADDR [options]" },
		"rant emit -i eth3 10.0.0.2 -d 60 -H",
		"the emitter (rant emit)", emit_words },
	[SUB_REFLECT] = { "reflect", MODE_REFLECT,
		"answer the emitters' pings, with the stamps they carry back",
		{ "rant reflect -i IFACE [options]" },
		"rant reflect -i eth3",
		"the reflector (rant reflect)", no_words },
	[SUB_PROBE] = { "probe", MODE_EMIT,
		"time a host or a TCP service: echoes, handshakes, HTTP, requests",
		{ "rant probe icmp -i IFACE ADDR [options]",
		  "rant probe syn -i IFACE ADDR[:PORT] [options]",
		  "rant probe http -i IFACE ADDR[:PORT][/PATH] [options]",
		  "rant probe request -i IFACE ADDR:PORT --request FILE --response-bytes N" },
		"rant probe http -i eth3 10.0.0.2:8080/",
		"a probe (rant probe)", optprobe_words },
	[SUB_READ] = { "read", MODE_WATCH,
		"a capture's TCP flows: their latency and what held it",
		{ "rant read FILE [options]" },
		"rant read trace.pcap",
		"--read (rant read)", read_words },
	[SUB_WATCH] = { "watch", MODE_WATCH,
		"the same, live on an interface",
		{ "rant watch -i IFACE [options]" },
		"rant watch -i eth3 -d 60",
		"--watch (rant watch)", watch_words },
	[SUB_TRACE] = { "trace", MODE_TRACE,
		"the hops to an address, per ECMP path, timed by their stamps",
		{ "rant trace -i IFACE ADDR [options]" },
		"rant trace -i eth3 10.0.0.2 --paths 16",
		"rant trace", opttrace_words },
	[SUB_SOCKETS] = { "sockets", MODE_SOCKETS,
		"a server's sockets, their options and TCP state, as it has them",
		{ "rant sockets PID [options]", "rant sockets [ADDR]:PORT [options]" },
		"rant sockets :8080 -d 5",
		"rant sockets", sockets_words },
};

const struct subcmd *subcmd_find(const char *name)
{
	for (int i = 0; i < SUB_N; i++)
		if (!strcmp(subcmd_table[i].name, name))
			return &subcmd_table[i];
	return NULL;
}

void subcmd_names(unsigned int who, char *buf, size_t len)
{
	int n = 0, last = -1, w = 0;

	for (int i = 0; i < SUB_N; i++)
		if (who & (1u << i))
			n++, last = i;
	*buf = '\0';
	/* read and watch together: "--read or --watch (rant read, rant watch)" */
	for (int i = 0, k = 0; i < SUB_N && w >= 0 && (size_t)w < len; i++) {
		if (!(who & (1u << i)))
			continue;
		k++;
		if (i == SUB_READ && (who & (1u << SUB_WATCH))) {
			w += snprintf(buf + w, len - (size_t)w, "%s--read or --watch (rant read, rant watch)",
				      k == 1 ? "" : k == n - 1 ? " or " : ", ");
			break;
		}
		w += snprintf(buf + w, len - (size_t)w, "%s%s",
			      k == 1 ? "" : i == last ? " or " : ", ", subcmd_table[i].as);
	}
}
