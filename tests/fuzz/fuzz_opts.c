// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the input is a command line, its arguments separated
 * by NUL bytes (argv[0] is "rant"). --help on stdout goes to /dev/null.
 * What opts_parse() accepts must satisfy the rules it promises (a named
 * interface, the mode from -a or --targets, a fleet's own rules, the
 * histogram's shape, ranges) and print
 * nothing; what it refuses must be said in one line starting "rant: "
 * (unless an argument itself holds a newline); the harness aborts where
 * either does not hold.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "opts.h"
#include "timeutil.h"
#include "wire.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		abort();
	close(fd);
	return 0;
}

/* What was printed on err for a result r. */
static void check_message(enum opts_result r, const char *msg, size_t len)
{
	const char *nl = memchr(msg, '\n', len);

	if (r != OPTS_ERROR) {
		if (len)
			abort();
		return;
	}
	if (len < 8 || strncmp(msg, "rant: ", 6) || nl != msg + len - 1)
		abort();
}

/* --read FILE (no -i) or -i IFACE --watch: a capture to read, nothing
 * to send. */
static bool watch_ok(const struct rant_cfg *c)
{
	return !c->addr && (c->read_path ? *c->read_path && !c->watch :
			    c->watch && c->iface && *c->iface);
}

static void check_cfg(const struct rant_cfg *c)
{
	bool ok;

	if (c->mode == MODE_WATCH) {
		if (!watch_ok(c))
			abort();
		return;
	}
	if (c->mode == MODE_SOCKETS) {	/* rant sockets WORD: the word read later */
		if (!c->sockets_target || !*c->sockets_target || c->duration_ns < 0)
			abort();
		return;
	}
	if (c->mode == MODE_TRACE) {	/* rant trace -i IFACE ADDR */
		if (!c->iface || !*c->iface || !c->addr || !*c->addr || c->port < 1)
			abort();
		return;
	}
	ok = c->iface && *c->iface &&
		  (c->mode == MODE_EMIT) == (c->addr != NULL || c->targets_path != NULL) &&
		  !(c->addr && c->targets_path) &&
		  (!c->addr || *c->addr) &&
		  (!c->targets_path || *c->targets_path) &&
		  c->paths <= RANT_MAX_PATHS && c->dscp <= 63 &&
		  (!c->flow_label || c->paths >= 2) &&
		  (!c->rcvbuf || (cfg_fleet(c) && c->rcvbuf >= 2048 && c->rcvbuf <= 1u << 30)) &&
		  (!cfg_fleet(c) || (c->interval_ns > 0 && c->open_loop && c->nsizes <= 1 &&
				     !c->tcp && !c->one_way)) &&
		  c->port >= 1 &&
		  c->duration_ns >= 0 && c->duration_ns <= 2592000 * NS_PER_SEC &&
		  c->count <= 1000000000000ULL &&
		  c->size >= WIRE_HDR_LEN && c->size <= WIRE_MAX_LEN &&
		  c->timeout_ns >= NS_PER_US && c->timeout_ns <= NS_PER_SEC &&
		  c->interval_ns >= 0 && c->interval_ns <= 60 * NS_PER_SEC &&
		  c->bucket_ns >= 1 && c->overflow_ns >= c->bucket_ns &&
		  c->overflow_ns % c->bucket_ns == 0 &&
		  c->overflow_ns / c->bucket_ns <= 10000000 &&
		  c->threshold_ns >= 0 && c->log_threshold_ns >= 0 &&
		  (!c->log_threshold_ns || c->log_path) &&
		  (!c->cont || c->threshold_ns || cfg_fleet(c)) &&
		  (!c->budget || c->busy_poll_us) &&
		  (!c->prefer_busypoll || c->busy_poll_us) &&
		  c->trace_instance && *c->trace_instance;

	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1], *msg = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&msg, &len);
	struct rant_cfg cfg;
	enum opts_result r;
	int argc = 0;

	if (!buf || !err)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)"rant";
	for (char *p = buf; p <= buf + size && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	optind = 0;		/* glibc: full re-initialisation of getopt */
	r = opts_parse(argc, argv, &cfg, err);
	if (fclose(err))
		abort();
	if (r == OPTS_OK)
		check_cfg(&cfg);
	if (!memchr(data, '\n', size))
		check_message(r, msg, len);
	free(msg);
	free(buf);
	return 0;
}
