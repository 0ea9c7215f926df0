// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/base/warn.h: a warning is printed where it is found and kept with its
 * code and fix; the summary's JSON lists every one (those of set-up and
 * the clock's), and its text names their codes.
 */
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "tap.h"
#include "warn.h"

static struct warnings ws;

static void test_collect(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		BAIL_OUT("open_memstream failed");
	warn_add(&ws, f, "rt_throttle", "sysctl it", "throttled %d of %d", 950, 1000);
	warn_add(&ws, NULL, "cpu_shared", "pin it", "shared with pid %d", 42);
	fclose(f);
	is_str(buf, "warning: throttled 950 of 1000\n", "collect: printed as a warning line");
	is_int(ws.n, 2, "collect: both kept");
	ok(!strcmp(ws.w[0].code, "rt_throttle") && !strcmp(ws.w[0].fix, "sysctl it") &&
	   !strcmp(ws.w[0].text, "throttled 950 of 1000"), "collect: code, fix and text");
	ok(!strcmp(ws.w[1].text, "shared with pid 42"), "collect: the second, not printed");
	free(buf);
}

static void test_full(void)
{
	struct warnings many = { 0 };

	for (int i = 0; i < WARN_MAX + 3; i++)
		warn_add(&many, NULL, "x", "y", "%d", i);
	ok(many.n == WARN_MAX && many.lost == 3, "full: %d kept, 3 counted as lost", WARN_MAX);
}

/* s without the JSON's indentation (newlines and the spaces after them). */
static void compact(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s == '\n') {
			while (s[1] == ' ')
				s++;
			continue;
		}
		*d++ = *s;
	}
	*d = 0;
}

/* The summary's JSON: the set-up's warnings and the clock's, each an object. */
static void test_summary(void)
{
	static struct snap s;
	struct rant_cfg c = { .mode = MODE_REFLECT, .iface = "lo", .port = 9 };
	char *tbuf = NULL, *jbuf = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *tf = open_memstream(&tbuf, &tlen), *jf = open_memstream(&jbuf, &jlen);
	struct json j;
	struct out o = { .t = tf, .j = &j };

	if (!tf || !jf)
		BAIL_OUT("open_memstream failed");
	json_init(&j, jf);
	s.cfg = &c;
	s.hw_note = "lo has none";
	s.primary = M_RESPONSE;
	s.hist.metric = "response";
	s.warn = &ws;
	s.have_clock = true;
	s.clock.nwarn = 1;
	strcpy(s.clock.warn[0], "the PHC drifts");
	s.clock.warn_code[0] = "clock_phc_drift";
	s.clock.warn_fix[0] = "run phc2sys";
	summary_print(&o, &s);
	fclose(tf);
	fclose(jf);
	compact(jbuf);
	ok(strstr(jbuf, "\"warnings\": [{\"code\": \"rt_throttle\",\"text\": \"throttled 950 of 1000\",\"fix\": \"sysctl it\"}") != NULL,
	   "summary JSON: the set-up's warning with its code and fix");
	ok(strstr(jbuf, "{\"code\": \"clock_phc_drift\",\"text\": \"the PHC drifts\",\"fix\": \"run phc2sys\"}]") != NULL,
	   "summary JSON: the clock's warning, last");
	ok(strstr(tbuf, "warnings: 3: rt_throttle cpu_shared clock_phc_drift") != NULL,
	   "summary text: the codes named");
	if (!strstr(jbuf, "\"warnings\": [{"))
		diag("JSON: %s", jbuf);
	free(tbuf);
	free(jbuf);
}

int main(void)
{
	test_collect();
	test_full();
	test_summary();
	return done_testing();
}
