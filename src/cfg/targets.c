// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --targets FILE (see targets.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "optnum.h"
#include "skpeer.h"
#include "targets.h"

#define LINE_MAX_LEN 512

void targets_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	}
}

/* The words of a line before its comment: up to max, each a pointer
 * into buf (cut there). Returns how many, or max + 1 for more. */
static int words(char *buf, char **w, int max)
{
	char *p = strchr(buf, '#');
	int n = 0;

	if (p)
		*p = '\0';
	for (p = strtok(buf, " \t\r"); p; p = strtok(NULL, " \t\r")) {
		if (n == max)
			return max + 1;
		w[n++] = p;
	}
	return n;
}

/* PORT or dscp=N after the address. */
static int option_word(const char *w, bool *have_port, struct target_spec *t, char *msg,
		       size_t len)
{
	char why[160];
	uint64_t v;

	if (!strncmp(w, "dscp=", 5)) {
		if (optnum_u64(w + 5, 0, 63, &v, why, sizeof(why))) {
			snprintf(msg, len, "%s: %s: give dscp=N with N from 0 to 63 (46: EF)", w, why);
			return -1;
		}
		t->dscp = (int)v;
		return 0;
	}
	if (*have_port || optnum_u64(w, 1, 65535, &v, why, sizeof(why))) {
		snprintf(msg, len, "'%s' is neither a port (1 to 65535, once) nor dscp=N: a line is ADDR [PORT] [dscp=N]",
			 w);
		return -1;
	}
	*have_port = true;
	t->port = (uint16_t)v;
	return 0;
}

int targets_parse_line(const char *text, const struct targets_ctx *ctx,
		       struct target_spec *t, char *msg, size_t len)
{
	char buf[LINE_MAX_LEN], err[512], *w[4];
	bool have_port = false;
	int n;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(msg, len, "longer than %d characters: a line is ADDR [PORT] [dscp=N]",
			 LINE_MAX_LEN - 1);
		return -1;
	}
	strcpy(buf, text);
	n = words(buf, w, 3);
	if (n == 0)
		return 0;
	if (n > 3) {
		snprintf(msg, len, "too many words: a line is ADDR [PORT] [dscp=N]");
		return -1;
	}
	memset(t, 0, sizeof(*t));
	t->port = ctx->port;
	t->dscp = -1;
	for (int i = 1; i < n; i++)
		if (option_word(w[i], &have_port, t, msg, len))
			return -1;
	if (sk_peer_resolve(w[0], t->port, ctx->ifindex, ctx->iface, &t->addr, &t->addr_len,
			    err, sizeof(err))) {
		/* sk_peer_resolve() speaks of -a: the address is this line's */
		snprintf(msg, len, "%s", strncmp(err, "-a ", 3) ? err : err + 3);
		return -1;
	}
	if (ctx->family == AF_INET && t->addr.ss_family == AF_INET6) {
		snprintf(msg, len, "%s is IPv6, and the run's sockets are IPv4 (it began with IPv4 targets only): restart rant to add it",
			 w[0]);
		return -1;
	}
	targets_name(&t->addr, t->name, sizeof(t->name));
	return 1;
}

static bool same_target(const struct target_spec *a, const struct target_spec *b)
{
	return a->addr_len == b->addr_len && !memcmp(&a->addr, &b->addr, a->addr_len);
}

/* The line of an earlier target like t, or 0. Quadratic only in a bad
 * file's worst case: a hash of the names keeps it linear. */
static unsigned int repeated(const struct target_list *l, const struct target_spec *t,
			     unsigned int *hash, size_t nhash)
{
	size_t h = 5381;

	for (const char *c = t->name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	for (size_t i = h % nhash;; i = (i + 1) % nhash) {
		if (!hash[i]) {
			hash[i] = (unsigned int)l->n + 1;
			return 0;
		}
		if (same_target(&l->v[hash[i] - 1], t))
			return l->v[hash[i] - 1].line;
	}
}

struct loader {
	const char *path;
	const struct targets_ctx *ctx;
	FILE *err;
	unsigned int bad;
	unsigned int *hash;
	size_t nhash, cap, max;
};

static void say(struct loader *ld, unsigned int line, const char *msg)
{
	if (++ld->bad <= TARGETS_BAD_MAX)
		fprintf(ld->err, "rant: --targets %s:%u: %s\n", ld->path, line, msg);
}

/* One line into l: 0, or -ENOMEM. */
static int take_line(struct loader *ld, struct target_list *l, const char *text,
		     unsigned int line)
{
	struct target_spec t;
	char msg[640];
	unsigned int first;
	int got = targets_parse_line(text, ld->ctx, &t, msg, sizeof(msg));

	if (got < 0)
		say(ld, line, msg);
	if (got <= 0)
		return 0;
	t.line = line;
	if (l->n == ld->max) {
		snprintf(msg, sizeof(msg), "more than %zu targets: split the fleet over several rant processes",
			 ld->max);
		say(ld, line, msg);
		return 0;
	}
	if (l->n == ld->cap) {
		size_t cap = ld->cap ? 2 * ld->cap : 64;
		struct target_spec *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		ld->cap = cap;
	}
	first = repeated(l, &t, ld->hash, ld->nhash);
	if (first) {
		snprintf(msg, sizeof(msg), "%s is line %u's target again: give each once", t.name,
			 first);
		say(ld, line, msg);
		return 0;
	}
	l->v[l->n++] = t;
	return 0;
}

int targets_load(const char *path, const struct targets_ctx *ctx, struct target_list *out,
		 FILE *err)
{
	struct loader ld = { .path = path, .ctx = ctx, .err = err,
			     .max = ctx->max ? ctx->max : TARGETS_MAX };
	struct target_list l = { 0 };
	char text[LINE_MAX_LEN + 2];
	unsigned int line = 0;
	int ret = 0;
	FILE *f = fopen(path, "re");

	*out = l;
	if (!f) {
		ret = -errno;
		fprintf(err, "rant: --targets %s: %s: give a file of targets, one ADDR [PORT] [dscp=N] a line\n",
			path, strerror(-ret));
		return ret;
	}
	ld.nhash = 2 * ld.max + 1;
	ld.hash = calloc(ld.nhash, sizeof(*ld.hash));
	if (!ld.hash) {
		fclose(f);
		return -ENOMEM;
	}
	while (!ret && fgets(text, sizeof(text), f)) {
		size_t n = strlen(text);

		line++;
		if (n && text[n - 1] == '\n')
			text[--n] = '\0';
		else if (!feof(f)) {
			say(&ld, line, "longer than 511 characters: a line is ADDR [PORT] [dscp=N]");
			for (int c = 0; c != '\n' && c != EOF; c = fgetc(f))
				;
			continue;
		}
		ret = take_line(&ld, &l, text, line);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	free(ld.hash);
	if (ret == -ENOMEM || ret == -EIO)
		fprintf(err, "rant: --targets %s: %s\n", path, strerror(-ret));
	if (!ret && ld.bad > TARGETS_BAD_MAX)
		fprintf(err, "rant: --targets %s: %u bad lines in all (the first %d above)\n", path,
			ld.bad, TARGETS_BAD_MAX);
	if (!ret && ld.bad)
		ret = -EINVAL;
	if (!ret && !l.n) {
		fprintf(err, "rant: --targets %s: no target in it: give one ADDR [PORT] [dscp=N] a line\n",
			path);
		ret = -EINVAL;
	}
	if (ret) {
		targets_free(&l);
		return ret;
	}
	*out = l;
	return 0;
}

void targets_free(struct target_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
