// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace markers and freezing (see trace.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpucheck.h"
#include "timeutil.h"
#include "trace.h"
#include "tracefs.h"

struct trace {
	char dir[PATH_MAX];
	int marker_fd;
	int on_fd;
	int snapshot_fd;	/* -1 without -S, or without a snapshot file */
	char clock[32];		/* trace_clock at trace_open() */
	bool no_snapshot;	/* -S asked, the kernel has none */
	int breach_cpu;		/* of the marked breach, or -1 */
	bool frozen;
	bool mounted;		/* rant mounted tracefs itself */
	char coverage[PATH_MAX + 400];	/* the one line of trace_check_cpus() */
};

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int open_file(struct trace *t, const char *name, int flags, char *err,
		     size_t len)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = -errno;
	if (fd == -EACCES || fd == -EPERM)
		snprintf(err, len, "%s: %s: run as root", path, strerror(-fd));
	else
		snprintf(err, len, "%s: %s", path, strerror(-fd));
	return fd;
}

/* -S: the snapshot file; a kernel without one is noted, not refused. */
static int open_snapshot(struct trace *t, char *err, size_t len)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/snapshot", t->dir);
	if (access(path, F_OK) && errno == ENOENT) {
		t->no_snapshot = true;
		return 0;
	}
	t->snapshot_fd = open_file(t, "snapshot", O_WRONLY, err, len);
	return t->snapshot_fd < 0 ? t->snapshot_fd : 0;
}

void trace_parse_clock(const char *text, char *clock, size_t len)
{
	const char *b = strchr(text, '['), *e = b ? strchr(b, ']') : NULL;

	if (!b || !e || len == 0) {
		if (len)
			clock[0] = '\0';
		return;
	}
	snprintf(clock, len, "%.*s", (int)(e - b - 1), b + 1);
}

/* The instance's trace_clock; "unknown" where it cannot be read. */
static void read_clock(struct trace *t)
{
	char path[PATH_MAX + 32], text[256];
	ssize_t n;
	int fd;

	snprintf(t->clock, sizeof(t->clock), "unknown");
	snprintf(path, sizeof(path), "%s/trace_clock", t->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	trace_parse_clock(text, t->clock, sizeof(t->clock));
	if (!t->clock[0])
		snprintf(t->clock, sizeof(t->clock), "unknown");
}

int trace_parse_cpumask(const char *text, cpu_set_t *set)
{
	size_t n = strcspn(text, "\n");
	int bit = 0;

	CPU_ZERO(set);
	if (n == 0)
		return -EINVAL;
	for (size_t i = n; i-- > 0;) {
		char c = text[i];
		int v;

		if (c == ',')
			continue;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -EINVAL;
		for (int b = 0; b < 4; b++, bit++)
			if ((v >> b & 1) && bit < CPU_SETSIZE)
				CPU_SET(bit, set);
	}
	return 0;
}

/* set as the hex a tracing_cpumask takes ("3" for CPUs 0 and 1). */
static void mask_hex(const cpu_set_t *set, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	int top = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			top = c;
	for (int d = top / 4; d >= 0 && n + 1 < len; d--) {
		int v = 0;

		for (int b = 0; b < 4; b++)
			v |= CPU_ISSET(d * 4 + b, set) ? 1 << b : 0;
		buf[n++] = hex[v];
	}
	buf[n] = '\0';
}

int trace_cover_line(const cpu_set_t *traced, const cpu_set_t *mine,
		     const char *dir, char *line, size_t len)
{
	char tl[96], ml[96], out[96], want[96];
	cpu_set_t miss, all;

	CPU_AND(&miss, mine, traced);
	CPU_XOR(&miss, &miss, mine);	/* mine and not traced */
	CPU_OR(&all, traced, mine);
	cpucheck_list_str(traced, tl, sizeof(tl));
	cpucheck_list_str(mine, ml, sizeof(ml));
	mask_hex(&all, want, sizeof(want));
	if (CPU_COUNT(&miss) == 0) {
		snprintf(line, len, "ftrace: %s traces CPU %s (tracing_cpumask), covering CPU %s, where rant measures",
			 dir, tl, ml);
		return 0;
	}
	cpucheck_list_str(&miss, out, sizeof(out));
	snprintf(line, len, "ftrace instance %s does not trace CPU %s, where rant may measure (tracing_cpumask: CPU %s): its markers would fail and a breach there could not be judged; trace it (echo %s > %s/tracing_cpumask) or pin rant to a traced CPU (taskset -c)",
		 dir, out, tl[0] ? tl : "none", want, dir);
	return -EXDEV;
}

/*
 * The instance must trace every CPU this thread may run on (its
 * affinity): a CPU outside tracing_cpumask has no events and refuses
 * markers (EBADF). rant refuses rather than widen the mask: the
 * instance may be another side's or config.sh's, whose revert would
 * not know of the change. A kernel without the file is not checked.
 */
static int trace_check_cpus(struct trace *t, char *err, size_t len)
{
	char path[PATH_MAX + 32], text[1024];
	cpu_set_t traced, mine;
	ssize_t n;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/tracing_cpumask", t->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(t->coverage, sizeof(t->coverage),
			 "ftrace: %s has no tracing_cpumask (%s): the CPUs it traces are not checked",
			 t->dir, strerror(errno));
		return 0;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	if (n <= 0 || trace_parse_cpumask(text, &traced)) {
		snprintf(err, len, "%s: cannot read a CPU mask from it: check the instance", path);
		return -EINVAL;
	}
	if (sched_getaffinity(0, sizeof(mine), &mine)) {
		ret = -errno;
		snprintf(err, len, "sched_getaffinity: %s", strerror(-ret));
		return ret;
	}
	ret = trace_cover_line(&traced, &mine, t->dir, t->coverage, sizeof(t->coverage));
	if (ret)
		snprintf(err, len, "%s", t->coverage);
	return ret;
}

const char *trace_coverage(const struct trace *t)
{
	return t->coverage;
}

int trace_open(struct trace **tp, const char *instance, bool snapshot,
	       char *err, size_t len)
{
	char top[PATH_MAX / 2], state[4] = "";
	struct trace *t;
	int ret;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->marker_fd = t->on_fd = t->snapshot_fd = -1;
	t->breach_cpu = -1;

	if (strchr(instance, '/')) {
		snprintf(t->dir, sizeof(t->dir), "%s", instance);
	} else {
		ret = tracefs_root(top, sizeof(top), &t->mounted, err, len);
		if (ret)
			goto failed;
		snprintf(t->dir, sizeof(t->dir), "%s/instances/%s", top, instance);
	}
	if (!is_dir(t->dir)) {
		snprintf(err, len, "ftrace instance %s does not exist: create it with config.sh IFACE ... --trace, or mkdir %s",
			 t->dir, t->dir);
		ret = -ENOENT;
		goto failed;
	}
	ret = t->marker_fd = open_file(t, "trace_marker", O_WRONLY, err, len);
	if (ret < 0)
		goto failed;
	ret = t->on_fd = open_file(t, "tracing_on", O_RDWR, err, len);
	if (ret < 0)
		goto failed;
	if (snapshot) {
		ret = open_snapshot(t, err, len);
		if (ret < 0)
			goto failed;
	}
	ret = trace_check_cpus(t, err, len);
	if (ret)
		goto failed;
	read_clock(t);
	if (pread(t->on_fd, state, sizeof(state) - 1, 0) > 0 && state[0] == '0') {
		snprintf(err, len, "tracing is off in %s (a previous breach froze it?): save %s/trace, then echo 1 > %s/tracing_on",
			 t->dir, t->dir, t->dir);
		ret = -EBADF;
		goto failed;
	}
	*tp = t;
	return 0;
failed:
	trace_close(t);
	return ret;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->marker_fd >= 0)
		close(t->marker_fd);
	if (t->on_fd >= 0)
		close(t->on_fd);
	if (t->snapshot_fd >= 0)
		close(t->snapshot_fd);
	free(t);
}

bool trace_mounted(const struct trace *t)
{
	return t->mounted;
}

const char *trace_dir(const struct trace *t)
{
	return t->dir;
}

const char *trace_clock_name(const struct trace *t)
{
	return t->clock;
}

bool trace_no_snapshot(const struct trace *t)
{
	return t->no_snapshot;
}

/* Appends to buf at *n; false once it no longer fits. */
static bool put(char *buf, size_t len, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool put(char *buf, size_t len, int *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n < 0 || (size_t)*n >= len)
		return false;
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - (size_t)*n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - (size_t)*n) {
		*n = -1;
		return false;
	}
	*n += w;
	return true;
}

static void put_ctx(char *buf, size_t len, int *n, const struct trace_ctx *c)
{
	put(buf, len, n, " side=%s cpu=%d pid=%d trace_clock=%s rt_ns=%" PRId64
	    " mono_ns=%" PRId64, c->side, c->cpu, c->pid, c->clock, c->rt_ns,
	    c->mono_ns);
}

int trace_format_start(char *buf, size_t len, const struct trace_ctx *c,
		       const char *extra)
{
	int n = 0;

	put(buf, len, &n, "RANT_TEST_START");
	put_ctx(buf, len, &n, c);
	if (extra && *extra)
		put(buf, len, &n, " %s", extra);
	return n < 0 ? -ENOSPC : n;
}

int trace_format_breach(char *buf, size_t len, const struct trace_ctx *c,
			const struct trace_breach *b)
{
	static const char *const names[TRACE_NSTAMPS] = {
		"T1_SW", "T1_wire", "T2_wire", "T2_SW",
		"T3_SW", "T3_wire", "T4_wire", "T4_SW",
	};
	int n = 0;

	put(buf, len, &n, "RANT_BREACH seq=%" PRIu64 " latency_ns=%" PRId64
	    " threshold_ns=%" PRId64, b->seq, b->latency_ns, b->threshold_ns);
	if (b->metric)
		put(buf, len, &n, " metric=%s", b->metric);
	put_ctx(buf, len, &n, c);
	for (int i = 0; i < TRACE_NSTAMPS; i++)
		if (b->stamp[i])
			put(buf, len, &n, " %s=%" PRId64, names[i], b->stamp[i]);
	return n < 0 ? -ENOSPC : n;
}

/* The context of a marker written now. */
static void ctx_now(const struct trace *t, const char *side, int cpu,
		    struct trace_ctx *c)
{
	c->side = side;
	c->cpu = cpu;
	c->pid = getpid();
	c->clock = t->clock;
	c->rt_ns = realtime_ns();
	c->mono_ns = monotonic_ns();
}

static int write_str(int fd, const char *s)
{
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);

	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int trace_mark(struct trace *t, const char *line)
{
	char buf[1024];

	if (snprintf(buf, sizeof(buf), "%s\n", line) >= (int)sizeof(buf))
		return -ENOSPC;
	return write_str(t->marker_fd, buf);
}

int trace_start(struct trace *t, const char *side, int cpu, const char *extra)
{
	struct trace_ctx c;
	char line[512];

	ctx_now(t, side, cpu, &c);
	if (trace_format_start(line, sizeof(line), &c, extra) < 0)
		return -ENOSPC;
	return trace_mark(t, line);
}

int trace_breach_cpu(const struct trace *t)
{
	return t->breach_cpu;
}

/* tracing_on reads 0: someone froze the instance. */
static bool already_off(const struct trace *t)
{
	char state[4] = "";

	return pread(t->on_fd, state, sizeof(state) - 1, 0) > 0 && state[0] == '0';
}

int trace_breach(struct trace *t, const struct trace_breach *b)
{
	struct trace_ctx c;
	char line[768];
	int ret;

	t->breach_cpu = b->cpu;
	ctx_now(t, b->side, b->cpu, &c);
	if (trace_format_breach(line, sizeof(line), &c, b) < 0)
		return -ENOSPC;
	ret = trace_mark(t, line);
	if (ret == -EBADF && already_off(t)) {
		t->frozen = true;	/* by the other writer: leave it so */
		return -EALREADY;
	}
	if (ret)
		return ret;
	return trace_freeze(t);
}

int trace_freeze(struct trace *t)
{
	int ret = 0;

	if (t->frozen)
		return 0;
	if (t->snapshot_fd >= 0)
		ret = write_str(t->snapshot_fd, "1");
	if (write_str(t->on_fd, "0") && !ret)
		ret = -errno;
	t->frozen = true;
	return ret;
}
