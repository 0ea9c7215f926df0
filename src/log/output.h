/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an output file is: a row's hooks, the state of one open output,
 * and what is done with them from set-up to commit, whatever the rows
 * (the run's are outputs.h's table, handed to run_setup()). A format's
 * file (outjson.c) needs only the hooks.
 */
#ifndef RANT_OUTPUT_H
#define RANT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "cfg.h"
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

/*
 * Set-up, from the n rows (n <= OUTPUTS_MAX): report temporaries left
 * by writers that are gone (stderr), then create the file of each output
 * cfg names. 0, or -errno after a
 * line "rant: -j: ..." on stderr (the ones created stay for
 * output_abort()).
 */
int output_open(struct output *outs, const struct output_def *rows, size_t n,
		const struct rant_cfg *c);
/* The open output of option opt ("-l"), or NULL. */
const struct output *output_get(const struct output *outs, const char *opt);
/*
 * The run is set up: the file of option opt ("-l"), streamed during the
 * run, takes its target's name now (outfile_publish()) and is written
 * in place. 0 (nothing to do is fine) or -errno after a line on stderr.
 */
int output_publish(struct output *outs, const char *opt);
/*
 * SIGHUP: the published file of option opt is opened again by its name
 * (outfile_reopen(): created when a log rotator moved it away, appended
 * to when it is still there; *had_data then) and the one written so far
 * closed; nothing is renamed. Returns the descriptor to write to: the
 * same one, after a line on stderr, when the name cannot be opened, and
 * for a file not published (a stream target, -S's log); -ENOENT when
 * there is no such output.
 */
int output_reopen(struct output *outs, const char *opt, bool *had_data);
/* End, before the summary: each drain. 0 or the first -errno. */
int output_drain(struct output *outs, const struct output_src *src);
/* End: the outputs that join the pass add their streams to *pass. */
int output_join(struct output *outs, struct out *pass);
/* End, after the pass: each write, then every commit. 0 or the first -errno. */
int output_finish(struct output *outs, const struct output_src *src);
/* Remove the temporaries of what was not committed. */
void output_abort(struct output *outs);

#endif
