// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Streaming JSON writer (format in json.h).
 */
#include <inttypes.h>
#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void indent(struct json *j, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

/* Separator, newline and indent before a member; then its key. */
static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->first[j->depth] ? "\n" : ",\n", j->f);
		indent(j, j->depth);
	}
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		indent(j, j->depth);
	}
	fputc(c, j->f);
}

void json_obj_begin(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

void json_obj_end(struct json *j)
{
	close_container(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

void json_arr_end(struct json *j)
{
	close_container(j, ']');
}

void json_str(struct json *j, const char *key, const char *v)
{
	member(j, key);
	put_string(j->f, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.3f", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}
