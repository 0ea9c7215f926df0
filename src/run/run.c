// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Run set-up and teardown: everything that may fail or allocate happens
 * here, before the first packet (the hot-path rule: no allocation or
 * I/O inside the loops; doc/performance.md, "Hot path").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "capture.h"
#include "fleetset.h"
#include "hostid.h"
#include "auth.h"
#include "out.h"
#include "pairdiag.h"
#include "run.h"
#include "series.h"
#include "session.h"
#include "skpeer.h"
#include "trace.h"
#include "transport.h"
#include "wire.h"

volatile sig_atomic_t run_stop;

/*
 * The emitter's hold-back window in the log, records: the follow-up (T3)
 * of a transaction comes with the next pong; a paced run may have up to
 * --timeout / --interval pings in flight, each given a row when its pong
 * comes or when it is lost.
 */
#define LOG_WINDOW_MIN 1024
#define LOG_WINDOW_MAX (1u << 18)

/* Transactions per second assumed when sizing from -d: a kernel UDP
 * round trip takes at least ~5 us, even on the best NICs. */
#define SIZING_RATE RANT_MAX_RATE

/* SIGHUP: the log's writer opens its file again (txlog_set_reopen),
 * once the run is set up and the log published (run_hup_armed). */
static atomic_int run_hup, run_hup_armed;

atomic_int run_reload;

static void on_signal(int sig)
{
	if (sig != SIGHUP) {
		run_stop = 1;
		return;
	}
	if (atomic_load(&run_hup_armed))
		atomic_store(&run_hup, 1);
	atomic_store(&run_reload, 1);	/* a fleet's reload arms itself (fleetreload.c) */
}

static int reopen_log(void *ctx, bool *had_data)
{
	struct run *r = ctx;

	return output_reopen(r->out, "-l", had_data);
}

static int install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: ppoll returns EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	return 0;
}

/* Transactions the run may measure: exact with -c, estimated from -d
 * (per size of a sweep); 0 for a run bounded by neither. */
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

static size_t log_window(const struct rant_cfg *c)
{
	uint64_t w = LOG_WINDOW_MIN;

	if (c->mode != MODE_EMIT || cfg_fleet(c))
		return 0;	/* the reflector's records, a fleet's, are whole at once */
	if (c->interval_ns) {
		uint64_t flight = (uint64_t)(c->timeout_ns / c->interval_ns) + 2;

		if (2 * flight > w)
			w = 2 * flight;
	}
	return w > LOG_WINDOW_MAX ? LOG_WINDOW_MAX : (size_t)w;
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

/*
 * -l: room on the log's file system for its text. With -c (or -S's ring)
 * the size is known: too little is an error. With -d alone it is an
 * estimate (SIZING_RATE transactions a second unless paced): too little
 * is a warning, and the writer stops the run if the disk fills. The
 * emitter's columns with the reflector's, as when the pongs carry them.
 * 0, or -ENOSPC after one line.
 */
static int check_log_room(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	bool emit = c->mode == MODE_EMIT;
	struct txlog_fmt f = { .emit = emit, .sw = c->sw, .peer = emit,
			       .ack = emit && transport_for(c)->caps.ack_stamps };
	uint64_t records = c->log_ring ? RANT_RING_RECORDS : expected_samples(c), need, avail;
	bool known = c->log_ring || c->count;

	if (!records)
		return 0;	/* neither -c nor -d: no size to check */
	if (c->log_ring && expected_samples(c) && expected_samples(c) < records)
		records = expected_samples(c);
	need = txlog_text_bytes(records, &f);
	if (outfile_free_bytes(&output_get(r->out, "-l")->f, &avail) || need <= avail)
		return 0;	/* enough, or a stream (-l /dev/null, a FIFO) */
	if (!known) {
		warn_add(&r->warn, stderr, "log_room",
			 "free some room, write the log elsewhere, give -c, or log less with -L",
			 "-l %s: at up to %" PRIu64 " transactions the log could reach %.1f MiB, and its file system has %.1f MiB free: if it fills, the run stops there (exit 2)",
			 c->log_path, records, (double)need / (1 << 20), (double)avail / (1 << 20));
		return 0;
	}
	fprintf(stderr, "rant: -l %s: a log of up to %" PRIu64 " records needs about %.1f MiB, and its file system has %.1f MiB free: free some, write the log elsewhere, or give a smaller -c\n",
		c->log_path, records, (double)need / (1 << 20), (double)avail / (1 << 20));
	return -ENOSPC;
}

/*
 * -I: the interval slots. An emitter's interval can still gain a loss
 * --timeout after its end; a reflector's events fall at their time.
 */
static int alloc_series(struct run *r, const char *fix)
{
	const struct rant_cfg *c = r->cfg;
	int64_t settle = SERIES_SETTLE_MARGIN_NS;
	uint64_t in_flight = 1;

	if (!c->report_interval_ns || cfg_fleet(c))
		return 0;	/* a fleet's -I: the metrics' interval alone */
	if (c->mode == MODE_EMIT)
		settle += c->timeout_ns;
	if (c->mode == MODE_EMIT && c->interval_ns)	/* paced: a ping per --interval */
		in_flight = (uint64_t)(c->timeout_ns / c->interval_ns) + 2;
	if (cfg_requests(c) && c->connections > in_flight)	/* one on each */
		in_flight = c->connections;
	r->series = series_create(c->report_interval_ns, settle, in_flight,
				  metric_defs[run_primary(r)].name, c->hugepages);
	if (!r->series) {
		fprintf(stderr, "rant: cannot allocate the interval reports (-I): %s: %s\n",
			strerror(errno), fix);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The log: streamed through a ring of --log-buffer records (the same
 * memory for any -d), or with -S the ring of the last RANT_RING_RECORDS.
 */
static int alloc_log(struct run *r, const char *fix)
{
	const struct rant_cfg *c = r->cfg;
	struct txlog_opts o = {
		.cap = c->log_ring ? RANT_RING_RECORDS : c->log_buffer,
		.window = log_window(c),
		.last = c->log_ring,
		.hugepages = c->hugepages,
	};
	long avail = mem_available_kb();
	uint64_t need_kb = (uint64_t)(o.cap + o.window) * sizeof(struct txrec) / 1024;

	if (avail > 0 && need_kb > (uint64_t)avail / 2) {
		fprintf(stderr, "rant: the log's %zu records in memory need %" PRIu64 " MiB, more than half the free memory: give a smaller --log-buffer\n",
			o.cap, need_kb / 1024);
		return -ENOMEM;
	}
	r->log = txlog_create(&o);
	if (!r->log) {
		fprintf(stderr, "rant: cannot allocate the log (%zu records): %s: %s\n",
			o.cap, strerror(errno), fix);
		return -ENOMEM;
	}
	return 0;
}

/* -I: the reporter thread, off the measuring CPU where there is another. */
static int start_series(struct run *r)
{
	char err[256];
	int ret;

	if (!r->series)
		return 0;
	ret = series_start(r->series, r->text, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	else if (r->cfg->verbose)
		fprintf(stderr, "rant: interval reports (-I) from a thread on %s\n",
			series_cpus(r->series));
	return ret;
}

/* The histograms of the metrics in the run and, in a sweep (-m LIST or
 * RANGE), each size's: 0 or -ENOMEM, said with fix. */
static int alloc_stats(struct run *r, const char *fix)
{
	const struct rant_cfg *c = r->cfg;

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
	for (unsigned int i = 0; c->nsizes > 1 && i < c->nsizes; i++) {
		r->sweep[i].size = c->sizes[i];
		r->sweep[i].rtt = hist_create(c->bucket_ns, c->overflow_ns, c->hugepages);
		if (!r->sweep[i].rtt) {
			fprintf(stderr, "rant: cannot allocate the histogram of size %u: %s: %s\n",
				c->sizes[i], strerror(errno), fix);
			return -ENOMEM;
		}
		r->nsweep = i + 1;
		for (int m = 0; m < M_COUNT; m++) {
			if (m == M_RTT || !r->hist[m])
				continue;
			/* 35 KiB each: no hugepage of its own */
			r->sweep[i].m[m] = sweepstat_create(false);
			if (!r->sweep[i].m[m]) {
				fprintf(stderr, "rant: cannot allocate the %s statistics of size %u: %s: shorten the sweep\n",
					metric_defs[m].name, c->sizes[i], strerror(errno));
				return -ENOMEM;
			}
		}
	}
	return 0;
}

static int alloc_memory(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	int ret;
	const char *fix = c->hugepages ?
		"reserve hugepages (echo 64 > /proc/sys/vm/nr_hugepages: two 2 MiB pages per histogram, plus the log) or drop -G" :
		"shorten the run";

	ret = alloc_stats(r, fix);
	if (ret)
		return ret;
	if (c->mode == MODE_REFLECT) {
		r->sessions = sessions_create(c->max_sessions, c->hugepages);
		if (r->sessions)
			sessions_guard(r->sessions, c->max_per_address,
				       c->key_path ? c->key_window_ns : 0, stderr);
		if (!r->sessions) {
			fprintf(stderr, "rant: cannot allocate the session table (%u): %s: %s\n",
				c->max_sessions, strerror(errno), fix);
			return -ENOMEM;
		}
	}
	/* IPDV of packets each way: not of --http's requests (no T2, T3 of
	 * a server's) */
	if (c->mode == MODE_EMIT && !cfg_fleet(c) && !c->http_path && !c->request_path &&
	    !(r->jitter = jitter_create(c->hugepages))) {
		fprintf(stderr, "rant: cannot allocate the jitter's statistics: %s: %s\n",
			strerror(errno), fix);
		return -ENOMEM;
	}
	if (c->mode == MODE_EMIT && c->interval_ns && !cfg_fleet(c)) {
		r->rtt_intended = hist_create(c->bucket_ns, c->overflow_ns, c->hugepages);
		if (!r->rtt_intended) {
			fprintf(stderr, "rant: cannot allocate the rtt_intended histogram: %s: %s\n",
				strerror(errno), fix);
			return -ENOMEM;
		}
	}
	if (c->threshold_ns) {
		r->breach_cap = c->cont ? c->breach_keep : 1;
		r->breach = calloc(r->breach_cap, sizeof(*r->breach));
		if (!r->breach) {
			fprintf(stderr, "rant: cannot allocate %u breaches: %s: lower --breach-keep\n",
				r->breach_cap, strerror(errno));
			return -ENOMEM;
		}
		memset(r->breach, 0, r->breach_cap * sizeof(*r->breach));	/* touched now */
	}
	if (c->open_loop && !cfg_probe(c) && !cfg_fleet(c)) {	/* each keeps its own */
		size_t slots = ol_slots(c->timeout_ns + OL_TX_WAIT_NS, c->interval_ns);
		int err = ol_create(&r->flight, slots, c->hugepages);

		if (err) {
			fprintf(stderr, "rant: cannot allocate the table of %zu pings in flight: %s: %s\n",
				slots, strerror(-err), fix);
			return err;
		}
	}
	if (output_get(r->out, "-l")) {
		if (check_log_room(r))
			return -ENOSPC;
		ret = alloc_log(r, fix);
		if (ret)
			return ret;
	}
	return alloc_series(r, fix);
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

/*
 * --pcap: capturing before the first packet. The emitter's peer is known
 * by now (its socket is open); the reflector's capture starts before it
 * binds, so that it sees the first ping, and asks for the NIC's stamps
 * unless -R (its socket, which decides, is not open yet).
 */
static int start_capture(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	struct capture_params p = {
		.iface = c->iface, .path = c->pcap_path, .port = c->port,
		.tp = transport_for(c),
		.fmt = &r->fmt,
		.emit = c->mode == MODE_EMIT, .session = r->session,
		.peer = c->mode == MODE_EMIT ? &r->sk.peer : NULL,
		.hw = c->mode == MODE_EMIT ? r->sk.hw : !c->no_hw_ts,
		.rate = c->mode == MODE_EMIT && c->interval_ns ?
			(uint64_t)(NS_PER_SEC / c->interval_ns) + 1 : SIZING_RATE,
		.verbose = c->verbose, .follow_links = c->follow_links,
	};
	char err[512];
	int ret;

	if (!c->pcap_path)
		return 0;
	ret = capture_start(&r->capture, &p, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
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

/* A fleet's targets and sockets (fleetset.h): its first socket is the
 * run's own, closed by the transport's close(). */
static int open_fleet(struct run *r)
{
	int ret;

	r->tp = &transport_udp;
	ret = fleetset_open(&r->fs, r->cfg, &r->fmt, r->auth, &r->sk);
	r->fleet = r->fs.fleet;
	return ret;
}

/* --key: the key file, checked and turned into the keyed MAC states. */
/* The message format the command line asks for, set up for this side. */
static int open_format(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	uint8_t boot[HOSTID_KEY_LEN];
	struct msgfmt_side side = {
		.emit = c->mode == MODE_EMIT, .mac = c->key_path != NULL, .iface = c->iface,
		/* the reflector's warm-up pongs tag its kernel (hostid.h) */
		.host_key = c->mode == MODE_REFLECT && !hostid_read(HOSTID_BOOT_ID, boot) ?
			    boot : NULL,
		.key = r->auth, .stamp_ptp = c->stamp && !strcmp(c->stamp_ts, "ptp"),
		.stamp_stateful = c->stamp_stateful, .stamp_ssid = (uint16_t)c->ssid,
		.stamp_phc_bound_ns = c->max_clock_offset_ns,
	};
	const struct msgfmt *f = msgfmt_find(opts_format(c));
	char err[512];
	int ret;

	if (!f) {
		fprintf(stderr, "rant: no message format named %s in this build\n", opts_format(c));
		return -EINVAL;
	}
	ret = msgfmt_init(&r->fmt, f, &side, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

static int load_key(struct run *r)
{
	char err[512];
	int ret;

	if (!r->cfg->key_path)
		return 0;
	ret = auth_load(&r->auth, r->cfg->key_path, err, sizeof(err));
	if (ret)
		fprintf(stderr, "rant: %s\n", err);
	return ret;
}

/* The clock checks: the wire stamps' source is known once the transport
 * is open. */
/* The emitter's peer is an address of this host (its network namespace):
 * a socket can bind to it. */
static bool peer_is_local(const struct sk *sk)
{
	struct sockaddr_storage a = sk->peer;
	int fd = socket(sk->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool local;

	if (fd < 0)
		return false;
	sk_set_port(&a, 0);
	local = !bind(fd, (struct sockaddr *)&a, sk->peer_len);
	close(fd);
	return local;
}

static int open_clock(struct run *r)
{
	const struct rant_cfg *c = r->cfg;
	/* a probe's server reports no stamps: nothing between the hosts */
	bool emit = c->mode == MODE_EMIT && !cfg_probe(c), stream = r->tp->caps.stream;
	struct clock_cfg cc = {
		.iface = c->iface, .hw = r->sk.hw, .emit = emit,
		.one_way = c->one_way, .ack = r->tp->caps.ack_stamps,
		.max_offset_ns = c->max_clock_offset_ns,
		.interval_ns = c->phc_interval_ns, .hugepages = c->hugepages,
		.stream = stream, .one_host = emit && r->sk.peer_len && peer_is_local(&r->sk),
	};
	uint8_t boot[HOSTID_KEY_LEN];

	/* The reflector's warm-up pongs tag its kernel: is it this one? */
	cc.host_tag_known = emit && !hostid_read(HOSTID_BOOT_ID, boot);
	if (cc.host_tag_known)
		cc.host_tag = hostid_tag(boot, r->session);
	if (stream && !c->nodelay && !c->cork && c->writes > 1)
		cc.theta_unusable = "over TCP with Nagle on and --writes: a message's last write waits for the ACK of its first, so its stamps are not of one packet each way";
	char err[256];
	int ret;

	ret = clock_create(&r->clock, &cc, err, sizeof(err));
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
/* The emitter's session id: random, as the format keeps it. */
static void new_session(struct run *r)
{
	if (getrandom(&r->session, sizeof(r->session), 0) != sizeof(r->session))
		r->session = (uint32_t)(getpid() ^ monotonic_ns());
	r->session = msgfmt_session_key(&r->fmt, r->session);
}

/* -l: the log's writer thread started (SIGHUP reopens its file). 0, or
 * -errno said. */
static int start_log(struct run *r)
{
	int ret;

	if (!r->log)
		return 0;
	txlog_set_reopen(r->log, &run_hup, reopen_log, r);
	ret = txlog_start(r->log, output_get(r->out, "-l")->f.fd);
	if (ret)
		fprintf(stderr, "rant: cannot start the log's writer thread: %s\n", strerror(-ret));
	return ret;
}

int run_setup(struct run *r, const struct rant_cfg *cfg, const struct output_def *rows,
	      size_t nrows)
{
	char err[512];
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->text = out_text_stream(cfg->json_path, cfg->log_path, cfg->pcap_path);
	r->sk.fd = -1;
	r->dma_fd = -1;
	run_stop = 0;

	ret = install_signals();
	if (ret) {
		fprintf(stderr, "rant: sigaction: %s\n", strerror(-ret));
		return ret;
	}
	ret = load_key(r);	/* first: a format may sign with it */
	if (ret)
		return ret;
	ret = open_format(r);
	if (!ret)
		ret = pairdiag_start(&r->pair, cfg);	/* --tcp: before the handshake */
	if (ret)
		return ret;
	if (cfg->mode == MODE_EMIT) {
		ret = cfg_fleet(cfg) ? open_fleet(r) : open_transport(r);
		if (ret)
			return ret;
	}
	if (cfg->trace_marker) {
		ret = trace_open(&r->trace, cfg->trace_instance, cfg->trace_snapshot, err,
				 sizeof(err));
		if (ret) {
			fprintf(stderr, "rant: %s\n", err);
			return ret;
		}
	}
	ret = output_open(r->out, rows, nrows, cfg);
	if (!ret)
		ret = alloc_memory(r);
	if (ret)
		return ret;
	if (cfg->mode == MODE_EMIT && !r->fleet)
		new_session(r);
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		ret = -errno;
		fprintf(stderr, "rant: mlockall: %s: run as root, or raise the locked-memory limit (ulimit -l)\n",
			strerror(-ret));
		return ret;
	}
	hold_dma_latency(r);
	ret = start_log(r);
	if (!ret)
		ret = start_capture(r);
	if (ret)
		return ret;
	if (cfg->mode == MODE_REFLECT) {
		ret = open_transport(r);
		if (ret)
			return ret;
	}
	ret = open_clock(r);
	if (ret)
		return ret;
	ret = start_series(r);
	if (ret)
		return ret;
	if (run_stop) {
		fprintf(stderr, "rant: stopped by a signal during set-up: nothing measured, nothing written\n");
		return -EINTR;
	}
	/* A streamed log takes FILE's name now, so a rotator finds it. */
	if (r->log && !cfg->log_ring && (ret = output_publish(r->out, "-l")))
		return ret;
	atomic_store(&run_hup_armed, 1);
	return 0;
}

void run_teardown(struct run *r)
{
	pairdiag_destroy(r->pair);
	for (int m = 0; m < M_COUNT; m++)
		hist_destroy(r->hist[m]);
	for (unsigned int i = 0; i < r->nsweep; i++) {
		hist_destroy(r->sweep[i].rtt);
		for (int m = 0; m < M_COUNT; m++)
			sweepstat_destroy(r->sweep[i].m[m], false);
	}
	series_destroy(r->series);
	txlog_destroy(r->log);
	hist_destroy(r->rtt_intended);
	jitter_destroy(r->jitter);
	ol_destroy(&r->flight);
	free(r->breach);
	free(r->xdp);
	sessions_destroy(r->sessions);
	auth_destroy(r->auth);
	output_abort(r->out);
	trace_close(r->trace);
	capture_destroy(r->capture);
	clock_destroy(r->clock);
	fleetset_close(&r->fs);
	r->fleet = NULL;
	if (r->tp)
		r->tp->close(&r->sk);
	msgfmt_fini(&r->fmt);
	if (r->dma_fd >= 0)
		close(r->dma_fd);
	munlockall();
}
