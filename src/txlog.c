// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Transaction log: in-memory records, written as text at the end of the
 * run. Formatting is hand-rolled (no printf per field): writing 10 million
 * records must take about a second, not a minute.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"
#include "txlog.h"

struct txlog {
	struct txrec *rec;
	size_t cap;
	size_t head;		/* next slot */
	size_t len;		/* records held */
	uint64_t overwritten;
	bool ring;
	bool huge;
};

struct txlog *txlog_create(size_t cap, bool ring, bool hugepages)
{
	struct txlog *l;

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cap = cap;
	l->ring = ring;
	l->huge = hugepages;
	l->rec = mem_alloc(cap * sizeof(*l->rec), hugepages);
	if (!l->rec) {
		free(l);
		return NULL;
	}
	return l;
}

void txlog_destroy(struct txlog *l)
{
	if (!l)
		return;
	mem_free(l->rec, l->cap * sizeof(*l->rec), l->huge);
	free(l);
}

struct txrec *txlog_next(struct txlog *l)
{
	struct txrec *r;

	if (l->len == l->cap) {
		if (!l->ring)
			return NULL;
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
	return l->len;
}

uint64_t txlog_overwritten(const struct txlog *l)
{
	return l->overwritten;
}

const struct txrec *txlog_get(const struct txlog *l, size_t i)
{
	size_t first = (l->head + l->cap - l->len) % l->cap;

	return &l->rec[(first + i) % l->cap];
}

/* ---- formatting ---- */

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		t -= 2;
		memcpy(t, &digits2[(v % 100) * 2], 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, &digits2[v * 2], 2);
	} else {
		*--t = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Exactly nine digits, zero-padded. */
static char *put_ns9(char *p, uint32_t ns)
{
	p[8] = (char)('0' + ns % 10);
	ns /= 10;
	for (int i = 6; i >= 0; i -= 2) {
		memcpy(p + i, &digits2[(ns % 100) * 2], 2);
		ns /= 100;
	}
	return p + 9;
}

/*
 * The stamps of one record nearly always share their seconds: their text
 * is converted once and copied after that.
 */
struct sec_cache {
	uint64_t sec;
	char txt[24];		/* "seconds." */
	size_t len;		/* 0: empty */
};

/* " seconds.nanoseconds", or " -" for an absent stamp. */
static char *put_stamp(char *p, int64_t t, struct sec_cache *sc)
{
	uint64_t sec, u = (uint64_t)t;

	*p++ = ' ';
	if (t == TS_NONE) {
		*p++ = '-';
		return p;
	}
	if (t < 0) {
		*p++ = '-';
		u = (uint64_t)0 - u;	/* in uint64: INT64_MIN too */
	}
	sec = u / 1000000000u;
	if (!sc->len || sc->sec != sec) {
		char *e = put_u64(sc->txt, sec);

		*e++ = '.';
		sc->len = (size_t)(e - sc->txt);
		sc->sec = sec;
	}
	memcpy(p, sc->txt, sc->len);
	return put_ns9(p + sc->len, (uint32_t)(u % 1000000000u));
}

/* " a-b" in ns, or " -" when either is absent. */
static char *put_diff(char *p, int64_t a, int64_t b)
{
	*p++ = ' ';
	if (a == TS_NONE || b == TS_NONE) {
		*p++ = '-';
		return p;
	}
	return put_i64(p, ns_sub(a, b));
}

static char *put_name(char *p, const char *name, const char *suffix)
{
	size_t n = strlen(name);

	*p++ = ' ';
	memcpy(p, name, n);
	p += n;
	if (suffix) {
		n = strlen(suffix);
		memcpy(p, suffix, n);
		p += n;
	}
	return p;
}

/* The reflector's columns: "T2_w [T2_SW T3_SW] T3_w RESPONSE". */
static char *put_reflect_names(char *p, bool sw, const char *w)
{
	p = put_name(p, "T2", w);
	if (sw) {
		p = put_name(p, "T2_SW", NULL);
		p = put_name(p, "T3_SW", NULL);
	}
	p = put_name(p, "T3", w);
	return put_name(p, "RESPONSE", NULL);
}

size_t txlog_format_header(char *buf, size_t len, const struct txlog_fmt *f)
{
	const char *w = f->hw ? "_HW" : "_KN";
	char line[TXLOG_LINE_MAX], *p = line;
	size_t n;

	memcpy(p, "SEQ", 3);
	p += 3;
	if (f->emit) {
		if (f->sw)
			p = put_name(p, "T1_SW", NULL);
		p = put_name(p, "T1", w);
		p = put_name(p, "T4", w);
		if (f->sw)
			p = put_name(p, "T4_SW", NULL);
		p = put_name(p, "RTT", NULL);
		if (f->peer)
			p = put_reflect_names(p, f->sw, f->peer_hw ? "_HW" : "_KN");
		if (f->ack) {
			p = put_name(p, "T_ACK_KN", NULL);	/* a kernel stamp, always */
			p = put_name(p, "EMIT_ACK", NULL);
		}
		if (f->lost)
			p = put_name(p, "LOST", NULL);
	} else {
		p = put_reflect_names(p, f->sw, w);
	}
	n = (size_t)(p - line);
	if (2 * n + 2 >= len)
		return 0;
	memcpy(buf, line, n);
	buf[n] = '\n';
	memset(buf + n + 1, '-', n);
	buf[2 * n + 1] = '\n';
	return 2 * n + 2;
}

static char *put_reflect(char *p, const struct txrec *r, bool sw,
			 struct sec_cache *sc)
{
	p = put_stamp(p, r->t2_wire, sc);
	if (sw) {
		p = put_stamp(p, r->t2_sw, sc);
		p = put_stamp(p, txrec_stamp(r, P_T3_SW), sc);
	}
	p = put_stamp(p, r->t3_wire, sc);
	return put_diff(p, r->t3_wire, r->t2_wire);
}

size_t txlog_format_line(char *buf, const struct txrec *r,
			 const struct txlog_fmt *f)
{
	struct sec_cache sc = { .len = 0 };
	char *p = put_u64(buf, r->seq);

	if (f->emit) {
		if (f->sw)
			p = put_stamp(p, r->t1_sw, &sc);
		p = put_stamp(p, r->t1_wire, &sc);
		p = put_stamp(p, txrec_stamp(r, P_T4_WIRE), &sc);
		if (f->sw)
			p = put_stamp(p, txrec_stamp(r, P_T4_SW), &sc);
		p = put_diff(p, txrec_stamp(r, P_T4_WIRE), r->t1_wire);
		if (f->peer)
			p = put_reflect(p, r, f->sw, &sc);
		if (f->ack) {
			p = put_stamp(p, txrec_stamp(r, P_T_ACK), &sc);
			p = put_diff(p, txrec_stamp(r, P_T_ACK), r->t1_wire);
		}
		if (f->lost)
			p = put_name(p, txrec_lost(r) ? "LOST" : "-", NULL);
	} else {
		p = put_reflect(p, r, f->sw, &sc);
	}
	*p++ = '\n';
	return (size_t)(p - buf);
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
	/* Helpers that fail to start are simply not there: the chunks are
	 * claimed by whoever runs. */
	while (started + 1 < nw &&
	       !pthread_create(&tid[started], NULL, writer_run, &j))
		started++;
	writer_run(&j);
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return j.err;
}
