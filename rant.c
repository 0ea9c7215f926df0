// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rant: Round-trip And Network Timing.
 *
 * main(): the command line (src/cfg/: the subcommands' and the options'
 * tables), then the subcommand's main: emit, reflect and probe the set-up,
 * the loop (src/emit/emit.c, src/fleet/, src/reflect/reflect.c,
 * src/probe/probe.c), the reports and the exit status; read and watch
 * watch_main() (src/watch/, its packets from src/capture/pcapsrc.c,
 * src/print/watchout.c); sockets sockcmd_main() (src/report/sockcmd.c,
 * src/server/); trace trace_main() (src/trace/, src/print/traceout.c).
 * Everything that allocates,
 * formats or can fail slowly is done before the loop (run_setup) or
 * after it (report_end); inside, a loop only sends, receives, reads
 * stamps and updates memory it already owns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "fleet.h"
#include "hops.h"
#include "hopsum.h"
#include "opts.h"
#include "outputs.h"
#include "probe.h"
#include "reflect.h"
#include "metrics.h"
#include "report.h"
#include "run.h"
#include "series.h"
#include "sockcmd.h"
#include "startup.h"
#include "trace.h"
#include "traceout.h"
#include "watch.h"
#include "watchout.h"

enum exit_status {
	EXIT_DONE = 0,
	EXIT_SETUP = 1,
	EXIT_RUN = 2,
	EXIT_BREACH = 3,
};

/* After the loop: what went wrong during the run, as an exit status. */
static int run_status(const struct run *r, int loop_ret)
{
	const struct rant_cfg *c = r->cfg;

	if (loop_ret) {
		fprintf(stderr, "rant: %s\n", r->failure);
		return EXIT_RUN;
	}
	if (c->mode == MODE_EMIT && !r->cnt.received && r->cnt.refused) {
		fprintf(stderr, "rant: no pong received for %" PRIu64 " pings: the reflector refused %" PRIu64 " (its session table full): raise --max-sessions on it, and --max-sessions-per-address (each target of a fleet is a session from this address)\n",
			r->cnt.sent + r->cnt.warmup, r->cnt.refused);
		return EXIT_RUN;
	}
	if (c->icmp && r->cnt.sent && !r->cnt.received) {
		fprintf(stderr, "rant: no echo reply to %" PRIu64 " requests to %s: the summary's icmp line says why\n",
			r->cnt.sent, c->addr);
		return EXIT_RUN;
	}
	if (c->mode == MODE_EMIT && r->cnt.sent && !r->cnt.received) {
		fprintf(stderr, "rant: no pong received for %" PRIu64 " pings: is the reflector still running?\n",
			r->cnt.sent);
		return EXIT_RUN;
	}
	return EXIT_DONE;
}

/* rant read FILE, rant watch -i IFACE: a capture's TCP flows (src/watch/). */
static int watch_main(const struct rant_cfg *c)
{
	struct watchout *o;
	struct watch *w;
	char err[512];
	int ret, out;

	if (watch_create(&w, c, err, sizeof(err))) {
		fprintf(stderr, "rant: %s\n", err);
		return EXIT_SETUP;
	}
	if (watchout_start(&o, c, w)) {
		watch_destroy(w);
		return EXIT_SETUP;
	}
	ret = watch_run(w);
	out = watchout_end(o);
	watch_destroy(w);
	return ret || out ? EXIT_RUN : EXIT_DONE;
}

/* A probe's state first: its capture's thread reads the run's histogram. */
static void teardown(struct run *r)
{
	if (cfg_probe(r->cfg))
		probe_teardown(r);
	run_teardown(r);
}

/* emit, reflect, probe: the set-up, the loop, the reports. */
static int measure_main(const struct rant_cfg *c)
{
	static struct run run;
	int ret, status;

	/* --metrics(-listen): its thread, stopped by report_end() */
	if (run_setup(&run, c, outputs_table, outputs_count) ||
	    (cfg_probe(c) && probe_setup(&run)) ||
	    metrics_start(&run, &run.metrics) ||
	    (c->mode == MODE_REFLECT && reflect_setup(&run))) {
		teardown(&run);
		return EXIT_SETUP;
	}
	startup_print(&run);

	clock_start(run.clock);
	ret = cfg_probe(c) ? probe_run(&run) : cfg_fleet(c) ? fleet_run(&run) :
	      c->mode == MODE_EMIT ? emit_run(&run) : reflect_run(&run);
	clock_stop(run.clock);
	if (run.series)
		series_finish(run.series, monotonic_ns());	/* -I: the last lines */

	status = report_end(&run) ? EXIT_RUN : EXIT_DONE;
	if (status == EXIT_DONE)
		status = run_status(&run, ret);
	else
		run_status(&run, ret);
	/* -EALREADY (the other side froze the trace): report_end says it */
	if (run.trace_err && run.trace_err != -EALREADY)
		fprintf(stderr, "rant: ftrace: writing the breach marker or stopping %s failed: %s: the trace is not frozen at the breach\n",
			trace_dir(run.trace), strerror(-run.trace_err));
	if (status == EXIT_DONE && run.cnt.breaches)
		status = EXIT_BREACH;
	teardown(&run);
	return status;
}

/* rant trace: the hops to the address (src/trace/). Exit 0 when the
 * destination answered on every path, 2 when not (the report says how
 * the trace ended). */
static int trace_main(const struct rant_cfg *c)
{
	struct hops_cfg hc = { .iface = c->iface, .addr = c->addr, .port = c->port,
			       .paths = c->paths, .count = (unsigned int)c->count,
			       .max_hops = c->max_hops, .interval_ns = NS_PER_SEC / c->trace_rate,
			       .wait_ns = HOPS_WAIT_NS, .no_hw = c->no_hw_ts };
	struct hopsum *s;
	struct hops *h;
	char err[512];
	int ret, out;
	bool reached = true;

	hopsock_proto_parse(c->trace_proto, &hc.proto);
	if (hops_create(&h, &hc, err, sizeof(err))) {
		fprintf(stderr, "rant: trace: %s\n", err);
		return EXIT_SETUP;
	}
	ret = hops_run(h);
	if (hopsum_build(&s, h)) {
		fprintf(stderr, "rant: trace: no memory for the report\n");
		hops_destroy(h);
		return EXIT_RUN;
	}
	out = traceout_write(s, c->json_path, c->metrics_path, c->follow_links);
	for (unsigned int i = 0; i < s->paths; i++)
		reached &= s->path[i].end == HOPS_REACHED;
	if (ret)
		fprintf(stderr, "rant: trace: %s\n", h->error);
	hopsum_free(s);
	hops_destroy(h);
	return ret || out || !reached ? EXIT_RUN : EXIT_DONE;
}

/* Each subcommand's main, by cfg.sub (src/cfg/subcmd.c: their table). */
static int (*const sub_main[SUB_N])(const struct rant_cfg *c) = {
	[SUB_EMIT] = measure_main,
	[SUB_REFLECT] = measure_main,
	[SUB_PROBE] = measure_main,
	[SUB_READ] = watch_main,
	[SUB_WATCH] = watch_main,
	[SUB_TRACE] = trace_main,
	[SUB_SOCKETS] = sockcmd_main,
};

int main(int argc, char **argv)
{
	static struct rant_cfg cfg;

	switch (opts_parse(argc, argv, &cfg, stderr)) {
	case OPTS_HELP:
		return EXIT_DONE;
	case OPTS_ERROR:
		return EXIT_SETUP;
	case OPTS_OK:
		break;
	}
	return sub_main[cfg.sub](&cfg);
}
