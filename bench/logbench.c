/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * logbench: how fast rant writes its transaction log at the end of a run.
 *
 * Fills a linear txlog of N records (default 10,000,000) with synthetic
 * stamps shaped like a real emitter run with -s whose pongs carried the
 * reflector's stamps (every column present), then times txlog_write() of
 * the whole log to each FILE given (each removed after), and once more to
 * /dev/null (formatting alone). Prints one line per write, then the size
 * of a record:
 *
 *   write to=FILE records=N bytes=B seconds=S records_per_s=R mb_per_s=M
 *   write to=/dev/null records=N bytes=B seconds=S records_per_s=R ...
 *   record_bytes=64
 *
 * (the /dev/null line's bytes are those of the files: the same text)
 *   record_bytes=64
 *
 * Build (from the top of the tree, after make):
 *   cc -O2 -D_GNU_SOURCE -Isrc -I/usr/include/libnl3 bench/logbench.c \
 *      build/librant.a -lnl-route-3 -lnl-3 -lm
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "timeutil.h"
#include "txlog.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: logbench [-s] [-n RECORDS] [FILE...]\n"
		"  -n RECORDS  records in the log (default 10000000)\n"
		"  -s          every column, as the emitter writes with -s (default: the\n"
		"              emitter's log without -s, the reflector's columns included)\n"
		"  FILE        written, timed and removed (default /dev/shm/rant-logbench.PID);\n"
		"              /dev/null is timed last in any case\n");
}

/* xorshift64: cheap, deterministic jitter for the synthetic stamps. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ns in [base, base + spread) */
static int64_t jitter(uint64_t *s, int64_t base, int64_t spread)
{
	return base + (int64_t)(rnd(s) % (uint64_t)spread);
}

/*
 * A back-to-back run over a kernel-stamped path: ~12 us round trips,
 * a few us in each stack, with a rare spike. Realistic digit counts are
 * what matters to the formatter.
 */
static void fill(struct txlog *l, size_t n)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	int64_t t = realtime_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		struct txrec *r = txlog_next(l);
		int64_t t3_sw, t4_sw, t4_wire;

		if (!r) {
			fprintf(stderr, "logbench: log full at %zu records\n", i);
			exit(1);
		}
		r->seq = i + 1;
		r->t1_sw = t;
		r->t1_wire = t + jitter(&s, 900, 400);
		r->t2_wire = r->t1_wire + jitter(&s, 2500, 800);
		r->t2_sw = r->t2_wire + jitter(&s, 1200, 600);
		t3_sw = r->t2_sw + jitter(&s, 300, 200);
		txrec_set_t3_wire(r, t3_sw + jitter(&s, 900, 400));
		t4_wire = txrec_stamp(r, P_T3_WIRE) + jitter(&s, 2500, 800);
		txrec_set_t4_wire(r, t4_wire);
		t4_sw = t4_wire + jitter(&s, 1200, 600);
		if (rnd(&s) % 10000 == 0)
			t4_sw += jitter(&s, 20000, 200000);	/* a spike */
		txrec_set_t3_sw(r, t3_sw);
		txrec_set_t4_sw(r, t4_sw);
		t = t4_sw + jitter(&s, 100, 100);
	}
}

/*
 * Time one txlog_write() to path and print the figures. The bytes written
 * are read from the file, or taken from *bytes where it has no size
 * (/dev/null); *bytes is set from a regular file. 0 or -1.
 */
static int time_write(const char *path, const struct txlog *l,
		      const struct txlog_fmt *f, long long *bytes)
{
	int64_t t0, t1;
	struct stat st;
	double sec;
	int fd, rc;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "logbench: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	t0 = monotonic_ns();
	rc = txlog_write(l, fd, f);
	t1 = monotonic_ns();
	if (rc < 0) {
		fprintf(stderr, "logbench: txlog_write %s: %s\n", path,
			strerror(-rc));
		close(fd);
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		*bytes = st.st_size;
	close(fd);
	sec = (double)(t1 - t0) / NS_PER_SEC;
	printf("write to=%s records=%zu bytes=%lld seconds=%.3f records_per_s=%.0f mb_per_s=%.1f\n",
	       path, txlog_len(l), *bytes, sec, txlog_len(l) / sec,
	       *bytes / sec / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	/* the emitter's log, the reflector's side carried back; -s: SW too */
	struct txlog_fmt f = { .emit = true, .sw = false, .hw = false,
			       .peer = true, .peer_hw = false };
	char defpath[64];
	char *defargv[] = { defpath, NULL };
	char **files;
	size_t n = 10000000;
	long long bytes = 0;
	struct txlog *l;
	int opt, rc = 1;
	char *end;

	while ((opt = getopt(argc, argv, "hsn:")) != -1) {
		switch (opt) {
		case 's':
			f.sw = true;
			break;
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1000000000) {
				fprintf(stderr, "logbench: -n: %s is out of range 1 to 1000000000\n",
					optarg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	snprintf(defpath, sizeof(defpath), "/dev/shm/rant-logbench.%d",
		 (int)getpid());
	files = optind < argc ? argv + optind : defargv;

	/* A -S log as large as the bench: nothing is overwritten. */
	l = txlog_create(&(struct txlog_opts){ .cap = n, .last = true });
	if (!l) {
		fprintf(stderr, "logbench: txlog_create(%zu): %s\n", n,
			strerror(errno));
		return 1;
	}
	fill(l, n);
	if (txlog_len(l) != n) {
		fprintf(stderr, "logbench: log holds %zu records, not %zu\n",
			txlog_len(l), n);
		goto out;
	}
	rc = 0;
	for (; *files && !rc; files++) {
		struct stat st;

		rc = time_write(*files, l, &f, &bytes);
		/* never a device: logbench /dev/null must not remove it */
		if (stat(*files, &st) == 0 && S_ISREG(st.st_mode))
			unlink(*files);
	}
	if (!rc)
		rc = time_write("/dev/null", l, &f, &bytes);
	printf("record_bytes=%zu columns=%s\n", sizeof(struct txrec),
	       f.sw ? "sw" : "default");
out:
	txlog_destroy(l);
	return rc ? 1 : 0;
}
