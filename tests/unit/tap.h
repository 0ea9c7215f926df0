/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal TAP (version 13) producer for rant's unit tests, header only.
 *
 *	int main(void)
 *	{
 *		ok(1 + 1 == 2, "addition");
 *		is_int(f(), 3, "f() gives %d", 3);
 *		is_str(name(), "rtt", "name");
 *		return done_testing();
 *	}
 *
 * Test lines go to stdout ("ok N - what" / "not ok N - what"); on failure
 * the got/want diagnostics go to stderr as "# " lines, as Test::More does,
 * so prove shows them even without -v. done_testing() prints the plan
 * ("1..N") and returns the exit status: 0 only when every test passed and,
 * with plan(), the planned number ran. Every assertion returns its result,
 * so a test can stop early: if (!ok(p != NULL, "create")) return
 * done_testing();
 */
#ifndef RANT_TAP_H
#define RANT_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_UNUSED __attribute__((unused))
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))

static int tap_run;		/* assertions so far */
static int tap_failed;		/* of which failed */
static int tap_planned = -1;	/* plan(), or -1 for done_testing() */
static bool tap_started;

static TAP_UNUSED void tap_start(void)
{
	if (!tap_started) {
		tap_started = true;
		/* Unbuffered: a crash still leaves every line printed so far. */
		setvbuf(stdout, NULL, _IONBF, 0);
		printf("TAP version 13\n");
	}
}

/* Declare the number of tests up front; prints "1..n" at once. */
static TAP_UNUSED void plan(int n)
{
	tap_start();
	tap_planned = n;
	printf("1..%d\n", n);
}

/* A "# " comment line on stderr (diagnostics). */
static TAP_UNUSED TAP_PRINTF(1, 2) void diag(const char *fmt, ...)
{
	va_list ap;

	tap_start();
	fflush(stdout);
	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* A "# " comment line on stdout (shown by prove -v only). */
static TAP_UNUSED TAP_PRINTF(1, 2) void note(const char *fmt, ...)
{
	va_list ap;

	tap_start();
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static TAP_UNUSED bool tap_vok(bool pass, const char *file, int line,
			       const char *fmt, va_list ap)
{
	tap_start();
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass)
		diag("  Failed test at %s line %d.", file, line);
	return pass;
}

static TAP_UNUSED TAP_PRINTF(4, 5)
bool tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static TAP_UNUSED TAP_PRINTF(5, 6)
bool tap_is_i64(int64_t got, int64_t want, const char *file, int line,
		const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r) {
		diag("         got: %" PRId64, got);
		diag("    expected: %" PRId64, want);
	}
	return r;
}

static TAP_UNUSED TAP_PRINTF(5, 6)
bool tap_is_u64(uint64_t got, uint64_t want, const char *file, int line,
		const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r) {
		diag("         got: %" PRIu64, got);
		diag("    expected: %" PRIu64, want);
	}
	return r;
}

static TAP_UNUSED TAP_PRINTF(6, 7)
bool tap_is_dbl(double got, double want, double tol, const char *file,
		int line, const char *fmt, ...)
{
	va_list ap;
	double d = got - want;
	bool r;

	if (d < 0)
		d = -d;
	va_start(ap, fmt);
	r = tap_vok(d <= tol, file, line, fmt, ap);
	va_end(ap);
	if (!r) {
		diag("         got: %.9g", got);
		diag("    expected: %.9g (within %.3g)", want, tol);
	}
	return r;
}

/* Prints a string for a diagnostic, escaped, or (null). */
static TAP_UNUSED void tap_diag_str(const char *label, const char *s)
{
	fflush(stdout);
	fprintf(stderr, "# %12s: ", label);
	if (!s) {
		fputs("(null)\n", stderr);
		return;
	}
	fputc('"', stderr);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", stderr);
		else if (c == '\t')
			fputs("\\t", stderr);
		else if (c == '"' || c == '\\')
			fprintf(stderr, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputs("\"\n", stderr);
}

static TAP_UNUSED TAP_PRINTF(5, 6)
bool tap_is_str(const char *got, const char *want, const char *file, int line,
		const char *fmt, ...)
{
	va_list ap;
	bool pass = got && want ? strcmp(got, want) == 0 : got == want;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_diag_str("got", got);
		tap_diag_str("expected", want);
	}
	return r;
}

static TAP_UNUSED TAP_PRINTF(6, 7)
bool tap_is_mem(const void *got, const void *want, size_t n, const char *file,
		int line, const char *fmt, ...)
{
	const unsigned char *g = got, *w = want;
	va_list ap;
	size_t i = 0;
	bool r;

	while (i < n && g[i] == w[i])
		i++;
	va_start(ap, fmt);
	r = tap_vok(i == n, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		diag("    first difference at byte %zu: got 0x%02x, expected 0x%02x",
		     i, g[i], w[i]);
	return r;
}

/* Records n skipped tests ("ok N # skip reason"). */
static TAP_UNUSED void skip(int n, const char *reason)
{
	tap_start();
	while (n-- > 0)
		printf("ok %d # skip %s\n", ++tap_run, reason);
}

/* Prints the plan if none was given; returns the exit status for main(). */
static TAP_UNUSED int done_testing(void)
{
	tap_start();
	if (tap_planned < 0) {
		printf("1..%d\n", tap_run);
	} else if (tap_planned != tap_run) {
		diag("Looks like you planned %d tests but ran %d.", tap_planned,
		     tap_run);
		return 255;
	}
	if (tap_failed) {
		diag("Looks like you failed %d test%s of %d.", tap_failed,
		     tap_failed == 1 ? "" : "s", tap_run);
		return tap_failed > 254 ? 254 : tap_failed;
	}
	return 0;
}

/* Stops the test program now (after a failure that makes the rest moot). */
static TAP_UNUSED __attribute__((noreturn)) void BAIL_OUT(const char *reason)
{
	tap_start();
	printf("Bail out! %s\n", reason);
	exit(255);
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_i64((int64_t)(got), (int64_t)(want), __FILE__, __LINE__, \
		   __VA_ARGS__)
#define is_i64 is_int
#define is_u64(got, want, ...) \
	tap_is_u64((uint64_t)(got), (uint64_t)(want), __FILE__, __LINE__, \
		   __VA_ARGS__)
#define is_dbl(got, want, tol, ...) \
	tap_is_dbl((double)(got), (double)(want), (double)(tol), __FILE__, \
		   __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_mem(got, want, n, ...) \
	tap_is_mem((got), (want), (n), __FILE__, __LINE__, __VA_ARGS__)
#define pass(...) tap_ok(true, __FILE__, __LINE__, __VA_ARGS__)
#define fail(...) tap_ok(false, __FILE__, __LINE__, __VA_ARGS__)

#endif
