// SPDX-License-Identifier: GPL-2.0-or-later
/* Metrics of a live run, from a thread beside the loop (metrics.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "offloop.h"
#include "outfile.h"
#include "promhttp.h"
#include "run.h"
#include "snap.h"
#include "timeutil.h"

struct metrics {
	const struct rant_cfg *cfg;
	metrics_render_fn render;	/* the exposition of now */
	void *ctx;
	struct prom_ladder ladder;
	int64_t interval_ns;
	const char *path;		/* --metrics, or NULL */
	bool file_failed;		/* said once */
	struct promhttp *http;
	pthread_t thread;
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	bool stopping, ready;
	int start_err;			/* the server's, for metrics_start() */
	char err[256];
};

/* A run's exposition: its live snapshot's. */
static int render_run(void *ctx, FILE *f, const struct prom_ladder *l)
{
	struct snap *s = snap_build(ctx, SNAP_LIVE);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = prom_render(f, s, l);
	snap_free(s);
	return ret;
}

/* The exposition of now into a malloc'ed buffer. */
static char *render(struct metrics *m, size_t *len)
{
	char *text = NULL;
	FILE *f;
	int ret;

	f = open_memstream(&text, len);
	ret = f ? m->render(m->ctx, f, &m->ladder) : -ENOMEM;
	if (f && fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(text);
		return NULL;
	}
	return text;
}

/* FILE whole: a new temporary, renamed over it. A stream target (stdout,
 * a device, a FIFO) gets the end's exposition only. */
static void write_file(struct metrics *m, const char *text, size_t len)
{
	struct outfile f;
	char msg[256];
	int ret;

	ret = outfile_open(&f, m->path, m->cfg->follow_links ? OUTFILE_FOLLOW : 0,
			   msg, sizeof(msg));
	if (!ret && f.direct) {
		outfile_abort(&f);
		m->path = NULL;
		return;
	}
	if (!ret) {
		FILE *fp = outfile_stream(&f);

		ret = fp && fwrite(text, 1, len, fp) == len ? 0 : -(errno ? errno : EIO);
		ret = ret ? ret : outfile_commit(&f);
		if (ret)
			outfile_abort(&f);
		snprintf(msg, sizeof(msg), "%s", strerror(-ret));
	}
	if (ret && !m->file_failed)
		fprintf(stderr, "rant: --metrics: writing %s failed: %s (tried again every interval)\n",
			m->path, msg);
	m->file_failed = ret != 0;
}

static void publish(struct metrics *m)
{
	size_t len = 0;
	char *text = render(m, &len);

	if (!text)
		return;		/* no memory now: the next interval tries again */
	if (m->path)
		write_file(m, text, len);
	if (m->http)
		promhttp_publish(m->http, text, len);
	else
		free(text);
}

static void *metrics_main(void *arg)
{
	struct metrics *m = arg;
	struct timespec ts;
	int64_t next;

	if (m->cfg->metrics_listen)	/* its thread inherits this one's CPUs */
		m->http = promhttp_start(m->cfg->metrics_listen, m->err, sizeof(m->err));
	pthread_mutex_lock(&m->mtx);
	m->start_err = m->cfg->metrics_listen && !m->http ? -EADDRNOTAVAIL : 0;
	m->ready = true;
	pthread_cond_broadcast(&m->cond);
	next = monotonic_ns();
	while (!m->stopping && !m->start_err) {
		pthread_mutex_unlock(&m->mtx);
		publish(m);
		next += m->interval_ns;
		ts = ns_to_timespec(next);
		pthread_mutex_lock(&m->mtx);
		while (!m->stopping && monotonic_ns() < next)
			pthread_cond_timedwait(&m->cond, &m->mtx, &ts);
	}
	pthread_mutex_unlock(&m->mtx);
	return NULL;
}

static void metrics_free(struct metrics *m)
{
	promhttp_stop(m->http);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->mtx);
	free(m);
}

static int metrics_init(struct metrics *m, const struct rant_cfg *c)
{
	pthread_condattr_t ca;

	m->cfg = c;
	m->path = c->metrics_path;
	m->interval_ns = c->report_interval_ns ? c->report_interval_ns
					       : METRICS_DEFAULT_INTERVAL_NS;
	if (prom_ladder_parse(&m->ladder, prom_buckets(c), m->err, sizeof(m->err)))
		return -EINVAL;
	pthread_mutex_init(&m->mtx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

int metrics_start(struct run *r, struct metrics **out)
{
	return metrics_start_with(r->cfg, render_run, r, out);
}

int metrics_start_with(const struct rant_cfg *c, metrics_render_fn fn, void *ctx,
		       struct metrics **out)
{
	struct metrics *m;
	int ret;

	*out = NULL;
	if (!c->metrics_path && !c->metrics_listen)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m) {
		fprintf(stderr, "rant: no memory for the metrics (--metrics): free some\n");
		return -ENOMEM;
	}
	m->render = fn;
	m->ctx = ctx;
	ret = metrics_init(m, c);
	if (ret) {
		fprintf(stderr, "rant: %s\n", m->err);
		free(m);
		return ret;
	}
	ret = -offloop_spawn(&m->thread, metrics_main, m, NULL);
	if (ret) {
		fprintf(stderr, "rant: cannot start the metrics thread: %s: drop --metrics and --metrics-listen, or free some memory\n",
			strerror(-ret));
		metrics_free(m);
		return ret;
	}
	pthread_mutex_lock(&m->mtx);
	while (!m->ready)
		pthread_cond_wait(&m->cond, &m->mtx);
	ret = m->start_err;
	pthread_mutex_unlock(&m->mtx);
	if (ret) {
		fprintf(stderr, "rant: %s\n", m->err);
		pthread_join(m->thread, NULL);
		metrics_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

static void stop_thread(struct metrics *m)
{
	pthread_mutex_lock(&m->mtx);
	m->stopping = true;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->mtx);
	pthread_join(m->thread, NULL);
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	stop_thread(m);
	metrics_free(m);
}

void metrics_finish(struct metrics *m)
{
	if (!m)
		return;
	stop_thread(m);
	publish(m);
	metrics_free(m);
}
