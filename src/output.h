/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an output file is (outputs.h has the table and what is done with
 * it): a row's hooks and the state of one open output. A format's file
 * (outjson.c) needs only this.
 */
#ifndef RANT_OUTPUT_H
#define RANT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "out.h"
#include "outfile.h"
#include "txlog.h"

#define OUTPUTS_MAX 4

struct snap;
struct output;

/* What the outputs are written from. */
struct output_src {
	struct txlog *log;		/* -l: the ring and its writer */
	struct txlog_fmt log_fmt;	/* the log's columns as the run ended */
	const struct snap *snap;	/* the summary; NULL while draining */
};

struct output_def {
	const char *name;		/* in messages: "log", "JSON" */
	const char *opt;		/* the option that names the file: "-l" */
	size_t path_off;		/* offsetof(struct rant_cfg, ...): its path */
	int (*drain)(struct output *o, const struct output_src *src);
	int (*join)(struct output *o, struct out *pass);
	int (*write)(struct output *o, const struct output_src *src);
};

struct output {
	const struct output_def *def;	/* NULL: not asked for */
	const char *path;		/* as given */
	struct outfile f;
	struct json json;		/* join: the JSON writer on f */
};

#endif
