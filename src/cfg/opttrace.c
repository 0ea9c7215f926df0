// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant trace's options (opttrace.h).
 */
#include <string.h>

#include "opttab.h"
#include "opttrace.h"

/* The options of the others trace takes. */
static bool trace_takes(int val)
{
	static const int takes[] = { 'i', 'a', 'c', 'j', 'v', 'R', O_PORT, O_PATHS,
				     O_FOLLOW_LINKS };

	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++)
		if (takes[i] == val)
			return true;
	return false;
}

static int check_given(const struct opt *o, const bool *given, FILE *err)
{
	if (!given[o->val] || o->who == TRACE_ONLY || trace_takes(o->val))
		return 0;
	if (o->val < 256)
		fprintf(err, "rant: -%c/--%s", o->val, o->name);
	else
		fprintf(err, "rant: --%s", o->name);
	fprintf(err, " is not for rant trace: drop it (rant trace takes -i, ADDR, --port, --proto, -c, --paths, --rate, --max-hops, -j, -R, -v)\n");
	return -1;
}

int opttrace_check(struct rant_cfg *c, const bool *given, const char *arg, FILE *err)
{
	bool udp = !strcmp(c->trace_proto, "udp");

	c->mode = MODE_TRACE;
	for (size_t i = 0; i < opt_count; i++)
		if (check_given(&opt_table[i], given, err))
			return -1;
	if (arg && given['a']) {
		fprintf(err, "rant: trace: the address given twice (-a %s and %s): give it once\n",
			c->addr, arg);
		return -1;
	}
	if (arg)
		c->addr = arg;
	if (!c->addr || !*c->addr) {
		fprintf(err, "rant: trace: no address: give the destination (rant trace -i IFACE ADDR)\n");
		return -1;
	}
	if (!c->iface || !*c->iface) {
		fprintf(err, "rant: -i/--interface is required: name the interface the probes leave on (ip link lists them)\n");
		return -1;
	}
	if (strcmp(c->trace_proto, "tcp") && !udp && strcmp(c->trace_proto, "icmp")) {
		fprintf(err, "rant: --proto %s: give tcp, udp or icmp\n", c->trace_proto);
		return -1;
	}
	if (!given['c'])
		c->count = OPTTRACE_COUNT;
	if (c->count < 1 || c->count > 100) {
		fprintf(err, "rant: -c %llu: probes a hop and path are 1 to 100\n",
			(unsigned long long)c->count);
		return -1;
	}
	if (!given[O_PORT])
		c->port = udp ? OPTTRACE_PORT_UDP : OPTTRACE_PORT_TCP;
	return 0;
}
