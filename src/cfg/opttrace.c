// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant trace's command line (opttrace.h).
 */
#include <inttypes.h>
#include <string.h>

#include "opttab.h"
#include "opttrace.h"

int opttrace_words(struct rant_cfg *c, char *const *w, int n, bool *given, FILE *err)
{
	if (n > 1) {
		fprintf(err, "rant: unexpected argument '%s': rant trace traces one address (ADDR)\n",
			w[1]);
		return -1;
	}
	if (n == 1 && given['a']) {
		fprintf(err, "rant: trace: '%s' and -a both name the destination: give it once\n",
			w[0]);
		return -1;
	}
	if (n == 1) {
		c->addr = w[0];
		given['a'] = true;
	}
	if (!given['a'] || !c->addr || !*c->addr) {
		fprintf(err, "rant: trace needs the destination: rant trace -i IFACE ADDR\n");
		return -1;
	}
	return 0;
}

int opttrace_check(struct rant_cfg *c, const bool *given, FILE *err)
{
	bool udp = !strcmp(c->trace_proto, "udp");

	if (!c->iface || !*c->iface) {
		fprintf(err, "rant: -i/--interface is required: name the interface the probes leave on (ip link lists them)\n");
		return -1;
	}
	if (strcmp(c->trace_proto, "tcp") && !udp && strcmp(c->trace_proto, "icmp")) {
		fprintf(err, "rant: --proto %s: give tcp, udp or icmp\n", c->trace_proto);
		return -1;
	}
	if (c->count < 1 || c->count > OPTTRACE_MAX_COUNT) {
		fprintf(err, "rant: trace: -c %" PRIu64 ": the probes a hop and path are 1 to %d\n",
			c->count, OPTTRACE_MAX_COUNT);
		return -1;
	}
	if (udp && !given[O_PORT])
		c->port = OPTTRACE_PORT_UDP;
	return 0;
}
