// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The clocks during a run (see clock.h): the PHC sampler thread, theta
 * between the hosts, and the judgement at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "hwts.h"
#include "out.h"
#include "hist.h"
#include "offloop.h"
#include "timeutil.h"
#include "msgfmt.h"

struct clock {
	struct clock_cfg cfg;
	char iface[32];
	bool have_ts_info;
	struct phc_ts_info ts_info;
	struct phc *phc;		/* NULL: no PHC to check */
	char phc_error[CLOCK_WHY_LEN];	/* why there is none, when cfg.hw */
	/* Written by whoever samples: main before and after the thread. */
	unsigned int read_errors;
	int last_error;			/* -errno of the last failed reading */
	bool read_once;			/* a reading succeeded */
	int64_t first_sys_ns, last_sys_ns;
	atomic_bool bad;		/* last reading over the bound, or none */
	/* clock_live(): the last reading, the drift so far (a double's bits) */
	_Atomic int64_t live_offset_ns;
	_Atomic uint64_t live_drift;
	atomic_uint live_have;		/* LIVE_OFFSET | LIVE_DRIFT */
	/* The sampler thread. */
	pthread_t thread;
	bool running;
	bool sync_ready;		/* lock and cond initialised */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;			/* under lock */
	uint64_t cpus_seen;		/* CPUs (< 64) the thread sampled on */
	/* Between the hosts (emitter, packet loop only): a cache line apart
	 * from what the sampler thread writes. */
	_Alignas(64) struct hist *theta;	/* theta - theta_ref */
	bool have_ref;
	int64_t theta_ref;		/* the first theta */
	struct fit_bins fit;	/* theta against T1 */
	uint64_t pongs, pongs_bad;
	uint64_t host_tags, host_same;	/* pongs with MSG_F_HOST; of them, this kernel's */
};

/* ---- theta ---- */

bool clock_theta(const struct txrec *rec, int64_t *theta_ns)
{
	int64_t t1 = txrec_stamp(rec, P_T1_WIRE), t2 = txrec_stamp(rec, P_T2_WIRE);
	int64_t t3 = txrec_stamp(rec, P_T3_WIRE), t4 = txrec_stamp(rec, P_T4_WIRE);

	if (t1 == TS_NONE || t2 == TS_NONE || t3 == TS_NONE || t4 == TS_NONE)
		return false;
	*theta_ns = ns_sub(ns_sub(t2, t1), ns_sub(t4, t3)) / 2;
	return true;
}

void clock_peer_add(struct clock *c, const struct txrec *rec)
{
	int64_t theta, net;

	if (!c->theta || !clock_theta(rec, &theta) || !metric_value(M_NETWORK, rec, &net))
		return;
	if (!c->have_ref) {
		c->theta_ref = theta;
		c->have_ref = true;
	}
	hist_add(c->theta, ns_sub(theta, c->theta_ref), rec->seq);
	fit_bins_add(&c->fit, rec->t1_wire, net, theta);
}

void clock_pong(struct clock *c, uint16_t flags, uint64_t host_tag)
{
	c->pongs++;
	c->pongs_bad += (flags & MSG_F_CLOCK_BAD) != 0;
	if (flags & MSG_F_HOST) {
		c->host_tags++;
		c->host_same += c->cfg.host_tag_known && host_tag == c->cfg.host_tag;
	}
}

bool clock_bad_now(const struct clock *c)
{
	return atomic_load_explicit(&c->bad, memory_order_relaxed);
}

/* ---- set-up ---- */

/* The PHC of c->iface, or why not in c->phc_error. */
static void open_phc(struct clock *c)
{
	const char *iface = c->iface;
	char path[32];
	int ret;

	if (!c->have_ts_info) {
		snprintf(c->phc_error, sizeof(c->phc_error),
			 "ETHTOOL_GET_TS_INFO on %s gave no answer: no PHC index", iface);
		return;
	}
	if (c->ts_info.phc_index < 0) {
		snprintf(c->phc_error, sizeof(c->phc_error),
			 "%s has no PHC (ethtool -T %s: PTP Hardware Clock: none)", iface, iface);
		return;
	}
	snprintf(path, sizeof(path), "/dev/ptp%d", c->ts_info.phc_index);
	ret = phc_create(&c->phc, c->ts_info.phc_index, CLOCK_PHC_SAMPLES);
	if (ret == -EACCES || ret == -EPERM)
		snprintf(c->phc_error, sizeof(c->phc_error),
			 "cannot open %s: %s (run as root)", path, strerror(-ret));
	else if (ret)
		snprintf(c->phc_error, sizeof(c->phc_error), "cannot open %s (the PHC of %s): %s",
			 path, iface, strerror(-ret));
}

int clock_create(struct clock **out, const struct clock_cfg *cfg, char *err,
		 size_t len)
{
	struct clock *c = aligned_alloc(_Alignof(struct clock), sizeof(*c));

	if (!c) {
		snprintf(err, len, "cannot allocate the clock checks: %s", strerror(errno));
		return -ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	snprintf(c->iface, sizeof(c->iface), "%s", cfg->iface);
	c->cfg.iface = c->iface;
	c->have_ts_info = phc_ts_info(c->iface, &c->ts_info) == 0;
	if (cfg->hw)
		open_phc(c);
	atomic_store(&c->bad, cfg->hw && !c->phc);
	if (cfg->emit) {
		c->theta = hist_create(NS_PER_US, 100 * NS_PER_US, cfg->hugepages);
		if (!c->theta || fit_bins_init(&c->fit)) {
			snprintf(err, len, "cannot allocate the clock offset estimate: %s: %s",
				 strerror(errno), cfg->hugepages ?
				 "reserve two more hugepages (/proc/sys/vm/nr_hugepages) or drop -G" :
				 "free some memory");
			clock_destroy(c);
			return -ENOMEM;
		}
	}
	*out = c;
	return 0;
}

void clock_destroy(struct clock *c)
{
	if (!c)
		return;
	if (c->running)
		clock_stop(c);
	if (c->sync_ready) {
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
	}
	phc_destroy(c->phc);
	hist_destroy(c->theta);
	fit_bins_free(&c->fit);
	free(c);
}

/* ---- the PHC readings ---- */

#define LIVE_OFFSET 1u
#define LIVE_DRIFT 2u

/* A reading and the drift through the readings so far, for clock_live(). */
static void publish(struct clock *c, const struct phc_reading *rd)
{
	struct phc_summary sum;
	unsigned int have = LIVE_OFFSET;
	uint64_t bits;

	atomic_store_explicit(&c->live_offset_ns, rd->offset_ns, memory_order_relaxed);
	if (!phc_summary(c->phc, &sum) && sum.drift_valid) {
		memcpy(&bits, &sum.drift_ppb, sizeof(bits));
		atomic_store_explicit(&c->live_drift, bits, memory_order_relaxed);
		have |= LIVE_DRIFT;
	}
	atomic_store_explicit(&c->live_have, have, memory_order_release);
}

/* One sample of the PHC (main before and after the thread, or the thread). */
static void sample(struct clock *c)
{
	struct phc_reading rd;
	int64_t a;
	int ret;

	ret = phc_sample(c->phc, CLOCK_PHC_READS, &rd);
	if (ret) {
		c->read_errors++;
		c->last_error = ret;
		if (!c->read_once)
			atomic_store_explicit(&c->bad, true, memory_order_relaxed);
		return;
	}
	if (!c->read_once)
		c->first_sys_ns = rd.sys_ns;
	c->read_once = true;
	c->last_sys_ns = rd.sys_ns;
	publish(c, &rd);
	a = rd.offset_ns < 0 ? -rd.offset_ns : rd.offset_ns;
	atomic_store_explicit(&c->bad, a > c->cfg.max_offset_ns, memory_order_relaxed);
}

static void *sampler_main(void *arg)
{
	struct clock *c = arg;
	int64_t next = monotonic_ns() + c->cfg.interval_ns, now;
	struct timespec ts;
	int ret;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		ts = ns_to_timespec(next);
		ret = pthread_cond_timedwait(&c->cond, &c->lock, &ts);
		if (c->stop)
			break;
		now = monotonic_ns();
		if (ret != ETIMEDOUT && now < next)
			continue;	/* woken early */
		pthread_mutex_unlock(&c->lock);
		sample(c);
		ret = sched_getcpu();
		if (ret >= 0 && ret < 64)
			c->cpus_seen |= 1ULL << ret;
		pthread_mutex_lock(&c->lock);
		/* Kept off its CPU for a while: the next one a period from now. */
		next = next + c->cfg.interval_ns > now ? next + c->cfg.interval_ns :
			now + c->cfg.interval_ns;
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int sampler_sync_init(struct clock *c)
{
	pthread_condattr_t ca;
	int ret;

	ret = pthread_condattr_init(&ca);
	if (ret)
		return ret;
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ret)
		ret = pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (ret)
		return ret;
	ret = pthread_mutex_init(&c->lock, NULL);
	if (ret) {
		pthread_cond_destroy(&c->cond);
		return ret;
	}
	c->sync_ready = true;
	return 0;
}

void clock_start(struct clock *c)
{
	int ret;

	if (!c->phc)
		return;
	sample(c);
	if (!c->cfg.interval_ns)
		return;
	ret = sampler_sync_init(c);
	if (!ret)
		ret = offloop_spawn(&c->thread, sampler_main, c, NULL);
	if (ret) {
		fprintf(stderr, "rant: warning: cannot start the PHC sampler thread: %s: the PHC is read at start and end only\n",
			strerror(ret));
		return;
	}
	c->running = true;
}

void clock_stop(struct clock *c)
{
	cpu_set_t all;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (c->running) {
		/* Any CPU now: a spinner at SCHED_FIFO on the sampler's own CPU
		 * must not keep it (and this join) waiting. */
		CPU_ZERO(&all);
		for (long i = 0; i < ncpu && i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		pthread_setaffinity_np(c->thread, sizeof(all), &all);
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
		c->running = false;
	}
	if (c->phc)
		sample(c);
}

/* ---- the report ---- */

void clock_live(const struct clock *c, struct clock_live *out)
{
	unsigned int have = atomic_load_explicit(&c->live_have, memory_order_acquire);
	struct hist_stats st;
	uint64_t bits;

	memset(out, 0, sizeof(*out));
	out->have_phc = have & LIVE_OFFSET;
	out->phc_offset_ns = atomic_load_explicit(&c->live_offset_ns, memory_order_relaxed);
	out->phc_drift_valid = have & LIVE_DRIFT;
	bits = atomic_load_explicit(&c->live_drift, memory_order_relaxed);
	memcpy(&out->phc_drift_ppb, &bits, sizeof(bits));
	if (!c->theta)
		return;
	hist_get_stats(c->theta, &st);
	out->peer_samples = st.samples;
	if (st.samples)
		out->peer_offset_ns = ns_add(c->theta_ref, hist_percentile(c->theta, 50));
}

static void report_phc(const struct clock *c, struct clock_report *cr)
{
	snprintf(cr->phc_error, sizeof(cr->phc_error), "%s", c->phc_error);
	if (!c->phc)
		return;
	cr->have_phc = true;
	snprintf(cr->phc, sizeof(cr->phc), "%s", phc_path(c->phc));
	cr->phc_read_errors = c->read_errors;
	cr->sampler_cpus = c->cpus_seen;
	if (!phc_summary(c->phc, &cr->phc_sum)) {
		cr->have_phc_samples = true;
		cr->phc_span_s = (double)(c->last_sys_ns - c->first_sys_ns) / NS_PER_SEC;
	} else {
		snprintf(cr->phc_error, sizeof(cr->phc_error),
			 "no reading of %s succeeded (PTP_SYS_OFFSET_PRECISE, _EXTENDED, PTP_SYS_OFFSET): %s",
			 phc_path(c->phc), strerror(-c->last_error));
	}
}

static void report_peer(const struct clock *c, struct clock_report *cr)
{
	struct fit fit;
	struct hist_stats st;

	cr->pongs = c->pongs;
	cr->pongs_clock_bad = c->pongs_bad;
	if (!c->theta)
		return;
	hist_get_stats(c->theta, &st);
	cr->peer_samples = st.samples;
	if (!st.samples)
		return;
	cr->peer_offset_ns = ns_add(c->theta_ref, hist_percentile(c->theta, 50));
	cr->peer_min_ns = ns_add(c->theta_ref, st.min);
	cr->peer_max_ns = ns_add(c->theta_ref, st.max);
	if (fit_bins_result(&c->fit, &fit, &cr->peer_fitted))
		return;		/* no memory for the fit: no drift */
	cr->peer_span_s = fit.x_last;
	cr->peer_drift_valid = fit_slope(&fit, &cr->peer_drift_ppb) &&
			       fit.x_last >= CLOCK_DRIFT_MIN_S;
	if (!cr->peer_drift_valid)
		cr->peer_drift_ppb = 0;
}

void clock_report(const struct clock *c, struct clock_report *cr)
{
	memset(cr, 0, sizeof(*cr));
	snprintf(cr->iface, sizeof(cr->iface), "%s", c->iface);
	cr->emit = c->cfg.emit;
	cr->hw = c->cfg.hw;
	cr->one_way = c->cfg.one_way;
	cr->ack = c->cfg.ack;
	cr->max_offset_ns = c->cfg.max_offset_ns;
	cr->interval_ns = c->cfg.interval_ns;
	cr->have_ts_info = c->have_ts_info;
	cr->ts_info = c->ts_info;
	cr->stream = c->cfg.stream;
	cr->one_host = c->cfg.one_host;
	cr->host_tags = c->host_tags;
	cr->host_same = c->host_tags && c->host_same == c->host_tags;
	cr->one_host |= cr->host_same;
	if (c->cfg.theta_unusable)
		snprintf(cr->theta_why, sizeof(cr->theta_why), "%s", c->cfg.theta_unusable);
	report_phc(c, cr);
	report_peer(c, cr);
	clock_judge(cr);
}

/* ---- the judgement ---- */

#define FIX_PHC2SYS "run phc2sys (config.sh's ptp_phc2sys step, or the command in the text)"
#define FIX_HOSTS "synchronise the hosts' clocks (PTP between them, or phc2sys between two ports of one host)"

/* A warning of the report, with its code and fix for the JSON (warn.h). */
__attribute__((format(printf, 4, 5)))
static void warn(struct clock_report *cr, const char *code, const char *fix, const char *fmt, ...)
{
	va_list ap;

	if (cr->nwarn >= CLOCK_MAX_WARNINGS)
		return;
	cr->warn_code[cr->nwarn] = code;
	cr->warn_fix[cr->nwarn] = fix;
	va_start(ap, fmt);
	vsnprintf(cr->warn[cr->nwarn++], CLOCK_WARNING_LEN, fmt, ap);
	va_end(ap);
}

/* The fix for a PHC apart from the system clock, after "...: ". */
static void phc2sys_fix(const struct clock_report *cr, char *buf, size_t len)
{
	snprintf(buf, len,
		 "is phc2sys running? `config.sh %s --ip A --remote-ip B --cpu N --irq-cpu M` starts it (its ptp_phc2sys step), or `phc2sys -s %s -c CLOCK_REALTIME -O 0 -m`",
		 cr->iface, cr->iface);
}

static void untrust_local(struct clock_report *cr, const char *why)
{
	if (!cr->local_trusted)
		return;		/* the first reason stands */
	cr->local_trusted = false;
	snprintf(cr->local_why, sizeof(cr->local_why), "%s", why);
}

/* The sampler thread was kept off its CPU: far fewer readings than asked. */
static void judge_sampler(struct clock_report *cr)
{
	double expect;

	if (!cr->interval_ns || cr->phc_span_s < 2.0 * (double)cr->interval_ns / NS_PER_SEC)
		return;
	expect = cr->phc_span_s * NS_PER_SEC / (double)cr->interval_ns + 1;
	if (cr->phc_sum.samples >= expect / 2)
		return;
	warn(cr, "clock_sampler_starved",
	     "leave a CPU without SCHED_FIFO spinners for the PHC sampler thread",
	     "only %u PHC readings in %.1f s (about %.0f expected, one every %.3f s): the sampler thread was kept off the CPU (SCHED_FIFO spinners on every other CPU?)",
	     cr->phc_sum.samples, cr->phc_span_s, expect, (double)cr->interval_ns / NS_PER_SEC);
}

/* This host's PHC against its system clock. */
static void judge_phc(struct clock_report *cr)
{
	const char *comps = !cr->emit ? "reflect_rx and reflect_tx" :
		cr->ack ? "emit_tx, emit_rx and emit_ack" : "emit_tx and emit_rx";
	const struct phc_summary *s = &cr->phc_sum;
	int64_t bound = cr->max_offset_ns;
	char fix[320], why[CLOCK_WHY_LEN];
	double over;

	phc2sys_fix(cr, fix, sizeof(fix));
	if (!cr->have_phc_samples) {
		untrust_local(cr, "the NIC clock was not compared with the system clock");
		warn(cr, "clock_phc_unchecked", "let rant read the NIC's PHC (/dev/ptpN, as root)",
		     "cannot compare the NIC clock with the system clock: %s: %s (system-clock stamps against NIC stamps) are not checked",
		     cr->phc_error, comps);
		return;
	}
	if (cr->phc_read_errors)
		warn(cr, "clock_phc_read_errors", "see the kernel log (dmesg) about the NIC's PHC",
		     "%u of %u PHC readings of %s failed", cr->phc_read_errors,
		     cr->phc_read_errors + s->samples, cr->phc);
	if (s->offset_max_abs_ns > bound) {
		snprintf(why, sizeof(why), "PHC and system clock differ by up to %.3f us",
			 (double)s->offset_max_abs_ns / NS_PER_US);
		untrust_local(cr, why);
		warn(cr, "clock_phc_offset", FIX_PHC2SYS,
		     "the PHC %s and the system clock differ by up to %.3f us (%+.3f us at start, %+.3f us at end), more than --max-clock-offset %.3f us: %s are untrusted: %s",
		     cr->phc, (double)s->offset_max_abs_ns / NS_PER_US,
		     (double)s->offset_start_ns / NS_PER_US, (double)s->offset_end_ns / NS_PER_US,
		     (double)bound / NS_PER_US, comps, fix);
	}
	over = s->drift_ppb * cr->phc_span_s;
	if (s->drift_valid && fabs(over) > (double)bound) {
		snprintf(why, sizeof(why), "PHC drifts %+.0f ppb from the system clock",
			 s->drift_ppb);
		untrust_local(cr, why);
		warn(cr, "clock_phc_drift", FIX_PHC2SYS,
		     "the PHC %s drifts %+.0f ppb from the system clock: %+.3f us over the %.1f s checked, more than --max-clock-offset %.3f us: %s are untrusted: %s",
		     cr->phc, s->drift_ppb, over / NS_PER_US, cr->phc_span_s,
		     (double)bound / NS_PER_US, comps, fix);
	}
	judge_sampler(cr);
}

/* Emitter: what the reflector's pongs said of its own check. */
static void judge_peer(struct clock_report *cr)
{
	if (!cr->pongs_clock_bad)
		return;
	cr->peer_trusted = false;
	snprintf(cr->peer_why, sizeof(cr->peer_why),
		 "the reflector's PHC and system clock disagree (in %" PRIu64 " of %" PRIu64 " pongs)",
		 cr->pongs_clock_bad, cr->pongs);
	warn(cr, "clock_peer_phc", "run phc2sys on the reflector",
	     "the reflector found its PHC and system clock apart by more than its --max-clock-offset (%" PRIu64 " of %" PRIu64 " pongs said so): reflect_rx and reflect_tx are untrusted: is phc2sys running on the reflector? Its own summary says by how much",
	     cr->pongs_clock_bad, cr->pongs);
}

static void untrust_hosts(struct clock_report *cr, const char *why)
{
	if (!cr->hosts_trusted)
		return;
	cr->hosts_trusted = false;
	snprintf(cr->hosts_why, sizeof(cr->hosts_why), "%s", why);
}

/*
 * Over TCP a stamp is a segment's: Nagle, coalescing and delayed ACKs
 * move a message's bytes between segments, so the four stamps need not
 * be of one packet each way, and theta is then no offset. Set-up knows
 * one case (Nagle with --writes); the spread of theta shows the others.
 */
static void judge_theta(struct clock_report *cr)
{
	if (!cr->stream || cr->theta_why[0] || !cr->peer_samples)
		return;
	if (cr->peer_max_ns - cr->peer_min_ns > 2 * cr->max_offset_ns)
		snprintf(cr->theta_why, sizeof(cr->theta_why),
			 "over TCP a stamp is a segment's, and theta spread from %+" PRId64 " to %+" PRId64 " ns: coalescing or delayed ACKs moved the messages' stamps",
			 cr->peer_min_ns, cr->peer_max_ns);
}

/* Emitter with --one-way: the two hosts' clocks must agree. */
static void judge_hosts(struct clock_report *cr)
{
	int64_t bound = cr->max_offset_ns, a = cr->peer_offset_ns;
	char why[CLOCK_WHY_LEN];
	double over;

	if (cr->one_host && !cr->hw)
		return;		/* one kernel clock stamps both ends */
	if (cr->theta_why[0]) {
		untrust_hosts(cr, "theta is no offset here (see the clock report)");
		warn(cr, "one_way_theta_unusable",
		     "--nodelay (or one write per message), or one-way delays from synchronised clocks",
		     "--one-way: theta is no offset: %s: owd_fwd and owd_back are untrusted",
		     cr->theta_why);
		return;
	}
	if (!cr->peer_samples) {
		untrust_hosts(cr, "the hosts' clock offset is unknown");
		warn(cr, "one_way_no_stamps",
		     "give -m of 72 bytes or more, so that pongs carry the reflector's stamps",
		     "--one-way: no transaction carried all four wire stamps: the offset between the hosts' clocks is unknown, so owd_fwd and owd_back are untrusted");
		return;
	}
	if ((a < 0 ? -a : a) > bound) {
		snprintf(why, sizeof(why), "the hosts' clocks differ by theta = %+.3f us",
			 (double)a / NS_PER_US);
		untrust_hosts(cr, why);
		warn(cr, "one_way_offset", FIX_HOSTS,
		     "--one-way: the reflector's clock is %+.3f us from the emitter's (median theta, if the paths are symmetric), more than --max-clock-offset %.3f us: the hosts' clocks are not synchronised as --one-way assumes (PTP between them, or phc2sys between two ports of one host), or the paths differ: owd_fwd and owd_back are untrusted",
		     (double)a / NS_PER_US, (double)bound / NS_PER_US);
	}
	over = cr->peer_drift_ppb * cr->peer_span_s;
	if (cr->peer_drift_valid && fabs(over) > (double)bound) {
		snprintf(why, sizeof(why), "the hosts' clocks drift %+.0f ppb apart",
			 cr->peer_drift_ppb);
		untrust_hosts(cr, why);
		warn(cr, "one_way_drift", FIX_HOSTS,
		     "--one-way: the hosts' clocks drift %+.0f ppb apart: %+.3f us over the %.1f s measured, more than --max-clock-offset %.3f us: owd_fwd and owd_back are untrusted",
		     cr->peer_drift_ppb, over / NS_PER_US, cr->peer_span_s,
		     (double)bound / NS_PER_US);
	}
}

void clock_judge(struct clock_report *cr)
{
	cr->nwarn = 0;
	cr->local_trusted = cr->peer_trusted = cr->hosts_trusted = true;
	cr->local_why[0] = cr->peer_why[0] = cr->hosts_why[0] = '\0';
	if (cr->hw)
		judge_phc(cr);
	if (cr->emit)
		judge_peer(cr);
	if (cr->emit)
		judge_theta(cr);
	if (cr->emit && cr->one_way)
		judge_hosts(cr);
}

/* 0: the emitter's host (T1, T4, the ACK), 1: the reflector's. */
static int host_of(enum point p)
{
	return p == P_T2_WIRE || p == P_T2_SW || p == P_T3_SW || p == P_T3_WIRE;
}

static bool is_wire(enum point p)
{
	return p == P_T1_WIRE || p == P_T2_WIRE || p == P_T3_WIRE || p == P_T4_WIRE;
}

const char *clock_metric_untrusted(const struct clock_report *cr,
				   const struct metric_def *d)
{
	int host;

	if (d->c != d->d)
		return NULL;	/* a difference on each host: one clock each */
	host = host_of(d->a);
	if (host != host_of(d->b))
		return cr->hosts_trusted ? NULL : cr->hosts_why;
	if (is_wire(d->a) == is_wire(d->b))
		return NULL;	/* one clock */
	if (host == (cr->emit ? 0 : 1))
		return cr->local_trusted ? NULL : cr->local_why;
	return cr->peer_trusted ? NULL : cr->peer_why;
}
