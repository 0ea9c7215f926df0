// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --threads (httpthr.h): the loops beside the lead's, their start, the
 * gates they pass together (warmed up, measuring begun) and the sum of
 * their counts and histograms at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpthr.h"
#include "offloop.h"

/* Where every loop waits until need have come (a failed start lowers
 * need to the loops that run). */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	uint32_t in, need;
};

struct hworker {
	struct http h;
	struct run r;			/* the run's copy: its counts, its histograms */
	struct rant_cfg cfg;		/* ... its --connections */
	struct httpthr *t;
	pthread_t tid;
	bool started;
};

struct httpthr {
	uint32_t n;			/* loops, the lead's too */
	struct run *r;
	struct http *lead;
	struct hworker *w;		/* [n - 1] */
	struct gate warmed, begun;
	int warm_ret;			/* the first failed warm-up's, under warmed.m */
	pthread_mutex_t lock;		/* the series and the log (prober.h) */
	_Atomic uint64_t seq;		/* the run's last seq, every loop's */
};

static void gate_init(struct gate *g, uint32_t need)
{
	pthread_mutex_init(&g->m, NULL);
	pthread_cond_init(&g->c, NULL);
	g->in = 0;
	g->need = need;
}

static void gate_pass(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	if (++g->in >= g->need)
		pthread_cond_broadcast(&g->c);
	while (g->in < g->need)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_lower(struct gate *g, uint32_t need)
{
	pthread_mutex_lock(&g->m);
	g->need = need;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void gate_destroy(struct gate *g)
{
	pthread_mutex_destroy(&g->m);
	pthread_cond_destroy(&g->c);
}

/* Loop i's part of total, of n loops: the first total % n one more. */
static uint64_t share_of(uint64_t total, uint32_t n, uint32_t i)
{
	return total / n + (i < total % n);
}

/* A histogram like h (NULL: none), for a copy of the run. */
static int hist_like(const struct hist *h, struct hist **out)
{
	*out = h ? hist_create(hist_bucket_ns(h), hist_overflow_ns(h), false) : NULL;
	return h && !*out ? -ENOMEM : 0;
}

/* Loop i's copy of r: what measure_tx() writes is its own; what a probe
 * never has (a trace, a pair, jitter, live metrics) left out. */
static int worker_init(struct httpthr *t, struct hworker *w, uint32_t i)
{
	const struct run *r = t->r;
	int ret = 0;

	w->t = t;
	w->cfg = *r->cfg;
	w->cfg.connections = (uint32_t)share_of(r->cfg->connections, t->n, i);
	w->r = *r;
	w->r.cfg = &w->cfg;
	memset(&w->r.cnt, 0, sizeof(w->r.cnt));
	memset(&w->r.probe, 0, sizeof(w->r.probe));
	w->r.trace = NULL;
	w->r.pair = NULL;
	w->r.jitter = NULL;
	w->r.metrics = NULL;
	w->r.stop_reason = NULL;
	for (int m = 0; m < M_COUNT && !ret; m++)
		ret = hist_like(r->hist[m], &w->r.hist[m]);
	if (!ret)
		ret = hist_like(r->rtt_intended, &w->r.rtt_intended);
	if (!ret)
		ret = hconn_init(&w->h, &w->r, w->cfg.connections);
	w->h.p.share = share_of(r->cfg->count, t->n, i);
	w->h.seq_all = &t->seq;
	return ret;
}

static void worker_free(struct hworker *w)
{
	hconn_free(&w->h);
	for (int m = 0; m < M_COUNT; m++)
		hist_destroy(w->r.hist[m]);
	hist_destroy(w->r.rtt_intended);
}

int httpthr_create(struct run *r, struct http *lead, struct httpthr **out)
{
	const struct rant_cfg *c = r->cfg;
	struct httpthr *t;
	int ret;

	*out = NULL;
	if (c->threads <= 1)
		return hconn_init(lead, r, c->connections);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->n = c->threads;
	t->r = r;
	t->lead = lead;
	gate_init(&t->warmed, t->n);
	gate_init(&t->begun, t->n);
	pthread_mutex_init(&t->lock, NULL);
	*out = t;
	t->w = calloc(t->n - 1, sizeof(*t->w));
	if (!t->w)
		return -ENOMEM;
	ret = hconn_init(lead, r, (uint32_t)share_of(c->connections, t->n, 0));
	lead->p.share = share_of(c->count, t->n, 0);
	lead->seq_all = &t->seq;
	for (uint32_t i = 1; i < t->n && !ret; i++)
		ret = worker_init(t, &t->w[i - 1], i);
	if (r->series || r->log) {
		lead->p.lock = &t->lock;
		for (uint32_t i = 1; i < t->n; i++)
			t->w[i - 1].h.p.lock = &t->lock;
	}
	return ret;
}

void httpthr_request(struct httpthr *t, const struct http *lead)
{
	for (uint32_t i = 1; t && i < t->n; i++) {
		t->w[i - 1].h.req = lead->req;
		t->w[i - 1].h.req_len = lead->req_len;
	}
}

static void *worker_main(void *arg)
{
	struct hworker *w = arg;
	struct httpthr *t = w->t;

	if (!httpthr_warmed(t, hloop_warmup(&w->h))) {
		gate_pass(&t->begun);
		hloop_follow(&w->h, t->lead, 0);
		hloop_measure(&w->h);
	}
	return NULL;
}

/* The first n CPUs of rant's affinity into cpu[]: false when it has
 * fewer (the loops are then not pinned: they share it). */
static bool pick_cpus(uint32_t n, int *cpu)
{
	cpu_set_t mine;
	uint32_t k = 0;

	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (int c = 0; c < CPU_SETSIZE && k < n; c++)
		if (CPU_ISSET(c, &mine))
			cpu[k++] = c;
	return k == n;
}

int httpthr_start(struct httpthr *t)
{
	int cpu[PROBE_MAX_THREADS], err = 0;
	bool pin;
	cpu_set_t one;
	uint32_t i;

	if (!t)
		return 0;
	pin = pick_cpus(t->n, cpu);
	if (pin) {
		CPU_ZERO(&one);
		CPU_SET(cpu[0], &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	for (i = 1; i < t->n && !err; i++) {
		struct hworker *w = &t->w[i - 1];

		if (pin) {
			CPU_ZERO(&one);
			CPU_SET(cpu[i], &one);
		}
		err = offloop_spawn_on(&w->tid, worker_main, w, pin ? &one : NULL);
		w->started = !err;
	}
	if (!err)
		return 0;
	gate_lower(&t->warmed, i - 1);	/* those started, and the lead */
	gate_lower(&t->begun, i - 1);
	snprintf(t->r->failure, sizeof(t->r->failure),
		 "cannot start thread %u of --threads %u: %s: give fewer threads", i - 1, t->n,
		 strerror(err));
	t->r->stop_reason = "threads failed";
	return -EIO;
}

int httpthr_warmed(struct httpthr *t, int ret)
{
	if (!t)
		return ret;
	pthread_mutex_lock(&t->warmed.m);
	if (ret && !t->warm_ret)
		t->warm_ret = ret;
	pthread_mutex_unlock(&t->warmed.m);
	gate_pass(&t->warmed);
	pthread_mutex_lock(&t->warmed.m);
	ret = t->warm_ret;
	pthread_mutex_unlock(&t->warmed.m);
	return ret;
}

void httpthr_begun(struct httpthr *t)
{
	if (t)
		gate_pass(&t->begun);
}

void httpthr_join(struct httpthr *t)
{
	for (uint32_t i = 1; t && i < t->n; i++)
		if (t->w[i - 1].started) {
			pthread_join(t->w[i - 1].tid, NULL);
			t->w[i - 1].started = false;
		}
}

/* from's counts into to's: every one a sum (the most in flight of each
 * loop too: at most that many at once in all), the longest loss burst
 * the longest. */
static void counts_add(struct counts *to, const struct counts *from)
{
	uint64_t *t = (uint64_t *)to, burst = to->loss_burst_max;
	const uint64_t *f = (const uint64_t *)from;

	_Static_assert(sizeof(struct counts) % sizeof(uint64_t) == 0, "counts: uint64_t only");
	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
	to->loss_burst_max = burst > from->loss_burst_max ? burst : from->loss_burst_max;
}

/* from's connection and response counts into to's; the last answer the
 * latest of any loop (the open-file limit is the lead's, set after). */
static void probe_add(struct probe_counts *to, const struct probe_counts *from)
{
	to->connections += from->connections;
	to->connect_failures += from->connect_failures;
	to->reopened += from->reopened;
	to->timeouts += from->timeouts;
	to->bad_responses += from->bad_responses;
	for (int k = 0; k < PROBE_STATUS_CLASSES; k++)
		to->status[k] += from->status[k];
	to->non_2xx += from->non_2xx;
	to->informational += from->informational;
	to->bytes_received += from->bytes_received;
	to->timeouts_after += from->timeouts_after;
	if (from->last_answer_ns > to->last_answer_ns)
		to->last_answer_ns = from->last_answer_ns;
}

void httpthr_merge(struct httpthr *t, struct http *lead)
{
	struct run *r = lead->r;

	for (uint32_t i = 1; t && i < t->n; i++) {
		struct hworker *w = &t->w[i - 1];

		for (int m = 0; m < M_COUNT; m++)
			if (r->hist[m] && w->r.hist[m])
				hist_merge(r->hist[m], w->r.hist[m]);
		if (r->rtt_intended && w->r.rtt_intended)
			hist_merge(r->rtt_intended, w->r.rtt_intended);
		counts_add(&r->cnt, &w->r.cnt);
		probe_add(&r->probe, &w->r.probe);
		lead->warm_sent += w->h.warm_sent;
		lead->warm_whole += w->h.warm_whole;
		lead->answered += w->h.answered;
		if (!lead->why_bad)
			lead->why_bad = w->h.why_bad;
		if (!r->stop_reason)
			r->stop_reason = w->r.stop_reason;
	}
}

void httpthr_destroy(struct httpthr *t)
{
	if (!t)
		return;
	httpthr_join(t);
	for (uint32_t i = 1; t->w && i < t->n; i++)
		worker_free(&t->w[i - 1]);
	free(t->w);
	gate_destroy(&t->warmed);
	gate_destroy(&t->begun);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
