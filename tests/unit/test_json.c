/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/json.h: the exact text of the writer's output, into a memstream.
 * Pretty-printed, two spaces a level, one member a line, "key": value,
 * empty containers as {} and [], a final newline from json_end().
 */
#include <math.h>
#include <stdlib.h>

#include "json.h"
#include "tap.h"

static struct json j;
static FILE *mf;
static char *mbuf;
static size_t mlen;

static void start(void)
{
	mbuf = NULL;
	mlen = 0;
	mf = open_memstream(&mbuf, &mlen);
	if (!mf)
		BAIL_OUT("open_memstream failed");
	json_init(&j, mf);
}

/* Finish and compare with want. */
static void check(const char *want, const char *what)
{
	ok(!ferror(mf), "%s: no stream error", what);
	fclose(mf);
	is_str(mbuf, want, "%s", what);
	free(mbuf);
}

static void test_example(void)
{
	start();
	json_obj_begin(&j, NULL);
	json_u64(&j, "a", 1);
	json_arr_begin(&j, "b");
	json_i64(&j, NULL, -2);
	json_arr_end(&j);
	json_obj_begin(&j, "c");
	json_obj_end(&j);
	json_obj_end(&j);
	json_end(&j);
	check("{\n  \"a\": 1,\n  \"b\": [\n    -2\n  ],\n  \"c\": {}\n}\n",
	      "the brief's example");
}

static void test_empty(void)
{
	start();
	json_obj_begin(&j, NULL);
	json_obj_end(&j);
	json_end(&j);
	check("{}\n", "empty top-level object");

	start();
	json_arr_begin(&j, NULL);
	json_arr_end(&j);
	json_end(&j);
	check("[]\n", "empty top-level array");

	start();
	json_obj_begin(&j, NULL);
	json_arr_begin(&j, "breaches");
	json_arr_end(&j);
	json_obj_begin(&j, "clock");
	json_obj_end(&j);
	json_obj_end(&j);
	json_end(&j);
	check("{\n  \"breaches\": [],\n  \"clock\": {}\n}\n",
	      "empty members: [] and {}");
}

static void test_scalars(void)
{
	start();
	json_obj_begin(&j, NULL);
	json_str(&j, "mode", "emit");
	json_i64(&j, "i64min", INT64_MIN);
	json_i64(&j, "i64max", INT64_MAX);
	json_i64(&j, "zero", 0);
	json_u64(&j, "u64max", UINT64_MAX);
	json_double(&j, "d", 12.3456);
	json_double(&j, "dz", 0.0);
	json_double(&j, "dneg", -2.5);
	json_double(&j, "dbig", 1e15);
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_null(&j, "n");
	json_obj_end(&j);
	json_end(&j);
	check("{\n"
	      "  \"mode\": \"emit\",\n"
	      "  \"i64min\": -9223372036854775808,\n"
	      "  \"i64max\": 9223372036854775807,\n"
	      "  \"zero\": 0,\n"
	      "  \"u64max\": 18446744073709551615,\n"
	      "  \"d\": 12.346,\n"
	      "  \"dz\": 0.000,\n"
	      "  \"dneg\": -2.500,\n"
	      "  \"dbig\": 1000000000000000.000,\n"
	      "  \"t\": true,\n"
	      "  \"f\": false,\n"
	      "  \"n\": null\n"
	      "}\n", "every scalar type in an object");

	start();
	json_arr_begin(&j, NULL);
	json_double(&j, NULL, NAN);
	json_double(&j, NULL, INFINITY);
	json_double(&j, NULL, -INFINITY);
	json_double(&j, NULL, 1.0);
	json_arr_end(&j);
	json_end(&j);
	check("[\n  null,\n  null,\n  null,\n  1.000\n]\n",
	      "NaN, +inf, -inf are null");
}

static void test_strings(void)
{
	start();
	json_arr_begin(&j, NULL);
	json_str(&j, NULL, "a\"b\\c");
	json_str(&j, NULL, "\n\t\r\b\f");
	json_str(&j, NULL, "\x01\x1f");
	json_str(&j, NULL, "");
	json_str(&j, NULL, "/ \xc2\xb5s \x7f");	/* UTF-8 and DEL pass */
	json_arr_end(&j);
	json_end(&j);
	check("[\n"
	      "  \"a\\\"b\\\\c\",\n"
	      "  \"\\n\\t\\r\\b\\f\",\n"
	      "  \"\\u0001\\u001f\",\n"
	      "  \"\",\n"
	      "  \"/ \xc2\xb5s \x7f\"\n"
	      "]\n", "string escapes: quote, backslash, \\n\\t\\r\\b\\f, \\u00XX");

	start();
	json_obj_begin(&j, NULL);
	json_str(&j, "interface", "eth\"3");
	json_obj_end(&j);
	json_end(&j);
	check("{\n  \"interface\": \"eth\\\"3\"\n}\n", "a value with a quote");
}

static void test_nesting(void)
{
	/* The histogram's buckets: an array of [value, count] pairs. */
	start();
	json_obj_begin(&j, NULL);
	json_obj_begin(&j, "histogram");
	json_str(&j, "metric", "rtt");
	json_arr_begin(&j, "buckets");
	json_arr_begin(&j, NULL);
	json_i64(&j, NULL, 12000);
	json_u64(&j, NULL, 7);
	json_arr_end(&j);
	json_arr_begin(&j, NULL);
	json_i64(&j, NULL, 13000);
	json_u64(&j, NULL, 2);
	json_arr_end(&j);
	json_arr_end(&j);
	json_u64(&j, "overflow", 0);
	json_obj_end(&j);
	json_obj_end(&j);
	json_end(&j);
	check("{\n"
	      "  \"histogram\": {\n"
	      "    \"metric\": \"rtt\",\n"
	      "    \"buckets\": [\n"
	      "      [\n"
	      "        12000,\n"
	      "        7\n"
	      "      ],\n"
	      "      [\n"
	      "        13000,\n"
	      "        2\n"
	      "      ]\n"
	      "    ],\n"
	      "    \"overflow\": 0\n"
	      "  }\n"
	      "}\n", "arrays in an array in an object in an object");

	start();
	json_arr_begin(&j, NULL);
	json_obj_begin(&j, NULL);
	json_u64(&j, "seq", 5);
	json_obj_begin(&j, "stamps");
	json_obj_end(&j);
	json_obj_end(&j);
	json_obj_begin(&j, NULL);
	json_obj_end(&j);
	json_arr_end(&j);
	json_end(&j);
	check("[\n"
	      "  {\n"
	      "    \"seq\": 5,\n"
	      "    \"stamps\": {}\n"
	      "  },\n"
	      "  {}\n"
	      "]\n", "objects in an array, one of them empty");

	/* Deep: 12 objects inside each other. */
	{
		char want[2048], *p = want;
		const int depth = 12;

		start();
		for (int d = 0; d < depth; d++) {
			json_obj_begin(&j, d ? "k" : NULL);
			if (d)
				p += sprintf(p, "%*s\"k\": {\n", 2 * d, "");
			else
				p += sprintf(p, "{\n");
		}
		json_u64(&j, "v", 1);
		p += sprintf(p, "%*s\"v\": 1\n", 2 * depth, "");
		for (int d = depth - 1; d >= 0; d--) {
			json_obj_end(&j);
			p += sprintf(p, "%*s}\n", 2 * d, "");
		}
		json_end(&j);
		check(want, "12 levels deep");
	}
}

/* Two documents one after the other through the same struct. */
static void test_reuse(void)
{
	start();
	json_obj_begin(&j, NULL);
	json_u64(&j, "a", 1);
	json_obj_end(&j);
	json_end(&j);
	json_init(&j, mf);
	json_arr_begin(&j, NULL);
	json_u64(&j, NULL, 2);
	json_arr_end(&j);
	json_end(&j);
	check("{\n  \"a\": 1\n}\n[\n  2\n]\n", "json_init starts a fresh document");
}

int main(void)
{
	test_example();
	test_empty();
	test_scalars();
	test_strings();
	test_nesting();
	test_reuse();
	return done_testing();
}
