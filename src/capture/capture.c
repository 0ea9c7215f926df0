// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --pcap FILE (see capture.h): libpcap on a thread off the measuring CPU,
 * the file written through src/base/outfile.c, the check in capmatch.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "offloop.h"
#include "outfile.h"
#include "pcapopen.h"

/* The first bytes of each packet: every header and rant's fields (the
 * pong body), not the padding. */
#define CAP_SNAPLEN 256
/* The kernel buffer holds this long of the run's packets at its rate. */
#define CAP_BUFFER_MS 250
#define CAP_RING 65536			/* transactions handed over, in flight */
#define CAP_TABLE 65536			/* entries of the check table */
#define CAP_HORIZON_NS (3 * NS_PER_SEC)	/* an entry waits this long (> --timeout) */
/*
 * Packets reach the thread a block at a time, at the latest CAP_BLOCK_MS
 * after the first: not in immediate mode, where the kernel wakes the
 * thread for every packet inside the send and receive paths it measures
 * (on veth, 1.5 us more per packet: doc/usage.md, --pcap).
 */
#define CAP_BLOCK_MS 100
#define CAP_POLL_MS 50
#define CAP_DRAIN_NS (5 * CAP_BLOCK_MS * NS_PER_MS)	/* at the end: wait this long at most */

/* One transaction handed from the loop to the thread. */
struct expect {
	uint64_t seq;
	uint32_t session;
	uint32_t skip;			/* left out: not counted */
	int64_t ping_ns, pong_ns;
};

struct capture {
	struct capture_params p;
	struct capture_result res;
	struct outfile out;
	bool have_out;
	pcap_t *pc;
	pcap_t *dead;			/* the dumper's description */
	pcap_dumper_t *dumper;
	int write_err;			/* the first failed write's errno (the thread's) */
	int dlt;
	int tstamp_type;
	char filter[160];
	struct capmatch *match;		/* NULL over TCP */
	/* the hand-over ring: the loop produces, the thread consumes */
	struct expect *ring;
	_Alignas(64) _Atomic size_t head;	/* written by the loop */
	uint64_t ring_full;			/* the loop's count */
	_Alignas(64) _Atomic size_t tail;	/* written by the thread */
	/* the thread */
	pthread_t tid;
	bool started;
	_Atomic int ready;
	_Atomic int stop;
	cpu_set_t cpus;			/* where it runs */
	bool off_loop;			/* cpus are not the loop's */
	int loop_cpu;			/* where the loop ran at start */
};

/* ---- the hot path ---- */

static void ring_put(struct capture *c, const struct expect *x)
{
	size_t h = atomic_load_explicit(&c->head, memory_order_relaxed);
	size_t t = atomic_load_explicit(&c->tail, memory_order_acquire);

	if (h - t >= CAP_RING) {
		c->ring_full++;
		return;
	}
	c->ring[h & (CAP_RING - 1)] = *x;
	atomic_store_explicit(&c->head, h + 1, memory_order_release);
}

void capture_expect(struct capture *c, uint32_t session, const struct txrec *rec)
{
	/* the seq as packets carry it (as wide as the format's) */
	struct expect x = { .seq = rec->seq & c->p.fmt->f->caps.seq_mask, .session = session };

	if (!c->match)
		return;
	if (c->p.emit) {
		x.ping_ns = rec->t1_wire;
		x.pong_ns = txrec_stamp(rec, P_T4_WIRE);
	} else {
		x.ping_ns = rec->t2_wire;
		x.pong_ns = txrec_stamp(rec, P_T3_WIRE);
	}
	ring_put(c, &x);
}

void capture_skip(struct capture *c, uint32_t session, uint64_t seq)
{
	struct expect x = { .seq = seq & c->p.fmt->f->caps.seq_mask, .session = session,
			    .skip = 1 };

	if (c->match)
		ring_put(c, &x);
}

/* ---- the thread ---- */

static void ring_drain(struct capture *c)
{
	size_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
	size_t h = atomic_load_explicit(&c->head, memory_order_acquire);
	int64_t now = monotonic_ns();

	for (; t != h; t++) {
		const struct expect *x = &c->ring[t & (CAP_RING - 1)];

		if (x->skip)
			capmatch_skip(c->match, x->session, x->seq, now);
		else
			capmatch_stamps(c->match, x->session, x->seq, x->ping_ns, x->pong_ns, now);
	}
	atomic_store_explicit(&c->tail, t, memory_order_release);
}

/* A captured packet of the run's measured traffic goes to the check. */
static void check_packet(struct capture *c, const struct pcap_pkthdr *h,
			 const u_char *bytes)
{
	struct capmatch_pkt pkt;
	int64_t ts;

	if (capmatch_parse(bytes, h->caplen, c->dlt, c->p.fmt, &pkt))
		return;
	/* a reply from the reflector's port that also parses as a request
	 * (STAMP has no type field) is the reply */
	if (pkt.type == MSG_PING && pkt.sport == c->p.port && pkt.dport != c->p.port &&
	    capmatch_parse_as(bytes, h->caplen, c->dlt, c->p.fmt, MSG_PONG, &pkt))
		return;
	if (pkt.flags & MSG_F_WARMUP)
		return;
	if (c->p.emit && pkt.session != c->p.session)
		return;
	/* a ping goes to the reflector's port, a pong comes from it */
	if (pkt.type == MSG_PING ? pkt.dport != c->p.port : pkt.sport != c->p.port)
		return;
	/* nanosecond precision: tv_usec holds nanoseconds */
	ts = (int64_t)h->ts.tv_sec * NS_PER_SEC + h->ts.tv_usec;
	capmatch_packet(c->match, pkt.session, pkt.seq, pkt.type, ts, monotonic_ns());
}

/* After a write of the dumper's: its errno kept when it failed, now (by
 * the end, poll and recv have set others). */
static void write_done(struct capture *c)
{
	if (!c->write_err && ferror_unlocked(c->out.fp))
		c->write_err = errno ? errno : EIO;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;

	c->res.packets++;
	pcap_dump((u_char *)c->dumper, h, bytes);
	write_done(c);
	if (c->match)
		check_packet(c, h, bytes);
}

/* Read what the kernel has queued; the number read, or -1. */
static int capture_read(struct capture *c)
{
	int n = pcap_dispatch(c->pc, -1, on_packet, (u_char *)c);

	if (c->match)
		ring_drain(c);
	return n;
}

/* At the end: read until every packet the kernel queued has been read
 * (the last block is handed over after CAP_BLOCK_MS). */
static void capture_drain(struct capture *c)
{
	int64_t give_up = monotonic_ns() + CAP_DRAIN_NS;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(c->pc), .events = POLLIN };

	while (monotonic_ns() < give_up) {
		if (capture_read(c) > 0)
			continue;
		if (c->res.packets >= pcapopen_queued(c->pc))
			break;
		poll(&pfd, 1, 5);
	}
	capture_read(c);
}

static void *capture_thread(void *arg)
{
	struct capture *c = arg;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(c->pc), .events = POLLIN };
	int64_t next_expire = monotonic_ns() + NS_PER_SEC / 4;

	atomic_store_explicit(&c->ready, 1, memory_order_release);
	while (!atomic_load_explicit(&c->stop, memory_order_acquire)) {
		poll(&pfd, 1, CAP_POLL_MS);
		capture_read(c);
		if (c->out.direct || c->out.tmp == NULL) {
			pcap_dump_flush(c->dumper);	/* a stream: the reader sees packets now */
			write_done(c);
		}
		if (c->match && monotonic_ns() > next_expire) {
			capmatch_expire(c->match, monotonic_ns(), CAP_HORIZON_NS);
			next_expire = monotonic_ns() + NS_PER_SEC / 4;
		}
	}
	capture_drain(c);
	return NULL;
}

/* ---- set-up ---- */

/*
 * On a thread of offloop.h (SCHED_OTHER whatever the loop's policy,
 * signals blocked), on the CPUs the loop does not use: under chrt -f the
 * capture never preempts the loop.
 */
static int start_thread(struct capture *c, char *err, size_t len)
{
	int ret;

	c->loop_cpu = sched_getcpu();
	ret = offloop_spawn(&c->tid, capture_thread, c, &c->cpus);
	c->off_loop = !ret && CPU_COUNT(&c->cpus) > 0;	/* where it was placed */
	if (ret) {
		snprintf(err, len, "--pcap: cannot start the capture thread: %s", strerror(ret));
		return -ret;
	}
	c->started = true;
	for (int i = 0; i < 1000 && !atomic_load_explicit(&c->ready, memory_order_acquire); i++)
		usleep(1000);
	if (!atomic_load_explicit(&c->ready, memory_order_acquire)) {
		snprintf(err, len, "--pcap: the capture thread did not start within 1 s: is the machine overloaded?");
		return -ETIMEDOUT;
	}
	return 0;
}

static int open_pcap(struct capture *c, char *err, size_t len)
{
	/* two packets a transaction */
	struct pcapopen_params p = {
		.what = "--pcap", .iface = c->p.iface, .snaplen = CAP_SNAPLEN,
		.buffer_bytes = pcapopen_buffer_bytes(2 * c->p.rate, CAP_SNAPLEN, CAP_BUFFER_MS),
		.block_ms = CAP_BLOCK_MS, .hw = c->p.hw, .filter = c->filter,
	};
	int ret;

	pcapopen_filter(c->filter, sizeof(c->filter), c->p.tp->name, c->p.port, c->p.peer);
	ret = pcapopen(&c->pc, &c->tstamp_type, &p, err, len);
	if (!ret)
		c->dlt = pcap_datalink(c->pc);
	return ret;
}

/*
 * The dumper writes through the outfile's stream (a temporary file
 * renamed at the end, or a stream for "-" and FIFOs); it is that FILE,
 * so outfile_commit() flushes and closes it (pcap_dump_close would too).
 */
static int open_dumper(struct capture *c, char *err, size_t len)
{
	FILE *f = outfile_stream(&c->out);

	c->dead = pcap_open_dead_with_tstamp_precision(c->dlt, CAP_SNAPLEN,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!f || !c->dead) {
		snprintf(err, len, "--pcap: %s: out of memory", c->p.path);
		return -ENOMEM;
	}
	c->dumper = pcap_dump_fopen(c->dead, f);
	if (!c->dumper) {
		snprintf(err, len, "--pcap: cannot write %s: %s", c->p.path, pcap_geterr(c->dead));
		return -EIO;
	}
	return 0;
}

/* The ring and the table, touched now (and locked by mlockall). */
static int alloc_check(struct capture *c, char *err, size_t len)
{
	if (c->p.tp->caps.stream)
		return 0;
	c->ring = calloc(CAP_RING, sizeof(*c->ring));
	c->match = capmatch_create(CAP_TABLE, c->p.emit ? MSG_PING : MSG_PONG);
	if (!c->ring || !c->match) {
		snprintf(err, len, "--pcap: cannot allocate the check's memory: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(c->ring, 0, CAP_RING * sizeof(*c->ring));
	return 0;
}

int capture_start(struct capture **cp, const struct capture_params *p,
		  char *err, size_t len)
{
	struct capture *c = calloc(1, sizeof(*c));
	char msg[512];
	int ret;

	*cp = c;
	if (!c)
		return -ENOMEM;
	c->p = *p;
	c->res.file = p->path;
	c->res.filter = c->filter;
	c->res.checked = !p->tp->caps.stream;
	ret = outfile_open(&c->out, p->path, p->follow_links ? OUTFILE_FOLLOW : 0, msg,
			   sizeof(msg));
	if (ret) {
		snprintf(err, len, "--pcap: %s", msg);
		return ret;
	}
	c->have_out = true;
	ret = alloc_check(c, err, len);
	if (!ret)
		ret = open_pcap(c, err, len);
	if (!ret)
		ret = open_dumper(c, err, len);
	if (!ret)
		ret = start_thread(c, err, len);
	c->res.tstamp_type = pcap_tstamp_type_val_to_name(c->tstamp_type);
	return ret;
}

/* ---- reports ---- */

static void print_cpus(const struct capture *c, FILE *f)
{
	const char *sep = "";

	if (!c->off_loop) {
		fprintf(f, "capture: thread on the measuring loop's CPUs (no other CPU, or a cpuset refused the others)\n");
		return;
	}
	fprintf(f, "capture: thread on CPU ");
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &c->cpus)) {
			fprintf(f, "%s%d", sep, i);
			sep = ",";
		}
	fprintf(f, ", off the measuring CPU %d\n", c->loop_cpu);
}

void capture_describe(const struct capture *c, FILE *f)
{
	fprintf(f, "capture: %s on %s, %s stamps (%s), filter '%s'%s\n",
		strcmp(c->p.path, "-") ? c->p.path : "stdout", c->p.iface, c->res.tstamp_type,
		c->tstamp_type == PCAP_TSTAMP_HOST ? "the kernel's, as the packet reaches the capture" :
		"the NIC's", c->filter, c->match ? "" : ": stamps not checked over TCP");
	if (c->p.verbose)
		print_cpus(c, f);
}

/* One direction of the check: "tx (T1): ..." and "tx": {...}. */
static void print_check_dir(struct out *o, const char *key, const char *point,
			    const struct capmatch_dir *d)
{
	out_obj(o, key);
	out_text(o, "  %s (%s):", key, point);
	out_u64(o, "matched", " %" PRIu64 " matched", d->matched);
	out_u64(o, "exact", ", %" PRIu64 " exact", d->exact);
	if (d->matched) {
		out_i64(o, "min_diff_ns", ", rant - capture min %" PRId64, d->min_diff_ns);
		out_dbl(o, "avg_diff_ns", " avg %.1f", d->sum_diff_ns / (double)d->matched);
		out_i64(o, "max_diff_ns", " max %" PRId64 " ns", d->max_diff_ns);
	}
	out_u64(o, "only_in_log", "; only in rant %" PRIu64, d->only_in_log);
	out_u64(o, "only_in_capture", ", only in the capture %" PRIu64 "\n", d->only_in_capture);
	out_obj_end(o);
}

static int64_t abs_max(const struct capmatch_dir *d)
{
	if (!d->matched)
		return 0;
	return -d->min_diff_ns > d->max_diff_ns ? -d->min_diff_ns : d->max_diff_ns;
}

/* The check's totals, then each direction. */
static void print_check(struct out *o, const struct capture_result *cr, bool emit)
{
	const struct capmatch_dir *tx = &cr->st.tx, *rx = &cr->st.rx;
	int64_t dmax = abs_max(tx) > abs_max(rx) ? abs_max(tx) : abs_max(rx);

	out_u64(o, "matched", "check: %" PRIu64 " packets matched", tx->matched + rx->matched);
	out_u64(o, "exact", ", %" PRIu64 " exact to the ns", tx->exact + rx->exact);
	out_i64(o, "max_diff_ns", ", largest difference %" PRId64 " ns", dmax);
	out_u64(o, "only_in_log", ", only in rant %" PRIu64, tx->only_in_log + rx->only_in_log);
	out_u64(o, "only_in_capture", ", only in the capture %" PRIu64 "\n",
		tx->only_in_capture + rx->only_in_capture);
	out_u64(o, "duplicates", NULL, cr->st.duplicates);
	out_u64(o, "unchecked", cr->unchecked ?
		"  %" PRIu64 " transactions not checked (hand-over ring full)\n" : NULL,
		cr->unchecked);
	out_u64(o, "settled_early", cr->st.evicted ?
		"  %" PRIu64 " settled early (check table full)\n" : NULL, cr->st.evicted);
	print_check_dir(o, "tx", emit ? "T1, ping" : "T3, pong", tx);
	print_check_dir(o, "rx", emit ? "T4, pong" : "T2, ping", rx);
}

void capture_print(struct out *o, const struct capture_result *cr, bool emit)
{
	out_obj(o, "capture");
	out_str(o, "file", "\ncapture: %s", strcmp(cr->file, "-") ? cr->file : "stdout");
	out_u64(o, "packets", ": %" PRIu64 " packets", cr->packets);
	out_str(o, "tstamp_type", ", %s stamps", cr->tstamp_type);
	out_u64(o, "dropped", ", dropped by the kernel %" PRIu64 "\n", cr->dropped);
	out_str(o, "filter", NULL, cr->filter);
	out_bool(o, "checked", NULL, cr->checked);
	if (cr->checked)
		print_check(o, cr, emit);
	else
		out_text(o, "check: not done over TCP (the capture is written)\n");
	out_obj_end(o);
}

/* ---- the end ---- */

static void stop_thread(struct capture *c)
{
	if (!c->started)
		return;
	atomic_store_explicit(&c->stop, 1, memory_order_release);
	pthread_join(c->tid, NULL);
	c->started = false;
}

int capture_stop(struct capture *c)
{
	struct pcap_stat st;
	int ret;

	stop_thread(c);
	if (pcap_stats(c->pc, &st) == 0)
		c->res.dropped = st.ps_drop;
	if (c->match) {
		capmatch_finish(c->match);
		c->res.st = *capmatch_stats(c->match);
	}
	c->res.unchecked = c->ring_full;
	pcap_dump_flush(c->dumper);
	write_done(c);
	ret = outfile_commit(&c->out);
	c->dumper = NULL;	/* closed with the stream */
	if (c->write_err)
		ret = -c->write_err;
	if (ret)
		fprintf(stderr, "rant: writing the capture %s failed: %s (nothing was written)%s\n",
			c->p.path, strerror(-ret), ret == -ENOSPC || ret == -EDQUOT ?
			": its file system is full; free space there, or give --pcap a file elsewhere" : "");
	return ret;
}

const struct capture_result *capture_result(const struct capture *c)
{
	return &c->res;
}

void capture_destroy(struct capture *c)
{
	if (!c)
		return;
	stop_thread(c);
	if (c->have_out)	/* removes an uncommitted file, closing the dumper's stream */
		outfile_abort(&c->out);
	if (c->dead)
		pcap_close(c->dead);
	if (c->pc)
		pcap_close(c->pc);
	capmatch_destroy(c->match);
	free(c->ring);
	free(c);
}
