/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer: objects, arrays, strings (escaped),
 * integers and doubles, indented two spaces a level. key is the member
 * name inside an object and NULL inside an array or at the top.
 */
#ifndef RANT_JSON_H
#define RANT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no member written yet at a level */
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_u64(struct json *j, const char *key, uint64_t v);
/* Non-finite values are written as null. */
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Finish the document (newline); the caller checks ferror(). */
void json_end(struct json *j);

#endif
