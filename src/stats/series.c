// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Interval reports (see series.h for the rules): the packet loop's side,
 * a ring of interval slots it fills, and the reporter's side, which
 * closes, reads and prints them.
 *
 * A slot's state is 2 * k while it serves interval k and is open, and
 * 2 * k + 1 once the reporter has closed it. Slot k % nslots starts as
 * 2 * k for k < nslots; after closing and reading k, the reporter clears
 * it and sets 2 * (k + nslots). The loop never changes a state.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "mem.h"
#include "offloop.h"
#include "series.h"
#include "timeutil.h"

#define SLOTS_SPARE 8			/* intervals the reporter may lag */
#define K_MISSED (-1)			/* seq map: the send fell in no open interval */
#define START_POLL_NS (10 * NS_PER_MS)	/* the reporter, until measuring starts */

struct slot {
	alignas(64) _Atomic int64_t state;	/* see the top of this file */
	_Atomic uint32_t gen;			/* odd while the loop updates */
	uint64_t sent, received, lost, late, samples;
	int64_t min, max;			/* ns, of samples */
	uint32_t counts[HIST_SMALL_COUNTS];	/* hist_small_index */
};

struct seq_entry {
	uint64_t seq;
	int64_t k;			/* the interval it was sent in, K_MISSED: its
					 * send was left out, so is what follows it */
};

struct series {
	/* fixed at creation */
	int64_t interval_ns, settle_ns;
	size_t nslots;
	struct slot *slots;
	struct seq_entry *map;		/* by seq & seq_mask */
	uint64_t seq_mask;		/* entries - 1, a power of two */
	bool huge;
	const char *metric;
	int64_t t0;			/* written by series_begin, before begun */

	/* shared */
	_Atomic bool begun;
	_Atomic int64_t real_off;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */

	/* the loop's own */
	alignas(64) int64_t cur_k;	/* the interval of the latest event */
	int64_t cur_lo, cur_hi;		/* its bounds, CLOCK_MONOTONIC ns */
	uint64_t missed;

	/* the reporter's own */
	alignas(64) int64_t next_close;	/* the next interval to close */
	struct series_row *rows;
	size_t nrows, cap;
	uint64_t rows_dropped;
	FILE *out;
	bool header_done;

	/* the thread */
	pthread_t thread;
	bool running;
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	bool finishing;			/* under mtx */
	int64_t end_mono;		/* under mtx */
	char cpus[128];
};

static size_t slots_len(size_t n)
{
	return n * sizeof(struct slot);
}

static void slot_clear(struct slot *sl)
{
	sl->sent = sl->received = sl->lost = sl->late = sl->samples = 0;
	sl->min = sl->max = 0;
	memset(sl->counts, 0, sizeof(sl->counts));
}

static size_t map_len(const struct series *s)
{
	return (size_t)(s->seq_mask + 1) * sizeof(*s->map);
}

struct series *series_create(int64_t interval_ns, int64_t settle_ns,
			     uint64_t in_flight, const char *metric, bool hugepages)
{
	uint64_t nseq = SERIES_SEQ_MIN;
	struct series *s;

	if (interval_ns <= 0 || settle_ns < 0) {
		errno = EINVAL;
		return NULL;
	}
	s = aligned_alloc(alignof(struct series), sizeof(*s));
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->interval_ns = interval_ns;
	s->settle_ns = settle_ns;
	s->metric = metric;
	s->huge = hugepages;
	s->nslots = (size_t)((settle_ns + interval_ns - 1) / interval_ns) + SLOTS_SPARE;
	while (nseq < 2 * in_flight && nseq < ((uint64_t)1 << 30))
		nseq *= 2;
	s->seq_mask = nseq - 1;
	s->slots = mem_alloc(slots_len(s->nslots), hugepages);
	s->map = mem_alloc(map_len(s), hugepages);
	if (!s->slots || !s->map) {
		int err = errno;

		series_destroy(s);
		errno = err;
		return NULL;
	}
	for (size_t i = 0; i < s->nslots; i++)
		atomic_init(&s->slots[i].state, 2 * (int64_t)i);
	for (uint64_t i = 0; i <= s->seq_mask; i++)
		s->map[i].seq = UINT64_MAX;
	pthread_mutex_init(&s->mtx, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	snprintf(s->cpus, sizeof(s->cpus), "not started");
	return s;
}

static void reporter_stop(struct series *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->mtx);
	if (!s->finishing) {
		s->finishing = true;
		s->end_mono = monotonic_ns();
	}
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->mtx);
	pthread_join(s->thread, NULL);
	s->running = false;
}

void series_destroy(struct series *s)
{
	if (!s)
		return;
	reporter_stop(s);
	mem_free(s->slots, slots_len(s->nslots), s->huge);
	if (s->map)
		mem_free(s->map, map_len(s), s->huge);
	free(s->rows);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->mtx);
	free(s);
}

/* ---------------------------------------------------------------- the loop */

void series_begin(struct series *s, int64_t t0_mono, int64_t t0_real)
{
	atomic_store_explicit(&s->real_off, t0_real - t0_mono, memory_order_relaxed);
	s->t0 = t0_mono;
	s->cur_k = 0;
	s->cur_lo = t0_mono;
	s->cur_hi = t0_mono + s->interval_ns;
	atomic_store_explicit(&s->begun, true, memory_order_release);
}

/* The interval of t, the loop's clock; remembered as the current one. */
static int64_t interval_at(struct series *s, int64_t t)
{
	int64_t k;

	if (t >= s->cur_lo && t < s->cur_hi)
		return s->cur_k;
	k = t > s->t0 ? (t - s->t0) / s->interval_ns : 0;
	s->cur_k = k;
	s->cur_lo = s->t0 + k * s->interval_ns;
	s->cur_hi = s->cur_lo + s->interval_ns;
	return k;
}

static struct slot *slot_of(struct series *s, int64_t k)
{
	return &s->slots[(size_t)k % s->nslots];
}

/*
 * Make sl's count odd and check that it still serves open interval k:
 * true (the slot may be written until slot_leave), or false with the
 * count even again. The fetch_add and the load are sequentially
 * consistent, against the reporter's close (a store, then a load of the
 * count): one of the two sees the other.
 */
static bool slot_enter(struct slot *sl, int64_t k, uint32_t *gen)
{
	uint32_t g = atomic_fetch_add_explicit(&sl->gen, 1, memory_order_seq_cst);

	if (atomic_load_explicit(&sl->state, memory_order_seq_cst) == 2 * k) {
		*gen = g + 2;
		return true;
	}
	atomic_store_explicit(&sl->gen, g + 2, memory_order_release);
	return false;
}

static void slot_leave(struct slot *sl, uint32_t gen)
{
	atomic_store_explicit(&sl->gen, gen, memory_order_release);
}

/*
 * The slot of interval k, entered, while k is open; NULL (the event
 * missed) once k was reported, or while its slot still serves an
 * interval the reporter has not read. An event is never counted in
 * another interval than its own: a row holds the fate of its pings.
 */
static struct slot *slot_get(struct series *s, int64_t k, uint32_t *gen)
{
	struct slot *sl;

	if (k < 0)
		return NULL;
	sl = slot_of(s, k);
	if (atomic_load_explicit(&sl->state, memory_order_acquire) == 2 * k &&
	    slot_enter(sl, k, gen))
		return sl;
	return NULL;
}

static void slot_sample(struct slot *sl, int64_t v)
{
	if (v == SERIES_NO_VALUE)
		return;
	if (!sl->samples || v < sl->min)
		sl->min = v;
	if (!sl->samples || v > sl->max)
		sl->max = v;
	sl->samples++;
	sl->counts[hist_small_index(v)]++;
}

/* Which counter an event adds to. */
enum event { EV_SENT, EV_RECEIVED, EV_LOST, EV_LATE, EV_ANSWERED, EV_ANSWERED_SENT };

static bool count(struct series *s, int64_t k, enum event ev, int64_t v)
{
	uint32_t gen;
	struct slot *sl = slot_get(s, k, &gen);

	if (!sl) {
		s->missed++;
		return false;
	}
	switch (ev) {
	case EV_SENT:
		sl->sent++;
		break;
	case EV_RECEIVED:
		sl->received++;
		slot_sample(sl, v);
		break;
	case EV_LOST:
		sl->lost++;
		break;
	case EV_LATE:
		sl->late++;
		break;
	case EV_ANSWERED_SENT:
		sl->sent++;
		/* fall through */
	case EV_ANSWERED:
		sl->received++;
		slot_sample(sl, v);
		break;
	}
	slot_leave(sl, gen);
	return true;
}

/* The interval seq was sent in; K_MISSED when it is forgotten (sent
 * more than the map holds before) or its send was left out. */
static int64_t interval_of_seq(const struct series *s, uint64_t seq)
{
	const struct seq_entry *e = &s->map[seq & s->seq_mask];

	return e->seq == seq ? e->k : K_MISSED;
}

void series_sent(struct series *s, uint64_t seq, int64_t t_real)
{
	int64_t off = atomic_load_explicit(&s->real_off, memory_order_relaxed);
	int64_t k = interval_at(s, t_real - off);
	struct seq_entry *e = &s->map[seq & s->seq_mask];

	e->seq = seq;
	e->k = count(s, k, EV_SENT, 0) ? k : K_MISSED;
}

void series_received(struct series *s, uint64_t seq, int64_t v)
{
	count(s, interval_of_seq(s, seq), EV_RECEIVED, v);
}

void series_lost(struct series *s, uint64_t seq)
{
	count(s, interval_of_seq(s, seq), EV_LOST, 0);
}

void series_late(struct series *s, int64_t t_real)
{
	int64_t off = atomic_load_explicit(&s->real_off, memory_order_relaxed);

	count(s, interval_at(s, t_real - off), EV_LATE, 0);
}

void series_answered(struct series *s, int64_t t_mono, bool sent, int64_t v)
{
	count(s, interval_at(s, t_mono), sent ? EV_ANSWERED_SENT : EV_ANSWERED, v);
}

/* ---------------------------------------------------------------- the reporter */

/* The row of a closed slot (the reporter owns it). */
static void slot_row(const struct series *s, const struct slot *sl, int64_t k,
		     int64_t duration, struct series_row *r)
{
	r->t_ns = k * s->interval_ns;
	r->duration_ns = duration;
	r->sent = sl->sent;
	r->received = sl->received;
	r->lost = sl->lost;
	r->in_flight = sl->sent > sl->received + sl->lost ? sl->sent - sl->received - sl->lost : 0;
	r->late = sl->late;
	r->samples = sl->samples;
	r->min = sl->min;
	r->max = sl->max;
	r->p50 = hist_small_percentile(sl->counts, sl->samples, 50, sl->min, sl->max);
	r->p99 = hist_small_percentile(sl->counts, sl->samples, 99, sl->min, sl->max);
}

static void keep_row(struct series *s, const struct series_row *r)
{
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct series_row *rows = cap <= SERIES_ROWS_MAX ?
			realloc(s->rows, cap * sizeof(*rows)) : NULL;

		if (!rows) {
			s->rows_dropped++;
			return;
		}
		s->rows = rows;
		s->cap = cap;
	}
	s->rows[s->nrows++] = *r;
}

static void print_row(struct series *s, const struct series_row *r)
{
	char line[256];

	if (!s->out)
		return;
	if (!s->header_done) {
		series_format_header(s->metric, line, sizeof(line));
		fprintf(s->out, "%s\n", line);
		s->header_done = true;
	}
	series_row_print(&(struct out){ .t = s->out }, r);
	fflush(s->out);
}

/*
 * Close interval k (the next in order) and take its row: the slot is
 * marked closed, the loop's update in progress (if any) waited out,
 * read, cleared and handed to interval k + nslots. With sliver, an empty
 * row is not kept.
 */
static void close_one(struct series *s, int64_t k, int64_t duration, bool sliver)
{
	struct slot *sl = slot_of(s, k);
	struct series_row r;
	unsigned int spins = 0;

	atomic_store_explicit(&sl->state, 2 * k + 1, memory_order_seq_cst);
	while (atomic_load_explicit(&sl->gen, memory_order_seq_cst) & 1)
		if (++spins > 100)
			sched_yield();	/* the loop was preempted mid-update */
	slot_row(s, sl, k, duration, &r);
	slot_clear(sl);
	atomic_store_explicit(&sl->state, 2 * (k + (int64_t)s->nslots), memory_order_release);
	s->next_close = k + 1;
	if (sliver && !r.sent && !r.received && !r.lost && !r.late)
		return;
	keep_row(s, &r);
	print_row(s, &r);
}

unsigned int series_close_due(struct series *s, int64_t now_mono)
{
	unsigned int n = 0;

	if (!atomic_load_explicit(&s->begun, memory_order_acquire))
		return 0;
	while (s->t0 + (s->next_close + 1) * s->interval_ns + s->settle_ns <= now_mono) {
		close_one(s, s->next_close, s->interval_ns, false);
		n++;
	}
	return n;
}

/* The loop has stopped at end: every interval up to end, the last partial. */
static void close_rest(struct series *s, int64_t end)
{
	int64_t span, k_end, rest;

	if (!atomic_load_explicit(&s->begun, memory_order_acquire))
		return;
	span = end > s->t0 ? end - s->t0 : 0;
	k_end = span / s->interval_ns;
	rest = span % s->interval_ns;
	while (s->next_close < k_end)
		close_one(s, s->next_close, s->interval_ns, false);
	if (rest > 0 && s->next_close == k_end)
		close_one(s, k_end, rest, rest < s->interval_ns / 10);
}

static void *reporter_main(void *arg)
{
	struct series *s = arg;

	pthread_mutex_lock(&s->mtx);
	while (!s->finishing) {
		struct timespec ts;
		int64_t wake;

		pthread_mutex_unlock(&s->mtx);
		atomic_store_explicit(&s->real_off, realtime_ns() - monotonic_ns(),
				      memory_order_relaxed);
		series_close_due(s, monotonic_ns());
		if (atomic_load_explicit(&s->begun, memory_order_acquire))
			wake = s->t0 + (s->next_close + 1) * s->interval_ns + s->settle_ns;
		else
			wake = monotonic_ns() + START_POLL_NS;
		ts = ns_to_timespec(wake);
		pthread_mutex_lock(&s->mtx);
		if (!s->finishing)
			pthread_cond_timedwait(&s->cond, &s->mtx, &ts);
	}
	pthread_mutex_unlock(&s->mtx);
	close_rest(s, s->end_mono);
	return NULL;
}

/* "1-3,5" of the CPUs in set. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
		if (last > c && n < len)
			n += (size_t)snprintf(buf + n, len - n, "-%d", last);
		c = last;
	}
}

int series_start(struct series *s, FILE *out, char *err, size_t errlen)
{
	cpu_set_t got, want;
	char list[64];
	int ret;

	s->out = out;
	ret = offloop_spawn(&s->thread, reporter_main, s, &got);
	if (ret) {
		snprintf(err, errlen, "cannot start the interval reporter thread: %s: lower -I's load (or drop -I)",
			 strerror(ret));
		return -ret;
	}
	s->running = true;
	if (CPU_COUNT(&got)) {
		cpu_list(&got, list, sizeof(list));
		snprintf(s->cpus, sizeof(s->cpus), "CPU%s %s",
			 strchr(list, ',') || strchr(list, '-') ? "s" : "", list);
	} else if (offloop_other_cpus(&want)) {
		cpu_list(&want, list, sizeof(list));
		snprintf(s->cpus, sizeof(s->cpus), "the measuring CPU's set (CPUs %s refused)", list);
	} else {
		snprintf(s->cpus, sizeof(s->cpus), "the measuring CPU (no other CPU here)");
	}
	return 0;
}

const char *series_cpus(const struct series *s)
{
	return s->cpus;
}

void series_finish(struct series *s, int64_t end_mono)
{
	if (!s->running) {
		close_rest(s, end_mono);
		return;
	}
	pthread_mutex_lock(&s->mtx);
	s->finishing = true;
	s->end_mono = end_mono;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->mtx);
	pthread_join(s->thread, NULL);
	s->running = false;
}

size_t series_nrows(const struct series *s)
{
	return s->nrows;
}

const struct series_row *series_row(const struct series *s, size_t i)
{
	return i < s->nrows ? &s->rows[i] : NULL;
}

uint64_t series_missed(const struct series *s)
{
	return s->missed;
}

uint64_t series_rows_dropped(const struct series *s)
{
	return s->rows_dropped;
}

int series_snapshot(const struct series *s, struct series_snap *ss)
{
	*ss = (struct series_snap){
		.missed = series_missed(s),
		.rows_dropped = series_rows_dropped(s),
	};
	if (!s->nrows)
		return 0;
	ss->rows = malloc(s->nrows * sizeof(*ss->rows));
	if (!ss->rows)
		return -ENOMEM;
	memcpy(ss->rows, s->rows, s->nrows * sizeof(*ss->rows));
	ss->n = s->nrows;
	return 0;
}

void series_snap_free(struct series_snap *ss)
{
	free(ss->rows);
	ss->rows = NULL;
	ss->n = 0;
}
