// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --targets FILE (see targets.h).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "optnum.h"
#include "skpeer.h"
#include "targets.h"
#include "timeutil.h"

#define LINE_MAX_LEN 512

#define LINE_FORM "[stamp|icmp|syn] ADDR [PORT] [name=NAME] [dscp=N] [interval=T], or http URL [...]"
#define HTTP_FORM "http http://ADDR[:PORT][/PATH] [name=NAME] [dscp=N] [interval=T]"

static const char *const kind_names[TARGET_NKINDS] = { "rant", "stamp", "icmp", "syn", "http" };

const char *targets_kind_name(enum target_kind k)
{
	return k < TARGET_NKINDS ? kind_names[k] : "rant";
}

void targets_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	bool v6 = ss->ss_family == AF_INET6;
	uint16_t port = ntohs(v6 ? ((const struct sockaddr_in6 *)ss)->sin6_port :
			      ((const struct sockaddr_in *)ss)->sin_port);

	inet_ntop(ss->ss_family, v6 ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
		  (const void *)&((const struct sockaddr_in *)ss)->sin_addr, host, sizeof(host));
	if (!port)
		snprintf(buf, len, "%s", host);
	else
		snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", host, port);
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

/* name=: letters, digits, '.', '_', '-', 1 to TARGET_LABEL_LEN - 1. */
static bool good_label(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > TARGET_LABEL_MAX)
		return false;
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && !strchr("._-", *v))
			return false;
	return true;
}

/* name=, dscp= or interval=: 1 taken, 0 not one of them, -1 bad. */
static int named_option(const char *w, const struct targets_ctx *ctx, struct target_spec *t,
			char *msg, size_t len)
{
	char why[160];
	uint64_t v;

	if (!strncmp(w, "name=", 5)) {
		if (!good_label(w + 5)) {
			snprintf(msg, len, "%s: give name=NAME, 1 to %d letters, digits, '.', '_' or '-' (it labels the target in every output)",
				 w, TARGET_LABEL_MAX);
			return -1;
		}
		snprintf(t->label, sizeof(t->label), "%s", w + 5);
		return 1;
	}
	if (!strncmp(w, "dscp=", 5)) {
		if (optnum_u64(w + 5, 0, 63, &v, why, sizeof(why))) {
			snprintf(msg, len, "%s: %s: give dscp=N with N from 0 to 63 (46: EF)", w, why);
			return -1;
		}
		t->dscp = (int)v;
		return 1;
	}
	if (!strncmp(w, "interval=", 9)) {
		int64_t lo = ctx->interval_ns > 0 ? ctx->interval_ns : 1;

		if (optnum_ns(w + 9, NS_PER_SEC, lo, 3600 * NS_PER_SEC, &t->interval_ns, why,
			      sizeof(why))) {
			snprintf(msg, len, "%s: %s: give interval=T from the run's --interval to 1h (200ms, 1s), or lower --interval",
				 w, why);
			return -1;
		}
		return 1;
	}
	return 0;
}

/* PORT or an option after the address. */
static int option_word(const char *w, const struct targets_ctx *ctx, bool *have_port,
		       struct target_spec *t, char *msg, size_t len)
{
	char why[160];
	uint64_t v;
	int got = named_option(w, ctx, t, msg, len);

	if (got)
		return got < 0 ? -1 : 0;
	if (strchr(w, '=')) {
		snprintf(msg, len, "'%s': no such option: the options are name=, dscp= and interval=", w);
		return -1;
	}
	if (t->kind == TARGET_ICMP) {
		snprintf(msg, len, "'%s': icmp takes no port: a line is icmp ADDR [name=NAME] [dscp=N] [interval=T]",
			 w);
		return -1;
	}
	if (t->kind == TARGET_HTTP) {
		snprintf(msg, len, "'%s': an http line's port is the URL's: a line is " HTTP_FORM, w);
		return -1;
	}
	if (*have_port || optnum_u64(w, 1, 65535, &v, why, sizeof(why))) {
		snprintf(msg, len, "'%s' is neither a port (1 to 65535, once) nor an option: a line is " LINE_FORM,
			 w);
		return -1;
	}
	*have_port = true;
	t->port = (uint16_t)v;
	return 0;
}

/* The kind word the line begins with: the words it took (0: none, a
 * rant line), or -1 for a word that is no kind (nor an address). */
static int kind_word(char **w, int n, struct target_spec *t, char *msg, size_t len)
{
	for (int k = 0; k < TARGET_NKINDS; k++)
		if (!strcmp(w[0], kind_names[k])) {
			t->kind = (enum target_kind)k;
			return 1;
		}
	if (!strncmp(w[0], "http://", 7) || !strncmp(w[0], "https://", 8)) {
		snprintf(msg, len, "'%s': a URL's line begins with its kind: " HTTP_FORM, w[0]);
		return -1;
	}
	/* a word of letters alone, with more after it: meant as a kind */
	if (n > 1 && strspn(w[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
	    strlen(w[0])) {
		snprintf(msg, len, "'%s' is no kind of target: a line begins with stamp, icmp, syn or http (or the address, for rant's reflector): " LINE_FORM,
			 w[0]);
		return -1;
	}
	return 0;
}

/* The defaults of t's kind, before its words. */
static void defaults(struct target_spec *t, const struct targets_ctx *ctx, enum target_kind k)
{
	memset(t, 0, sizeof(*t));
	t->kind = k;
	t->port = k == TARGET_STAMP ? TARGET_STAMP_PORT : k == TARGET_ICMP ? 0 :
		  k == TARGET_HTTP ? TARGET_HTTP_PORT : ctx->port;
	t->dscp = -1;
}

/* The address word into t (its port set), checked as -a is. */
static int address(const char *w, const struct targets_ctx *ctx, struct target_spec *t,
		   char *msg, size_t len)
{
	char err[512];

	if (sk_peer_resolve(w, t->port, ctx->ifindex, ctx->iface, &t->addr, &t->addr_len,
			    err, sizeof(err))) {
		/* sk_peer_resolve() speaks of -a: the address is this line's */
		snprintf(msg, len, "%s", strncmp(err, "-a ", 3) ? err : err + 3);
		return -1;
	}
	if (ctx->family == AF_INET && t->addr.ss_family == AF_INET6) {
		snprintf(msg, len, "%s is IPv6, and the run's sockets are IPv4 (it began with IPv4 targets only): restart rant to add it",
			 w);
		return -1;
	}
	return 0;
}

/*
 * An http line's URL, http://ADDR[:PORT][/PATH], into t: its path (and
 * query) kept, its port set, ADDR left in host (bracketed IPv6's without
 * the brackets) for address().
 */
static int url(const char *w, struct target_spec *t, char *host, size_t host_len,
	       char *msg, size_t len)
{
	const char *s = w + 7, *path, *end;
	char why[160];
	uint64_t v;

	if (!strncmp(w, "https://", 8)) {
		snprintf(msg, len, "'%s': rant sends plain HTTP/1.1, without TLS: give the server's plain port (http://), or time the TLS port's handshake with syn ADDR 443",
			 w);
		return -1;
	}
	if (strncmp(w, "http://", 7)) {
		snprintf(msg, len, "'%s' is not a URL: a line is " HTTP_FORM, w);
		return -1;
	}
	path = s + strcspn(s, "/?");
	if (*s == '[') {	/* [IPv6]: its colons are not the port's */
		end = strchr(s++, ']');
		if (!end || end > path) {
			snprintf(msg, len, "'%s': an IPv6 address without its ']': a line is " HTTP_FORM,
				 w);
			return -1;
		}
	} else {
		end = s + strcspn(s, ":/?");
	}
	if (end == s || (size_t)(end - s) >= host_len) {
		snprintf(msg, len, "'%s': no server address in the URL: a line is " HTTP_FORM, w);
		return -1;
	}
	memcpy(host, s, (size_t)(end - s));
	host[end - s] = '\0';
	if (*end == ']')
		end++;
	if (*end == ':') {
		char port[8] = "";

		if ((size_t)(path - end - 1) < sizeof(port))
			memcpy(port, end + 1, (size_t)(path - end - 1));
		if (optnum_u64(port, 1, 65535, &v, why, sizeof(why))) {
			snprintf(msg, len, "'%s': the URL's port is not one of 1 to 65535: a line is " HTTP_FORM,
				 w);
			return -1;
		}
		t->port = (uint16_t)v;
	} else if (end != path) {
		snprintf(msg, len, "'%s': no server address in the URL: a line is " HTTP_FORM, w);
		return -1;
	}
	if (strlen(path) + 2 > sizeof(t->path)) {
		snprintf(msg, len, "'%s': a path over %zu characters: give a shorter URL", w,
			 sizeof(t->path) - 2);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s%s", *path == '/' ? "" : "/", path);
	return 0;
}

int targets_parse_line(const char *text, const struct targets_ctx *ctx,
		       struct target_spec *t, char *msg, size_t len)
{
	char buf[LINE_MAX_LEN], *w[8];
	bool have_port = false;
	int n, k;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(msg, len, "longer than %d characters: a line is " LINE_FORM, LINE_MAX_LEN - 1);
		return -1;
	}
	strcpy(buf, text);
	n = words(buf, w, 7);
	if (n == 0)
		return 0;
	if (n > 7) {
		snprintf(msg, len, "too many words: a line is " LINE_FORM);
		return -1;
	}
	defaults(t, ctx, TARGET_RANT);
	k = kind_word(w, n, t, msg, len);
	if (k < 0)
		return -1;
	defaults(t, ctx, t->kind);
	if (k == n) {
		snprintf(msg, len, "%s without an address: a line is " LINE_FORM, w[0]);
		return -1;
	}
	for (int i = k + 1; i < n; i++)
		if (option_word(w[i], ctx, &have_port, t, msg, len))
			return -1;
	if (t->kind == TARGET_SYN && !have_port) {
		snprintf(msg, len, "syn without a port: give the service's, syn ADDR PORT (80, 443)");
		return -1;
	}
	if (t->kind == TARGET_HTTP) {
		char host[INET6_ADDRSTRLEN + 16];

		if (url(w[k], t, host, sizeof(host), msg, len) || address(host, ctx, t, msg, len))
			return -1;
	} else if (address(w[k], ctx, t, msg, len)) {
		return -1;
	}
	targets_name(&t->addr, t->name, sizeof(t->name));
	if (!t->label[0] && t->kind == TARGET_RANT && !k)
		snprintf(t->label, sizeof(t->label), "%s", t->name);
	else if (!t->label[0])
		snprintf(t->label, sizeof(t->label), "%s:%s", kind_names[t->kind], t->name);
	return 1;
}

static bool same_target(const struct target_spec *a, const struct target_spec *b)
{
	return target_proto_of(a->kind) == target_proto_of(b->kind) && a->addr_len == b->addr_len &&
	       !memcmp(&a->addr, &b->addr, a->addr_len);
}

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* The line of an earlier target like t (label: of the same label), or
 * 0. Quadratic only in a bad file's worst case: a hash of the names
 * keeps it linear. */
static unsigned int repeated(const struct target_list *l, const struct target_spec *t,
			     unsigned int *hash, size_t nhash, bool label)
{
	for (size_t i = str_hash(label ? t->label : t->name) % nhash;; i = (i + 1) % nhash) {
		const struct target_spec *o;

		if (!hash[i]) {
			hash[i] = (unsigned int)l->n + 1;
			return 0;
		}
		o = &l->v[hash[i] - 1];
		if (label ? !strcmp(o->label, t->label) : same_target(o, t))
			return o->line;
	}
}

struct loader {
	const char *path;
	const struct targets_ctx *ctx;
	FILE *err;
	unsigned int bad;
	unsigned int *hash, *lhash;	/* by address, by name= */
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
	first = repeated(l, &t, ld->hash, ld->nhash, false);
	if (first) {
		snprintf(msg, sizeof(msg), "%s%s%s is line %u's target again: give each once%s",
			 t.kind ? targets_kind_name(t.kind) : "", t.kind ? " " : "", t.name, first,
			 t.kind == TARGET_HTTP ? " (one URL a server ADDR:PORT)" : "");
		say(ld, line, msg);
		return 0;
	}
	first = repeated(l, &t, ld->lhash, ld->nhash, true);
	if (first) {
		snprintf(msg, sizeof(msg), "name=%s is line %u's name too: give each target a name of its own",
			 t.label, first);
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
		fprintf(err, "rant: --targets %s: %s: give a file of targets, one " LINE_FORM " a line\n",
			path, strerror(-ret));
		return ret;
	}
	ld.nhash = 2 * ld.max + 1;
	ld.hash = calloc(ld.nhash, sizeof(*ld.hash));
	ld.lhash = calloc(ld.nhash, sizeof(*ld.lhash));
	if (!ld.hash || !ld.lhash) {
		free(ld.hash);
		free(ld.lhash);
		fclose(f);
		return -ENOMEM;
	}
	while (!ret && fgets(text, sizeof(text), f)) {
		size_t n = strlen(text);

		line++;
		if (n && text[n - 1] == '\n')
			text[--n] = '\0';
		else if (!feof(f)) {
			say(&ld, line, "longer than 511 characters: a line is " LINE_FORM);
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
	free(ld.lhash);
	if (ret == -ENOMEM || ret == -EIO)
		fprintf(err, "rant: --targets %s: %s\n", path, strerror(-ret));
	if (!ret && ld.bad > TARGETS_BAD_MAX)
		fprintf(err, "rant: --targets %s: %u bad lines in all (the first %d above)\n", path,
			ld.bad, TARGETS_BAD_MAX);
	if (!ret && ld.bad)
		ret = -EINVAL;
	if (!ret && !l.n) {
		fprintf(err, "rant: --targets %s: no target in it: give one " LINE_FORM " a line\n",
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
