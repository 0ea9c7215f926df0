// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Run set-up and teardown: everything that may fail or allocate happens
 * here, before the first packet (the hot-path rules of rant's design
 * brief, DESIGN.md: no allocation or I/O inside the loops).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "run.h"
#include "session.h"
#include "trace.h"
#include "transport.h"
#include "wire.h"

volatile sig_atomic_t run_stop;

/* Transactions per second assumed when sizing from -d: a kernel UDP
 * round trip takes at least ~5 us, even on the best NICs. */
#define SIZING_RATE RANT_MAX_RATE

static void on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

static int install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: ppoll returns EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

/* Transactions the run may measure: exact with -c, estimated from -d
 * (per size of a sweep). */
static uint64_t expected_samples(const struct rant_cfg *c)
{
	uint64_t by_time = 0;

	if (c->duration_ns) {
		uint64_t rate = SIZING_RATE;

		if (c->mode == MODE_EMIT && c->interval_ns)
			rate = (uint64_t)(NS_PER_SEC / c->interval_ns) + 1;
		by_time = (uint64_t)(c->duration_ns / NS_PER_MS) * rate / 1000 + 1;
	}
	/* A sweep measures -c or -d once per size. */
	if (c->count && (!by_time || c->count < by_time))
		return c->count * c->nsizes;
	return by_time * c->nsizes;
}

static long mem_available_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int alloc_memory(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	uint64_t expect = expected_samples(c);
	const char *fix = c->hugepages ?
		"reserve hugepages (echo 64 > /proc/sys/vm/nr_hugepages: two 2 MiB pages per histogram, plus the log) or drop -G" :
		"shorten the run";

	for (int m = 0; m < M_COUNT; m++) {
		if (!metric_in_run(c, m))
			continue;
		r->hist[m] = hist_create(c->bucket_ns, c->overflow_ns, c->hugepages);
		if (!r->hist[m]) {
			fprintf(stderr, "rant: cannot allocate the %s histogram: %s: %s\n",
				metric_defs[m].name, strerror(errno), fix);
			return -ENOMEM;
		}
	}
	if (c->mode == MODE_REFLECT) {
		r->sessions = sessions_create(c->max_sessions, c->hugepages);
		if (!r->sessions) {
			fprintf(stderr, "rant: cannot allocate the session table (%u): %s: %s\n",
				c->max_sessions, strerror(errno), fix);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; c->nsizes > 1 && i < c->nsizes; i++) {
		r->sweep[i].size = c->sizes[i];
		r->sweep[i].rtt = hist_create(c->bucket_ns, c->overflow_ns, c->hugepages);
		if (!r->sweep[i].rtt) {
			fprintf(stderr, "rant: cannot allocate the histogram of size %u: %s: %s\n",
				c->sizes[i], strerror(errno), fix);
			return -ENOMEM;
		}
		r->nsweep = i + 1;
	}
	if (c->mode == MODE_EMIT && c->interval_ns) {
		r->rtt_intended = hist_create(c->bucket_ns, c->overflow_ns, c->hugepages);
		if (!r->rtt_intended) {
			fprintf(stderr, "rant: cannot allocate the rtt_intended histogram: %s: %s\n",
				strerror(errno), fix);
			return -ENOMEM;
		}
	}
	if (c->open_loop) {
		size_t slots = ol_slots(c->timeout_ns + OL_TX_WAIT_NS, c->interval_ns);
		int err = ol_create(&r->flight, slots, c->hugepages);

		if (err) {
			fprintf(stderr, "rant: cannot allocate the table of %zu pings in flight: %s: %s\n",
				slots, strerror(-err), fix);
			return err;
		}
	}
	if (r->have_log) {
		size_t cap = c->snapshot ? RANT_RING_RECORDS : (size_t)expect;
		long avail = mem_available_kb();
		uint64_t need_kb = (uint64_t)cap * sizeof(struct txrec) / 1024;

		if (avail > 0 && need_kb > (uint64_t)avail / 2) {
			fprintf(stderr, "rant: the log of up to %zu records needs %" PRIu64 " MiB, more than half the free memory: give -c, a shorter -d, -L or -S\n",
				cap, need_kb / 1024);
			return -ENOMEM;
		}
		r->log = txlog_create(cap, c->snapshot, c->hugepages);
		if (!r->log) {
			fprintf(stderr, "rant: cannot allocate the log (%zu records): %s: %s\n",
				cap, strerror(errno), fix);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Create the output file for option opt (when given); 0 or -errno. */
static int open_output(struct outfile *o, bool *have, const char *path,
		       const char *opt)
{
	char msg[512];
	int ret;

	if (!path)
		return 0;
	ret = outfile_open(o, path, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "rant: %s: %s\n", opt, msg);
		return ret;
	}
	*have = true;
	return 0;
}

static int open_outputs(struct run *r)
{
	int ret = open_output(&r->logf, &r->have_log, r->cfg->log_path, "-l");

	return ret ? ret : open_output(&r->jsonf, &r->have_json, r->cfg->json_path, "-j");
}

/* Keep the CPU out of deep idle states for the run, as cyclictest does. */
static void hold_dma_latency(struct run *r)
{
	int32_t zero = 0;

	r->dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (r->dma_fd >= 0 && write(r->dma_fd, &zero, sizeof(zero)) != sizeof(zero)) {
		close(r->dma_fd);
		r->dma_fd = -1;
	}
	if (r->cfg->verbose)
		fprintf(stderr, "rant: /dev/cpu_dma_latency %s\n",
			r->dma_fd >= 0 ? "held at 0 us for the run" :
			"not held (no permission or no such device): idle states may add latency");
}

static int open_transport(struct run *r)
{
	char err[512];
	int ret;

	r->tp = transport_for(r->cfg);
	ret = r->tp->open(&r->sk, r->cfg, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

/*
 * Signal handlers come first, so a signal during set-up ends it cleanly
 * (teardown removes the temporary output files). The emitter opens its
 * socket next: its checks (interface, address, route) are what a user
 * most often gets wrong, and nothing arrives before it sends. The
 * reflector binds last, once everything else is ready: from the bind
 * on, pings queue, and a slow set-up (a large log) would drop them.
 */
int run_setup(struct run *r, const struct rant_cfg *cfg)
{
	char err[512];
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->sk.fd = -1;
	r->dma_fd = -1;
	run_stop = 0;

	ret = install_signals();
	if (ret) {
		fprintf(stderr, "rant: sigaction: %s\n", strerror(-ret));
		return ret;
	}
	if (cfg->mode == MODE_EMIT) {
		ret = open_transport(r);
		if (ret)
			return ret;
	}
	if (cfg->trace_marker) {
		ret = trace_open(&r->trace, cfg->trace_instance, cfg->snapshot, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "rant: %s\n", err);
			return ret;
		}
	}
	ret = open_outputs(r);
	if (!ret)
		ret = alloc_memory(r);
	if (ret)
		return ret;
	if (cfg->mode == MODE_EMIT &&
	    getrandom(&r->session, sizeof(r->session), 0) != sizeof(r->session))
		r->session = (uint32_t)(getpid() ^ monotonic_ns());
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		ret = -errno;
		fprintf(stderr, "rant: mlockall: %s: run as root, or raise the locked-memory limit (ulimit -l)\n",
			strerror(-ret));
		return ret;
	}
	hold_dma_latency(r);
	if (cfg->mode == MODE_REFLECT) {
		ret = open_transport(r);
		if (ret)
			return ret;
	}
	if (run_stop) {
		fprintf(stderr, "rant: stopped by a signal during set-up: nothing measured, nothing written\n");
		return -EINTR;
	}
	return 0;
}

void run_teardown(struct run *r)
{
	for (int m = 0; m < M_COUNT; m++)
		hist_destroy(r->hist[m]);
	for (unsigned int i = 0; i < r->nsweep; i++)
		hist_destroy(r->sweep[i].rtt);
	txlog_destroy(r->log);
	hist_destroy(r->rtt_intended);
	ol_destroy(&r->flight);
	sessions_destroy(r->sessions);
	if (r->have_log)
		outfile_abort(&r->logf);
	if (r->have_json)
		outfile_abort(&r->jsonf);
	trace_close(r->trace);
	if (r->tp)
		r->tp->close(&r->sk);
	if (r->dma_fd >= 0)
		close(r->dma_fd);
	munlockall();
}
