/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/outfile.h: output files written whole or not at all, in a
 * temporary directory of the test's own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "outfile.h"
#include "tap.h"

static char dir[PATH_MAX];

/* Entries in dir other than . and .. ; the first name into first. */
static int count_entries(char *first, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (first)
		first[0] = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!n && first)
			snprintf(first, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* The whole file at path, or NULL (caller frees). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 65536);
	n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

static void rm_all(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX + 256];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p))
			rmdir(p);
	}
	closedir(d);
}

static void test_commit(void)
{
	struct outfile o;
	char path[PATH_MAX + 32], msg[512] = "", name[256], *s;
	struct stat sb;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/out.json", dir);
	r = outfile_open(&o, path, 0, msg, sizeof(msg));
	if (!is_int(r, 0, "outfile_open in a writable directory")) {
		diag("%s", msg);
		return;
	}
	ok(access(path, F_OK) != 0, "the target does not exist before commit");
	is_int(count_entries(name, sizeof(name)), 1,
	       "one temporary file in the directory: %s", name);
	ok(o.tmp && strcmp(o.tmp, path) != 0, "tmp is not the target");
	if (o.tmp) {
		char t[PATH_MAX + 64];

		snprintf(t, sizeof(t), "%s", o.tmp);
		is_str(dirname(t), dir, "the temporary file is beside the target");
	}
	f = outfile_stream(&o);
	ok(f != NULL, "outfile_stream gives a stream");
	ok(outfile_stream(&o) == f, "the same stream a second time");
	if (f)
		fprintf(f, "{\n  \"a\": 1\n}\n");
	ok(access(path, F_OK) != 0, "the target still does not exist after writing");
	r = outfile_commit(&o);
	is_int(r, 0, "outfile_commit -> 0");
	s = slurp(path);
	is_str(s, "{\n  \"a\": 1\n}\n", "the target has the content");
	free(s);
	is_int(count_entries(name, sizeof(name)), 1,
	       "only the target in the directory (%s), no temporary left", name);
	if (stat(path, &sb) == 0)
		note("target mode %03o", (unsigned)(sb.st_mode & 0777));
	outfile_abort(&o);
	ok(access(path, F_OK) == 0,
	   "outfile_abort after commit leaves the committed target");
	rm_all();
}

static void test_empty_and_fd(void)
{
	struct outfile o;
	char path[PATH_MAX + 32], msg[512] = "", *s;

	snprintf(path, sizeof(path), "%s/empty.log", dir);
	is_int(outfile_open(&o, path, 0, msg, sizeof(msg)), 0, "open (nothing written)");
	is_int(outfile_commit(&o), 0, "commit with nothing written");
	s = slurp(path);
	is_str(s, "", "an empty target exists");
	free(s);
	outfile_abort(&o);
	rm_all();

	/* txlog_write() writes to the fd directly */
	snprintf(path, sizeof(path), "%s/tx.log", dir);
	is_int(outfile_open(&o, path, 0, msg, sizeof(msg)), 0, "open for fd writes");
	ok(o.fd >= 0, "fd is open");
	ok(o.fd >= 0 && write(o.fd, "SEQ RTT\n", 8) == 8, "write(2) to o->fd");
	is_int(outfile_commit(&o), 0, "commit after fd writes");
	s = slurp(path);
	is_str(s, "SEQ RTT\n", "the target has what went through the fd");
	free(s);
	is_int(count_entries(NULL, 0), 1, "no temporary left");
	outfile_abort(&o);
	rm_all();
}

static void test_abort(void)
{
	struct outfile o;
	char path[PATH_MAX + 32], msg[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/aborted.json", dir);
	is_int(outfile_open(&o, path, 0, msg, sizeof(msg)), 0, "open");
	f = outfile_stream(&o);
	if (f)
		fputs("partial", f);
	outfile_abort(&o);
	ok(access(path, F_OK) != 0, "abort: no target");
	is_int(count_entries(NULL, 0), 0, "abort: no temporary file left");
	outfile_abort(&o);
	pass("abort twice is safe");

	/* abort keeps an existing target as it was */
	spit(path, "old\n");
	is_int(outfile_open(&o, path, 0, msg, sizeof(msg)), 0, "open over an existing file");
	f = outfile_stream(&o);
	if (f)
		fputs("new\n", f);
	outfile_abort(&o);
	{
		char *s = slurp(path);

		is_str(s, "old\n", "abort: the existing target is untouched");
		free(s);
	}
	is_int(count_entries(NULL, 0), 1, "abort: only the old target in the directory");
	rm_all();
}

static void test_replace(void)
{
	struct outfile o;
	char path[PATH_MAX + 32], msg[512] = "", *s;
	struct stat before, after;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run.log", dir);
	spit(path, "old content\n");
	stat(path, &before);
	is_int(outfile_open(&o, path, 0, msg, sizeof(msg)), 0, "open over an existing file");
	s = slurp(path);
	is_str(s, "old content\n", "old content right after open (not truncated)");
	free(s);
	f = outfile_stream(&o);
	if (f) {
		fputs("new content\n", f);
		fflush(f);
	}
	s = slurp(path);
	is_str(s, "old content\n", "old content after writing, before commit");
	free(s);
	is_int(outfile_commit(&o), 0, "commit");
	s = slurp(path);
	is_str(s, "new content\n", "new content after commit");
	free(s);
	stat(path, &after);
	ok(before.st_ino != after.st_ino,
	   "the target was replaced by rename (new inode), not rewritten in place");
	is_int(count_entries(NULL, 0), 1, "no temporary left");
	outfile_abort(&o);
	rm_all();
}

static void test_errors(void)
{
	struct outfile o;
	char path[PATH_MAX + 64], msg[512];
	int r;

	snprintf(path, sizeof(path), "%s/no/such/dir/out.json", dir);
	msg[0] = 0;
	r = outfile_open(&o, path, 0, msg, sizeof(msg));
	is_int(r, -ENOENT, "open in a nonexistent directory -> -ENOENT");
	ok(strstr(msg, path) != NULL, "the message names the path: %s", msg);

	/* a directory is not a writable target: an error at open */
	snprintf(path, sizeof(path), "%s/adir", dir);
	mkdir(path, 0755);
	msg[0] = 0;
	r = outfile_open(&o, path, 0, msg, sizeof(msg));
	ok(r < 0, "open with a directory as the target fails at open (%d): %s",
	   r, msg);
	if (r == 0) {
		ok(outfile_commit(&o) < 0, "... (it does fail at commit)");
		outfile_abort(&o);
	}
	rm_all();
	ok(count_entries(NULL, 0) == 0, "no temporary left behind");
}

static void test_stdout(void)
{
	struct outfile o;
	char msg[256] = "";
	FILE *f;

	is_int(outfile_open(&o, "-", 0, msg, sizeof(msg)), 0, "open \"-\"");
	ok(o.tmp == NULL, "\"-\": no temporary file");
	is_int(count_entries(NULL, 0), 0, "\"-\": nothing created in the cwd's test dir");
	f = outfile_stream(&o);
	ok(f != NULL, "\"-\": a stream");
	/* a TAP comment line, so the output stays valid TAP */
	if (f)
		fputs("# written through outfile \"-\"\n", f);
	is_int(outfile_commit(&o), 0, "\"-\": commit -> 0");
	outfile_abort(&o);
	ok(fcntl(STDOUT_FILENO, F_GETFD) >= 0, "\"-\": stdout is still open");
}

/* Write "hello\n" to path through an outfile and commit: 0 or -errno. */
static int write_hello_flags(const char *path, unsigned int flags, char *msg, size_t len)
{
	struct outfile o;
	FILE *f;
	int ret = outfile_open(&o, path, flags, msg, len);

	if (ret)
		return ret;
	f = outfile_stream(&o);
	if (f)
		fputs("hello\n", f);
	ret = outfile_commit(&o);
	outfile_abort(&o);
	return ret;
}

static int write_hello(const char *path, char *msg, size_t len)
{
	return write_hello_flags(path, 0, msg, len);
}

/* Special targets are written as streams, never replaced. */
static void test_special(void)
{
	char msg[256] = "", fifo[PATH_MAX + 16], link[PATH_MAX + 16], file[PATH_MAX + 16], *got;
	struct stat st;
	int rd;

	is_int(write_hello("/dev/null", msg, sizeof(msg)), 0, "-j /dev/null: written: %s", msg);
	ok(!stat("/dev/null", &st) && S_ISCHR(st.st_mode), "/dev/null is still a character device");

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600))
		BAIL_OUT("mkfifo failed");
	is_int(write_hello(fifo, msg, sizeof(msg)), -ENXIO, "a FIFO without a reader: -ENXIO");
	ok(strstr(msg, "no reader"), "and the message says so: %s", msg);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	is_int(write_hello(fifo, msg, sizeof(msg)), 0, "a FIFO with a reader: written");
	{
		char buf[16] = "";
		ssize_t n = read(rd, buf, sizeof(buf) - 1);

		ok(n == 6 && !strcmp(buf, "hello\n"), "the reader got it (%zd bytes)", n);
	}
	close(rd);
	ok(!stat(fifo, &st) && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
	unlink(fifo);

	snprintf(file, sizeof(file), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	spit(file, "old\n");
	if (symlink(file, link))
		BAIL_OUT("symlink failed");
	is_int(write_hello(link, msg, sizeof(msg)), -ELOOP, "a symlink to a file: refused");
	ok(strstr(msg, file) && strstr(msg, "--follow-links"),
	   "the line names the file it would replace and --follow-links: %s", msg);
	got = slurp(file);
	is_str(got ? got : "", "old\n", "the file it names is untouched");
	free(got);
	is_int(write_hello_flags(link, OUTFILE_FOLLOW, msg, sizeof(msg)), 0,
	       "with OUTFILE_FOLLOW: written through the link");
	ok(!lstat(link, &st) && S_ISLNK(st.st_mode), "the link is still a link");
	got = slurp(file);
	is_str(got ? got : "", "hello\n", "the file it names has the new content");
	free(got);
	unlink(link);
	if (symlink("/dev/null", link))
		BAIL_OUT("symlink failed");
	is_int(write_hello(link, msg, sizeof(msg)), 0, "a link to a device is a stream: written (%s)",
	       msg);
	ok(!lstat(link, &st) && S_ISLNK(st.st_mode), "and the link stays");
	unlink(link);
	unlink(file);
}

/*
 * A link another user planted in a sticky, world-writable directory is
 * never followed, not even with OUTFILE_FOLLOW, and not as a directory
 * on the way: the kernel's protected_symlinks rule, which rant applies
 * itself because it resolves links itself.
 */
static void test_planted(void)
{
	char msg[512] = "", sticky[PATH_MAX + 16], victim[PATH_MAX + 16], link[PATH_MAX + 32],
	     dlink[PATH_MAX + 32], via[PATH_MAX + 48], want[PATH_MAX + 64], *got;
	uid_t other = 65534;	/* nobody */

	snprintf(sticky, sizeof(sticky), "%s/tmp", dir);
	snprintf(victim, sizeof(victim), "%s/secret", dir);
	snprintf(link, sizeof(link), "%s/x.log", sticky);
	snprintf(dlink, sizeof(dlink), "%s/d", sticky);
	snprintf(via, sizeof(via), "%s/secret", dlink);
	if (mkdir(sticky, 0700) || chmod(sticky, 01777))
		BAIL_OUT("mkdir sticky failed");
	spit(victim, "secret\n");
	if (symlink(victim, link) || symlink(dir, dlink))
		BAIL_OUT("symlink failed");
	if (geteuid() != 0 || lchown(link, other, other) || lchown(dlink, other, other)) {
		skip(10, "needs root to give the links another owner");
		goto out;
	}
	for (unsigned int flags = 0; flags <= OUTFILE_FOLLOW; flags += OUTFILE_FOLLOW) {
		is_int(write_hello_flags(link, flags, msg, sizeof(msg)), -EPERM,
		       "another user's link in a sticky /tmp: refused (flags %u)", flags);
		ok(strstr(msg, "uid 65534") && strstr(msg, "protected_symlinks"),
		   "the line names the owner and the rule: %s", msg);
		snprintf(want, sizeof(want), "world-writable directory %s,", sticky);
		ok(strstr(msg, want) != NULL, "and the directory the link is in (%s)", sticky);
	}
	is_int(write_hello_flags(via, OUTFILE_FOLLOW, msg, sizeof(msg)), -EPERM,
	       "another user's link as a directory on the way: refused");
	ok(strstr(msg, dlink) != NULL, "the line names that link: %s", msg);
	got = slurp(victim);
	is_str(got ? got : "", "secret\n", "the file the links name is untouched");
	free(got);
	ok(count_entries(NULL, 0) == 2, "nothing else was created");
out:
	unlink(link);
	unlink(dlink);
	unlink(victim);
	rmdir(sticky);
}

/* Temporaries carry their writer's pid; those of a writer that is gone
 * are reported (once per directory), never removed. */
static void test_stale(void)
{
	/* Above PID_MAX_LIMIT (4194304): no process can have it. */
	static const char *const dead[] = { "out.json.rant-2147483000-aB3dE9",
					    "old.log.rant-2147483001-zzzzzz" };
	static const char *const not_stale[] = { "out.json.rant-abcdef", "out.json.rant-2147483002-abc",
						 "out.json.rant-2147483003-abcdef.x", "x.rant-0-abcdef",
						 "x.rant--5-abcdef" };
	const char *targets[] = { "out.json", "out.log", NULL, "-" };
	char live[64], msg[256], path[PATH_MAX + 160], *buf = NULL;
	struct outfile o;
	size_t len = 0;
	FILE *f;
	unsigned int n;

	is_int(outfile_temp_pid("r.log.rant-1234-AbC123"), 1234, "the pid in a temporary's name");
	is_int(outfile_temp_pid("a.rant-1.rant-77-abcdef"), 77, "the last .rant- counts");
	is_int(outfile_temp_pid(".rant-77-abcdef"), 0, "a name without a target is not one");
	for (size_t i = 0; i < sizeof(not_stale) / sizeof(not_stale[0]); i++)
		ok(!outfile_temp_pid(not_stale[i]), "%s is not a temporary of rant", not_stale[i]);

	ok(outfile_open(&o, "out.json", 0, msg, sizeof(msg)) == 0, "open out.json");
	snprintf(live, sizeof(live), ".rant-%ld-", (long)getpid());
	ok(o.tmp && strstr(o.tmp, live), "its temporary carries this pid: %s", o.tmp ? o.tmp : "");
	outfile_abort(&o);

	for (size_t i = 0; i < 2; i++)
		spit(dead[i], "partial");
	for (size_t i = 0; i < sizeof(not_stale) / sizeof(not_stale[0]); i++)
		spit(not_stale[i], "x");
	snprintf(live, sizeof(live), "out.json.rant-%ld-Abc123", (long)getpid());
	spit(live, "being written");
	if (mkdir("d.rant-2147483004-abcdef", 0700))
		BAIL_OUT("mkdir failed");

	f = open_memstream(&buf, &len);
	n = outfile_report_stale(targets, 4, f);
	fclose(f);
	is_int(n, 2, "two stale temporaries reported, once each for two targets in one directory");
	snprintf(path, sizeof(path), "%s/%s: a temporary output of rant pid 2147483000, which is gone",
		 dir, dead[0]);
	if (!ok(buf && strstr(buf, path), "one line names the file and the pid"))
		diag("got: %s", buf ? buf : "");
	snprintf(path, sizeof(path), "remove it with rm -- '%s/%s'\n", dir, dead[1]);
	ok(buf && strstr(buf, path), "and the command that removes it");
	ok(buf && !strstr(buf, live), "a temporary of a live writer is not reported");
	for (size_t i = 0; i < 2; i++)
		ok(!access(dead[i], F_OK), "%s is left where it was", dead[i]);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	targets[0] = "/dev/null";
	is_int(outfile_report_stale(targets, 1, f), 0, "a device target has no temporaries");
	fclose(f);
	free(buf);
	rmdir("d.rant-2147483004-abcdef");
	rm_all();
}

/* The free space of the temporary's file system, as statvfs says. */
static void test_free_bytes(void)
{
	struct outfile o;
	struct statvfs sv;
	char msg[256];
	uint64_t got = 0, want;

	ok(outfile_open(&o, "room.txt", 0, msg, sizeof(msg)) == 0, "open room.txt");
	is_int(outfile_free_bytes(&o, &got), 0, "its file system's free bytes");
	if (!statvfs(dir, &sv)) {
		want = (uint64_t)(geteuid() == 0 ? sv.f_bfree : sv.f_bavail) * sv.f_frsize;
		ok(got + (1 << 20) >= want && got <= want + (1 << 20),
		   "as statvfs says, within 1 MiB: %" PRIu64 " and %" PRIu64, got, want);
	}
	outfile_abort(&o);
	ok(outfile_open(&o, "/dev/null", 0, msg, sizeof(msg)) == 0, "open /dev/null");
	is_int(outfile_free_bytes(&o, &got), -ENOTSUP, "a device is a stream: nothing to check");
	outfile_abort(&o);
}

/* put: write s to o's descriptor whole. */
static int put(const struct outfile *o, const char *s)
{
	return write(o->fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * A streamed file published: the target exists (the temporary renamed
 * over an old one) and takes what is written; moved away, a reopen
 * creates it again; not moved, a reopen appends; commit and abort
 * rename nothing and remove nothing.
 */
static void test_publish(void)
{
	char target[PATH_MAX + 16], moved[PATH_MAX + 16], msg[256] = "", *got;
	struct outfile o;
	bool had = true;

	rm_all();
	snprintf(target, sizeof(target), "%s/x.log", dir);
	snprintf(moved, sizeof(moved), "%s/x.log.1", dir);
	spit(target, "old run\n");
	is_int(outfile_open(&o, target, 0, msg, sizeof(msg)), 0, "open: %s", msg);
	is_int(outfile_publish(&o, msg, sizeof(msg)), 0, "publish: %s", msg);
	ok(o.in_place && !o.tmp, "written in place from now on");
	ok(count_entries(NULL, 0) == 1, "no temporary left: the target is the file");
	put(&o, "a\n");
	got = slurp(target);
	is_str(got ? got : "", "a\n", "the old run's file replaced, the rows go to the target");
	free(got);
	if (rename(target, moved))
		BAIL_OUT("rename failed");
	put(&o, "b\n");
	is_int(outfile_reopen(&o, &had, msg, sizeof(msg)), 0, "reopen after a move: %s", msg);
	ok(!had, "the new file is empty");
	put(&o, "c\n");
	is_int(outfile_reopen(&o, &had, msg, sizeof(msg)), 0, "reopen, not moved: %s", msg);
	ok(had, "the same file, with its bytes");
	put(&o, "d\n");
	is_int(outfile_commit(&o), 0, "commit: only a close");
	got = slurp(moved);
	is_str(got ? got : "", "a\nb\n", "the moved file: what came before the reopen");
	free(got);
	got = slurp(target);
	is_str(got ? got : "", "c\nd\n", "the target: what came after, appended at the second reopen");
	free(got);
	ok(count_entries(NULL, 0) == 2, "two files, nothing else");
	is_int(outfile_open(&o, target, 0, msg, sizeof(msg)), 0, "open again");
	is_int(outfile_publish(&o, msg, sizeof(msg)), 0, "publish");
	put(&o, "e\n");
	outfile_abort(&o);
	got = slurp(target);
	is_str(got ? got : "", "e\n", "abort leaves a published file as written");
	free(got);
	is_int(outfile_open(&o, "/dev/null", 0, msg, sizeof(msg)), 0, "open /dev/null");
	is_int(outfile_publish(&o, msg, sizeof(msg)), 0, "publish a stream: nothing to do");
	had = false;
	is_int(outfile_reopen(&o, &had, msg, sizeof(msg)), 0, "reopen a stream: nothing to do");
	ok(had && o.direct && !o.in_place, "the same stream goes on (no second header)");
	outfile_commit(&o);
	rm_all();
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/rant-outfile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp failed");
	/* relative paths in the tests below use dir; run from it too */
	if (chdir(dir))
		BAIL_OUT("chdir failed");
	test_commit();
	test_empty_and_fd();
	test_abort();
	test_replace();
	test_errors();
	test_stdout();
	test_special();
	test_planted();
	test_stale();
	test_free_bytes();
	test_publish();
	rm_all();
	if (chdir("/") || rmdir(dir))
		diag("could not remove %s", dir);
	return done_testing();
}
