// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The transaction log (see txlog.h): the hold-back window in front, then
 * either the streamed ring and its writer thread, or the ring of the
 * last records written at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "holdback.h"
#include "mem.h"
#include "offloop.h"
#include "spsc.h"
#include "txlog.h"

#define STREAM_CHUNK 4096		/* records formatted per write() */
/*
 * The writer's sleep when the ring is empty. Its work lands on another
 * side's CPU on a small machine (2 CPUs, both sides spinning): it takes
 * that CPU for as long as it formats what came during its sleep, so the
 * sleep bounds the stall a round trip can meet (about 200 ns a record:
 * 2 ms at 160,000 transactions/s was 60 us and more), for more wake-ups.
 */
#define STREAM_NAP_NS 250000

struct txlog {
	bool last;
	bool huge;
	int fd;
	struct holdback *win;		/* NULL: no window */
	/* last (-S): the ring of the last cap records */
	struct txrec *rec;
	size_t cap;
	size_t head;			/* next slot */
	size_t len;			/* records held */
	uint64_t overwritten;
	/* streamed */
	struct spsc *q;			/* the ring, in mem_alloc'd memory */
	struct txrec *slots;
	char *buf;			/* the writer's text, STREAM_CHUNK lines */
	size_t buf_len;
	struct txlog_fmt fmt;		/* written by the loop before its first record */
	bool fmt_set;
	bool finishing;			/* txlog_finish: wait for room, do not drop */
	bool started;
	pthread_t tid;
	_Atomic uint64_t dropped;	/* loop only writes it */
	atomic_int *reopen_flag;	/* SIGHUP: txlog_set_reopen() */
	int (*reopen)(void *ctx, bool *had_data);
	void *reopen_ctx;
	/* Read by the loop at every transaction, written at most once:
	 * a line of their own, away from the writer's counter. */
	_Alignas(SPSC_CACHE_LINE) _Atomic int err;	/* writer -> loop: -errno */
	_Atomic int closing;		/* loop -> writer: nothing more comes */
	_Alignas(SPSC_CACHE_LINE) _Atomic uint64_t logged; /* the writer only writes it */
};

static void nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = STREAM_NAP_NS };

	nanosleep(&ts, NULL);
}

uint64_t txlog_text_bytes(uint64_t records, const struct txlog_fmt *f)
{
	const int64_t t = 1700000000LL * NS_PER_SEC;	/* a stamp of today's size */
	char head[2 * TXLOG_LINE_MAX], line[TXLOG_LINE_MAX];
	struct txrec r;
	size_t hlen, llen;

	txrec_clear(&r);
	r.seq = records;
	r.t1_sw = t;
	r.t1_wire = t + 1000;
	r.t2_wire = t + 20000;
	r.t2_sw = t + 21000;
	txrec_set_t3_wire(&r, t + 32000);
	txrec_set_t3_sw(&r, t + 31000);
	txrec_set_t4_wire(&r, t + 51000);
	txrec_set_t4_sw(&r, t + 52000);
	if (f->ack)
		txrec_set_ack(&r, t + 30000);
	hlen = txlog_format_header(head, sizeof(head), f);
	llen = txlog_format_line(line, &r, f);
	if (records > (UINT64_MAX - hlen) / llen)
		return UINT64_MAX;
	return hlen + records * llen;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- last (-S): a ring of the last cap records ---- */

struct txrec *txlog_next(struct txlog *l)
{
	struct txrec *r;

	if (!l->last)
		return NULL;
	if (l->len == l->cap) {
		l->len--;
		l->overwritten++;
	}
	r = &l->rec[l->head];
	l->head = l->head + 1 == l->cap ? 0 : l->head + 1;
	l->len++;
	txrec_clear(r);
	return r;
}

size_t txlog_len(const struct txlog *l)
{
	return l->last ? l->len : 0;
}

const struct txrec *txlog_get(const struct txlog *l, size_t i)
{
	size_t first = (l->head + l->cap - l->len) % l->cap;

	return &l->rec[(first + i) % l->cap];
}

/* ---- streamed: the writer thread ---- */

static void count(_Atomic uint64_t *c, uint64_t n)
{
	/* One thread writes each counter: no read-modify-write needed. */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* Format the n records from first into the writer's buffer (the header
 * first, once); returns the bytes. */
static size_t stream_format(struct txlog *l, uint64_t first, size_t n,
			    bool *header)
{
	size_t len = 0;

	if (!*header) {
		len = txlog_format_header(l->buf, 2 * TXLOG_LINE_MAX + 2, &l->fmt);
		*header = true;
	}
	for (size_t i = 0; i < n; i++)
		len += txlog_format_line(l->buf + len, spsc_at(l->q, first + i), &l->fmt);
	return len;
}

/* SIGHUP since the last write: the file opened again by its name; a new
 * (or empty) one gets the header first. */
static void maybe_reopen(struct txlog *l, bool *header)
{
	bool had_data;
	int fd;

	if (!l->reopen_flag ||
	    !atomic_exchange_explicit(l->reopen_flag, 0, memory_order_acq_rel) ||
	    atomic_load_explicit(&l->err, memory_order_relaxed))
		return;
	/* No rows yet: nothing written, not even the header, whose columns
	 * the loop may not have set yet; the file reopened gets it. */
	fd = l->reopen(l->reopen_ctx, &had_data);
	if (fd < 0) {
		atomic_store_explicit(&l->err, fd, memory_order_relaxed);
		return;
	}
	l->fd = fd;
	*header = had_data;	/* a file with rows already has its header */
}

/* The file emptied under the writer (logrotate's copytruncate; the file
 * is appended to): its header is written again. A stream cannot be. */
static void maybe_truncated(struct txlog *l, bool *header)
{
	if (*header && lseek(l->fd, 0, SEEK_END) == 0)
		*header = false;
}

/*
 * Drain the ring until closing is set and the ring is empty. After a
 * failed write the records are still taken off the ring (the loop must
 * not see it full), but no more is written.
 */
static void *stream_writer(void *arg)
{
	struct txlog *l = arg;
	bool header = false;
	int err = 0;

	for (;;) {
		uint64_t first;
		size_t n, len;

		maybe_reopen(l, &header);
		n = spsc_ready(l->q, &first);
		if (n)
			maybe_truncated(l, &header);
		if (!n) {
			if (!atomic_load_explicit(&l->closing, memory_order_acquire)) {
				nap();
				continue;
			}
			/* Closing: what the loop pushed before it is visible now. */
			n = spsc_ready(l->q, &first);
			if (!n)
				break;
		}
		if (n > STREAM_CHUNK)
			n = STREAM_CHUNK;
		err = err ? err : atomic_load_explicit(&l->err, memory_order_relaxed);
		len = err ? 0 : stream_format(l, first, n, &header);
		spsc_release(l->q, n);
		if (!err && (err = write_all(l->fd, l->buf, len)) == 0)
			count(&l->logged, n);
		else if (err)
			atomic_store_explicit(&l->err, err, memory_order_relaxed);
	}
	/* An empty log still has its header. */
	err = err ? err : atomic_load_explicit(&l->err, memory_order_relaxed);
	if (!header && !err) {
		err = write_all(l->fd, l->buf, stream_format(l, 0, 0, &header));
		if (err)
			atomic_store_explicit(&l->err, err, memory_order_relaxed);
	}
	return NULL;
}

/* Start the writer (offloop.h: off the loop's CPU). */
static int stream_start(struct txlog *l)
{
	int ret = offloop_spawn(&l->tid, stream_writer, l, NULL);

	if (ret)
		return -ret;
	l->started = true;
	return 0;
}

static void stream_stop(struct txlog *l)
{
	if (!l->started)
		return;
	atomic_store_explicit(&l->closing, 1, memory_order_release);
	pthread_join(l->tid, NULL);
	l->started = false;
}

/* A record leaves the window (or comes without one). */
static void log_out(void *ctx, const struct txrec *r)
{
	struct txlog *l = ctx;

	if (l->last) {
		*txlog_next(l) = *r;
		return;
	}
	while (!spsc_push(l->q, r)) {
		/* Full: the loop drops; the end waits while the writer runs. */
		if (!l->finishing || !l->started || txlog_failed(l)) {
			count(&l->dropped, 1);
			return;
		}
		nap();
	}
}

/* ---- the log ---- */

static int alloc_stream(struct txlog *l, size_t cap)
{
	size_t n = spsc_capacity(cap);

	l->cap = n;
	l->q = mem_alloc(sizeof(*l->q), false);
	l->slots = mem_alloc(n * sizeof(*l->slots), l->huge);
	l->buf_len = (size_t)STREAM_CHUNK * TXLOG_LINE_MAX + 2 * TXLOG_LINE_MAX + 2;
	l->buf = mem_alloc(l->buf_len, false);
	if (!l->q || !l->slots || !l->buf)
		return -ENOMEM;
	spsc_init(l->q, l->slots, n);
	return 0;
}

struct txlog *txlog_create(const struct txlog_opts *o)
{
	struct txlog *l;
	int ret;

	if (o->cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	l = aligned_alloc(SPSC_CACHE_LINE, sizeof(*l));
	if (!l)
		return NULL;
	memset(l, 0, sizeof(*l));
	l->last = o->last;
	l->huge = o->hugepages;
	l->fd = -1;
	if (l->last) {
		l->cap = o->cap;
		l->rec = mem_alloc(o->cap * sizeof(*l->rec), o->hugepages);
		ret = l->rec ? 0 : -ENOMEM;
	} else {
		ret = alloc_stream(l, o->cap);
	}
	if (!ret && o->window) {
		l->win = holdback_create(o->window, o->hugepages, log_out, l);
		ret = l->win ? 0 : -ENOMEM;
	}
	if (ret) {
		txlog_destroy(l);
		errno = -ret;
		return NULL;
	}
	return l;
}

void txlog_destroy(struct txlog *l)
{
	if (!l)
		return;
	stream_stop(l);
	holdback_destroy(l->win);
	if (l->last) {
		mem_free(l->rec, l->cap * sizeof(*l->rec), l->huge);
	} else {
		mem_free(l->q, sizeof(*l->q), false);
		mem_free(l->slots, l->cap * sizeof(*l->slots), l->huge);
		mem_free(l->buf, l->buf_len, false);
	}
	free(l);
}

void txlog_set_reopen(struct txlog *l, atomic_int *flag,
		      int (*reopen)(void *ctx, bool *had_data), void *ctx)
{
	l->reopen_flag = flag;
	l->reopen = reopen;
	l->reopen_ctx = ctx;
}

int txlog_start(struct txlog *l, int fd)
{
	l->fd = fd;
	return l->last ? 0 : stream_start(l);
}

void txlog_set_format(struct txlog *l, const struct txlog_fmt *f)
{
	/* Published to the writer by the release of the first record. */
	if (!l->fmt_set)
		l->fmt = *f;
	l->fmt_set = true;
}

void txlog_add(struct txlog *l, const struct txrec *r)
{
	if (l->win)
		holdback_add(l->win, r);
	else
		log_out(l, r);
}

bool txlog_patch_t3(struct txlog *l, uint64_t seq, int64_t t3_wire)
{
	struct txrec *r = l->win ? holdback_find(l->win, seq) : NULL;

	if (!r)
		return false;
	txrec_set_t3_wire(r, t3_wire);
	return true;
}

bool txlog_failed(const struct txlog *l)
{
	return atomic_load_explicit(&l->err, memory_order_relaxed) != 0;
}

int txlog_finish(struct txlog *l, const struct txlog_fmt *f)
{
	l->finishing = true;
	if (l->win)
		holdback_flush(l->win);
	if (l->last)
		return txlog_write(l, l->fd, f);
	txlog_set_format(l, f);
	stream_stop(l);
	return atomic_load_explicit(&l->err, memory_order_relaxed);
}

uint64_t txlog_logged(const struct txlog *l)
{
	return l->last ? l->len : atomic_load_explicit(&l->logged, memory_order_relaxed);
}

uint64_t txlog_dropped(const struct txlog *l)
{
	return atomic_load_explicit(&l->dropped, memory_order_relaxed);
}

uint64_t txlog_overwritten(const struct txlog *l)
{
	return l->overwritten;
}

/* ---- last (-S): written whole at the end ---- */

/*
 * Writing: worker threads (one per CPU this process may run on, up to
 * WRITERS_MAX, the caller among them) each claim the next chunk of CHUNK
 * records, format it into their own buffer, and write it when its turn
 * comes, so chunks land in order while formatting runs in parallel and
 * overlaps the writes. This happens after the run, never during it.
 */
#define CHUNK 16384
#define WRITERS_MAX 4

struct writer_job {
	const struct txlog *l;
	const struct txlog_fmt *f;
	int fd;
	size_t nchunks;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	size_t claimed;		/* chunks handed out */
	size_t next;		/* the chunk whose turn it is to be written */
	int err;		/* first error, -errno */
};

static size_t format_chunk(const struct writer_job *j, size_t c, char *buf)
{
	size_t i = c * CHUNK, end = i + CHUNK, used = 0;

	if (end > j->l->len)
		end = j->l->len;
	for (; i < end; i++)
		used += txlog_format_line(buf + used, txlog_get(j->l, i), j->f);
	return used;
}

static void *writer_run(void *arg)
{
	struct writer_job *j = arg;
	char *buf = malloc((size_t)CHUNK * TXLOG_LINE_MAX);
	int err = buf ? 0 : -ENOMEM;

	for (;;) {
		size_t c, len;

		pthread_mutex_lock(&j->lock);
		c = j->claimed < j->nchunks ? j->claimed++ : j->nchunks;
		pthread_mutex_unlock(&j->lock);
		if (c == j->nchunks)
			break;
		len = err ? 0 : format_chunk(j, c, buf);

		pthread_mutex_lock(&j->lock);
		while (j->next != c)
			pthread_cond_wait(&j->turn, &j->lock);
		if (err && !j->err)
			j->err = err;
		pthread_mutex_unlock(&j->lock);
		/* Only this thread writes now: the others wait for their turn. */
		if (!j->err)
			err = write_all(j->fd, buf, len);
		pthread_mutex_lock(&j->lock);
		if (err && !j->err)
			j->err = err;
		j->next++;
		pthread_cond_broadcast(&j->turn);
		pthread_mutex_unlock(&j->lock);
	}
	free(buf);
	return NULL;
}

static size_t writers_wanted(size_t nchunks)
{
	cpu_set_t set;
	size_t n = 1;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = (size_t)CPU_COUNT(&set);
	if (n > WRITERS_MAX)
		n = WRITERS_MAX;
	return n < nchunks ? n : (nchunks ? nchunks : 1);
}

int txlog_write(const struct txlog *l, int fd, const struct txlog_fmt *f)
{
	struct writer_job j = {
		.l = l, .f = f, .fd = fd,
		.nchunks = (l->len + CHUNK - 1) / CHUNK,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.turn = PTHREAD_COND_INITIALIZER,
	};
	pthread_t tid[WRITERS_MAX];
	size_t nw = writers_wanted(j.nchunks), started = 0;
	char head[2 * TXLOG_LINE_MAX + 2];
	int err;

	err = write_all(fd, head, txlog_format_header(head, sizeof(head), f));
	if (err)
		return err;
	/* Helpers (offloop.h) that fail to start are simply not there: the
	 * chunks are claimed by whoever runs. */
	while (started + 1 < nw &&
	       !offloop_spawn(&tid[started], writer_run, &j, NULL))
		started++;
	writer_run(&j);
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return j.err;
}
