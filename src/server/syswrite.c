// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A server's send calls from the syscall tracepoints (see syswrite.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "offloop.h"
#include "procfd.h"
#include "syswrite.h"
#include "timeutil.h"
#include "tracefs.h"

#define SYSW_MAX_CALLS (4u << 20)	/* calls kept at most (~200 MB) */
#define SYSW_BUFFER_KB "16384"		/* per CPU: about 200,000 calls */

static const char *const kind_names[SYSW_KINDS] = {
	[SYSW_WRITE] = "write", [SYSW_WRITEV] = "writev", [SYSW_SENDTO] = "sendto",
	[SYSW_SENDMSG] = "sendmsg", [SYSW_SENDFILE] = "sendfile",
	[SYSW_READ] = "read", [SYSW_READV] = "readv", [SYSW_RECVFROM] = "recvfrom",
	[SYSW_RECVMSG] = "recvmsg",
};

/* The tracepoints' names, by kind. */
static const char *const event_names[SYSW_KINDS] = {
	[SYSW_WRITE] = "write", [SYSW_WRITEV] = "writev", [SYSW_SENDTO] = "sendto",
	[SYSW_SENDMSG] = "sendmsg", [SYSW_SENDFILE] = "sendfile64",
	[SYSW_READ] = "read", [SYSW_READV] = "readv", [SYSW_RECVFROM] = "recvfrom",
	[SYSW_RECVMSG] = "recvmsg",
};

const char *syswrite_kind_name(enum syswrite_kind k)
{
	return k < SYSW_KINDS ? kind_names[k] : "?";
}

struct syswrite {
	char dir[PATH_MAX];
	bool mounted;
	int pipe_fd;
	bool started;
	pthread_t sampler;
	bool sampling;
	atomic_bool quit;		/* the sampler: stop now */
	atomic_bool sampled;		/* the sampler turned the events off */
	int64_t rt_minus_mono_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	int tasks[SYSWRITE_MAX_TASKS], task_pid[SYSWRITE_MAX_TASKS];
	size_t ntasks;
	uint64_t left_out;		/* threads over SYSWRITE_MAX_TASKS */
	struct syswrite_pend pend[SYSWRITE_MAX_TASKS];
	size_t npend;
	struct syswrite_call *calls;
	size_t ncalls, cap;
	uint64_t lost;
};

/* "sys_writev(" or "sys_writev ->": the kind, and where the rest begins. */
static int event_kind(const char *s, const char **rest, bool *exit)
{
	if (strncmp(s, "sys_", 4))
		return -1;
	s += 4;
	for (int k = 0; k < SYSW_KINDS; k++) {
		size_t n = strlen(event_names[k]);

		if (strncmp(s, event_names[k], n))
			continue;
		if (s[n] == '(') {
			*exit = false;
		} else if (!strncmp(s + n, " -> ", 4)) {
			*exit = true;
			n += 4;
		} else {
			continue;
		}
		*rest = s + n;
		return k;
	}
	return -1;
}

/* "comm-1234 [001] ..... 572.833036: " : the thread and the time (ns). */
static const char *line_head(const char *line, int *tid, int64_t *t_ns)
{
	const char *br = strstr(line, " [");
	const char *p = br, *colon, *tail;
	unsigned long long sec, usec;
	char *end;

	if (!br)
		return NULL;
	while (p > line && p[-1] == ' ')
		p--;
	tail = p;
	while (p > line && p[-1] != '-')
		p--;
	if (p == line)
		return NULL;
	*tid = (int)strtol(p, &end, 10);
	if (end != tail || *tid <= 0)
		return NULL;
	colon = strstr(br, ": ");
	if (!colon)
		return NULL;
	p = colon;
	while (p > br && p[-1] != ' ')
		p--;
	if (sscanf(p, "%llu.%llu", &sec, &usec) != 2)
		return NULL;
	*t_ns = (int64_t)sec * NS_PER_SEC + (int64_t)usec * 1000;
	return colon + 2;
}

/* The first argument's value ("fd: 5," or "out_fd: 0x00000005,"). */
static int first_arg(const char *args)
{
	const char *c = strchr(args, ':');

	return c ? (int)strtol(c + 1, NULL, 0) : -1;
}

int syswrite_parse(const char *line, struct syswrite_pend *pend, size_t *npend,
		   struct syswrite_call *call)
{
	const char *ev, *rest;
	int64_t t_ns;
	bool exit;
	int tid, k;

	ev = line_head(line, &tid, &t_ns);
	if (!ev || (k = event_kind(ev, &rest, &exit)) < 0)
		return 0;
	if (!exit) {
		size_t i;

		for (i = 0; i < *npend && pend[i].tid != tid; i++)
			;
		if (i == *npend) {
			if (*npend >= SYSWRITE_MAX_TASKS)
				return 0;
			(*npend)++;
		}
		pend[i] = (struct syswrite_pend){ tid, first_arg(rest + 1), k, t_ns };
		return 0;
	}
	for (size_t i = 0; i < *npend; i++) {
		if (pend[i].tid != tid || pend[i].kind != (enum syswrite_kind)k || !pend[i].t_ns)
			continue;
		*call = (struct syswrite_call){
			.tid = tid, .fd = pend[i].fd, .kind = k, .t_ns = pend[i].t_ns,
			.dur_ns = t_ns - pend[i].t_ns, .ret = (int64_t)strtoll(rest, NULL, 0),
		};
		pend[i].t_ns = 0;
		return 1;
	}
	return 0;
}

static int put_file(const struct syswrite *w, const char *name, const char *text, char *err,
		    size_t len)
{
	char path[PATH_MAX + 64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* "common_pid == 1 || common_pid == 2": the filter of every event. */
static int filter_text(const struct syswrite *w, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->ntasks; i++) {
		n += snprintf(buf + n, len - (size_t)n, "%scommon_pid == %d", i ? " || " : "",
			      w->tasks[i]);
		if ((size_t)n >= len)
			return -E2BIG;
	}
	return 0;
}

/* set_event_pid: the tasks traced. */
static int set_pids(const struct syswrite *w, char *err, size_t len)
{
	char pids[SYSWRITE_MAX_TASKS * 12];
	int n = 0;

	pids[0] = '\0';
	for (size_t i = 0; i < w->ntasks; i++)
		n += snprintf(pids + n, sizeof(pids) - (size_t)n, "%d ", w->tasks[i]);
	return put_file(w, "set_event_pid", pids, err, len);
}

static int events_on(struct syswrite *w, const char *value, char *err, size_t len)
{
	char filter[SYSWRITE_MAX_TASKS * 24], name[96];
	int ret = value[0] == '1' ? filter_text(w, filter, sizeof(filter)) : 0;

	for (int k = 0; !ret && k < SYSW_KINDS; k++) {
		for (int exit = 0; !ret && exit < 2; exit++) {
			const char *ev = exit ? "sys_exit_" : "sys_enter_";

			if (value[0] == '1') {
				snprintf(name, sizeof(name), "events/syscalls/%s%s/filter", ev,
					 event_names[k]);
				ret = put_file(w, name, filter, err, len);
			}
			snprintf(name, sizeof(name), "events/syscalls/%s%s/enable", ev, event_names[k]);
			if (!ret)
				ret = put_file(w, name, value, err, len);
		}
	}
	return ret;
}

static void keep(struct syswrite *w, struct syswrite_call *c)
{
	if (w->ncalls == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		struct syswrite_call *n;

		if (cap > SYSW_MAX_CALLS || !(n = realloc(w->calls, cap * sizeof(*n)))) {
			w->lost++;
			return;
		}
		w->calls = n;
		w->cap = cap;
	}
	for (size_t i = 0; i < w->ntasks; i++)
		if (w->tasks[i] == c->tid)
			c->pid = w->task_pid[i];
	c->t_ns += w->rt_minus_mono_ns;
	w->calls[w->ncalls++] = *c;
}

/* Complete lines of buf[0..n) parsed; what is left of a line moved to the front. */
static size_t consume(struct syswrite *w, char *buf, size_t n)
{
	char *line = buf, *nl;
	struct syswrite_call c;

	while ((nl = memchr(line, '\n', (size_t)(buf + n - line)))) {
		*nl = '\0';
		if (syswrite_parse(line, w->pend, &w->npend, &c) == 1)
			keep(w, &c);
		line = nl + 1;
	}
	n = (size_t)(buf + n - line);
	memmove(buf, line, n);
	return n;
}

/* What the instance's buffer holds, parsed: trace_pipe until it is empty. */
static void drain(struct syswrite *w)
{
	static char buf[1 << 16];
	size_t have = 0;
	ssize_t r;

	while ((r = read(w->pipe_fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have = consume(w, buf, have + (size_t)r);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: none of ours */
	}
}

/* The sum over the CPUs of one per-CPU stats line's value ("entries",
 * "overrun", "dropped events"). */
static uint64_t cpu_stat(const struct syswrite *w, const char *name)
{
	char path[PATH_MAX + 64], line[128];
	size_t n = strlen(name);
	uint64_t sum = 0;
	FILE *f;

	for (int cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", w->dir, cpu);
		f = fopen(path, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, name, n) && line[n] == ':')
				sum += strtoull(line + n + 1, NULL, 10);
		fclose(f);
	}
	return sum;
}

static int events_on(struct syswrite *w, const char *value, char *err, size_t len);

/*
 * The sample: the events are turned off once the buffer holds
 * SYSWRITE_SAMPLE_EVENTS or SYSWRITE_SAMPLE_NS have passed, so that the
 * tracepoints' cost (every syscall of every task takes the traced path
 * while one is on) falls on the start of a run, not on all of it.
 */
static void *sampler(void *arg)
{
	struct syswrite *w = arg;
	int64_t end = monotonic_ns() + SYSWRITE_SAMPLE_NS;
	char err[PATH_MAX + 64];

	while (!atomic_load(&w->quit) && monotonic_ns() < end &&
	       cpu_stat(w, "entries") < SYSWRITE_SAMPLE_EVENTS) {
		struct timespec ts = { 0, 20 * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (!atomic_load(&w->quit)) {
		events_on(w, "0", err, sizeof(err));
		atomic_store(&w->sampled, true);
	}
	return NULL;
}

static int add_tasks(struct syswrite *w, const int *pids, size_t n)
{
	int t[SYSWRITE_MAX_TASKS];

	for (size_t i = 0; i < n; i++) {
		size_t k = procfd_tasks(pids[i], t, SYSWRITE_MAX_TASKS);

		for (size_t j = 0; j < k; j++) {
			if (w->ntasks == SYSWRITE_MAX_TASKS) {
				w->left_out++;
				continue;
			}
			w->task_pid[w->ntasks] = pids[i];
			w->tasks[w->ntasks++] = t[j];
		}
	}
	return w->ntasks ? 0 : -ESRCH;
}

static int make_instance(struct syswrite *w, char *err, size_t len)
{
	char top[PATH_MAX / 2];
	int ret = tracefs_root(top, sizeof(top), &w->mounted, err, len);

	if (ret)
		return ret;
	snprintf(w->dir, sizeof(w->dir), "%s/instances/rant-writes-%d", top, (int)getpid());
	if (mkdir(w->dir, 0700)) {
		ret = -errno;
		snprintf(err, len, "ftrace instance %s: %s%s", w->dir, strerror(errno),
			 errno == EEXIST ? " (another rant of this pid left it: rmdir it)" : "");
		w->dir[0] = '\0';
		return ret;
	}
	return 0;
}

int syswrite_start(struct syswrite **wp, const int *pids, size_t n, char *err, size_t len)
{
	struct syswrite *w = calloc(1, sizeof(*w));
	char path[PATH_MAX + 32];
	int ret;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->pipe_fd = -1;
	ret = add_tasks(w, pids, n);
	if (ret) {
		snprintf(err, len, "the server's processes are gone: nothing to trace");
		goto failed;
	}
	ret = make_instance(w, err, len);
	if (!ret)
		ret = put_file(w, "trace_clock", "mono", err, len);
	if (!ret)
		ret = put_file(w, "buffer_size_kb", SYSW_BUFFER_KB, err, len);
	if (!ret)	/* full: the new are dropped, the first kept (and counted) */
		ret = put_file(w, "options/overwrite", "0", err, len);
	if (!ret)	/* the other tasks' events skipped before they are recorded */
		ret = set_pids(w, err, len);
	if (!ret && (ret = events_on(w, "1", err, len)) == -ENOENT)
		snprintf(err + strlen(err), len - strlen(err),
			 ": this kernel has no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)");
	if (ret)
		goto failed;
	snprintf(path, sizeof(path), "%s/trace_pipe", w->dir);
	w->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->pipe_fd < 0) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		goto failed;
	}
	w->rt_minus_mono_ns = realtime_ns() - monotonic_ns();
	ret = -offloop_spawn(&w->sampler, sampler, w, NULL);
	if (ret) {
		snprintf(err, len, "the thread that ends the sample: %s", strerror(-ret));
		goto failed;
	}
	w->sampling = true;
	w->started = true;
	*wp = w;
	return 0;
failed:
	syswrite_destroy(w);
	return ret;
}

void syswrite_stop(struct syswrite *w)
{
	char err[PATH_MAX + 64];

	if (!w || !w->started)
		return;
	put_file(w, "tracing_on", "0", err, sizeof(err));
	w->started = false;
	if (w->sampling) {
		atomic_store(&w->quit, true);
		pthread_join(w->sampler, NULL);
		w->sampling = false;
	}
	events_on(w, "0", err, sizeof(err));
	drain(w);
	w->lost += cpu_stat(w, "overrun") + cpu_stat(w, "dropped events");
}

size_t syswrite_calls(const struct syswrite *w, const struct syswrite_call **calls)
{
	*calls = w->calls;
	return w->ncalls;
}

uint64_t syswrite_lost(const struct syswrite *w)
{
	return w->lost + w->left_out;
}

void syswrite_destroy(struct syswrite *w)
{
	char err[PATH_MAX + 64];

	if (!w)
		return;
	syswrite_stop(w);
	if (w->pipe_fd >= 0)
		close(w->pipe_fd);
	if (w->dir[0]) {
		events_on(w, "0", err, sizeof(err));
		rmdir(w->dir);
	}
	free(w->calls);
	free(w);
}

