// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflector's session table (see session.h). A linear table: it holds
 * tens of sessions, and the last one used is checked first, so a single
 * emitter costs one comparison per ping.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "session.h"

struct sessions {
	struct session *tab;	/* max entries, used ones first in start order */
	size_t max, used;
	size_t last;		/* index of the last session looked up */
	bool huge;
	uint64_t started, evicted, refused;
};

struct sessions *sessions_create(size_t max, bool hugepages)
{
	struct sessions *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tab = mem_alloc(max * sizeof(*t->tab), hugepages);
	if (!t->tab) {
		free(t);
		return NULL;
	}
	t->max = max;
	t->huge = hugepages;
	return t;
}

void sessions_destroy(struct sessions *t)
{
	if (!t)
		return;
	mem_free(t->tab, t->max * sizeof(*t->tab), t->huge);
	free(t);
}

/* Same sender: family, address and port (not flow info or scope). */
static bool same_addr(const struct session *s, const struct sockaddr *a)
{
	if (s->addr.ss_family != a->sa_family)
		return false;
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)&s->addr;
		const struct sockaddr_in *y = (const struct sockaddr_in *)a;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)&s->addr;
		const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)a;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(y->sin6_addr));
	}
	return false;
}

static bool matches(const struct session *s, const struct sockaddr *a, uint32_t id)
{
	return s->id == id && same_addr(s, a);
}

/* The slot for a new session: a free one, else the idlest if idle enough. */
static struct session *slot_for_new(struct sessions *t, int64_t now_ns)
{
	size_t idlest = 0;

	if (t->used < t->max)
		return &t->tab[t->used++];
	for (size_t i = 1; i < t->used; i++)
		if (t->tab[i].last_ns < t->tab[idlest].last_ns)
			idlest = i;
	if (now_ns - t->tab[idlest].last_ns < SESSION_IDLE_NS)
		return NULL;
	/* Keep start order: close the gap, reuse the last slot. */
	memmove(&t->tab[idlest], &t->tab[idlest + 1],
		(t->used - idlest - 1) * sizeof(*t->tab));
	t->evicted++;
	return &t->tab[t->used - 1];
}

struct session *sessions_get(struct sessions *t, const struct sockaddr *addr,
			     socklen_t addr_len, uint32_t id, int64_t now_ns,
			     bool *fresh)
{
	struct session *s;

	*fresh = false;
	if (t->last < t->used && matches(&t->tab[t->last], addr, id)) {
		s = &t->tab[t->last];
		s->last_ns = now_ns;
		return s;
	}
	for (size_t i = 0; i < t->used; i++) {
		if (matches(&t->tab[i], addr, id)) {
			t->last = i;
			t->tab[i].last_ns = now_ns;
			return &t->tab[i];
		}
	}
	s = slot_for_new(t, now_ns);
	if (!s) {
		t->refused++;
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	memcpy(&s->addr, addr, addr_len < sizeof(s->addr) ? addr_len : sizeof(s->addr));
	s->addr_len = addr_len;
	s->id = id;
	s->first_ns = s->last_ns = now_ns;
	t->last = (size_t)(s - t->tab);
	t->started++;
	*fresh = true;
	return s;
}

void session_response(struct session *s, int64_t resp_ns)
{
	if (!s->resp_n || resp_ns < s->resp_min)
		s->resp_min = resp_ns;
	if (!s->resp_n || resp_ns > s->resp_max)
		s->resp_max = resp_ns;
	s->resp_sum += (double)resp_ns;
	s->resp_n++;
}

size_t sessions_count(const struct sessions *t)
{
	return t->used;
}

const struct session *sessions_at(const struct sessions *t, size_t i)
{
	return i < t->used ? &t->tab[i] : NULL;
}

uint64_t sessions_started(const struct sessions *t)
{
	return t->started;
}

uint64_t sessions_evicted(const struct sessions *t)
{
	return t->evicted;
}

uint64_t sessions_refused(const struct sessions *t)
{
	return t->refused;
}

void session_addr_str(const struct session *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (s->addr.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&s->addr;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		port = ntohs(in->sin_port);
	} else if (s->addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&s->addr;

		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], a, sizeof(a));
		else
			inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		port = ntohs(in6->sin6_port);
	}
	snprintf(buf, len, "%s port %u", a, port);
}

int sessions_snapshot(const struct sessions *t, struct sessions_snap *ss)
{
	size_t n = sessions_count(t);

	*ss = (struct sessions_snap){ .evicted = sessions_evicted(t) };
	if (!n)
		return 0;
	ss->v = malloc(n * sizeof(*ss->v));
	if (!ss->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ss->v[i] = *sessions_at(t, i);
	ss->n = n;
	return 0;
}

void sessions_snap_free(struct sessions_snap *ss)
{
	free(ss->v);
	ss->v = NULL;
	ss->n = 0;
}

/* One session's line and object. */
static void print_session(struct out *o, const struct session *s)
{
	char addr[INET6_ADDRSTRLEN + 16], id[12];

	session_addr_str(s, addr, sizeof(addr));
	snprintf(id, sizeof(id), "%08x", s->id);
	out_obj(o, NULL);
	out_str(o, "address", "  %s", addr);
	out_str(o, "session", " session %s:", id);
	out_u64(o, "received", " received %" PRIu64, s->received);
	out_u64(o, "sent", NULL, s->sent);
	out_u64(o, "warmup", ", warmup %" PRIu64, s->warmup);
	out_u64(o, "left_out", s->left_out ? " (-w left out %" PRIu64 ")" : NULL, s->left_out);
	out_u64(o, "duplicate", ", duplicate %" PRIu64, s->duplicate);
	out_u64(o, "missing_tx_ts", NULL, s->missing_tx_ts);
	out_u64(o, "missing_rx_ts", NULL, s->missing_rx_ts);
	out_obj(o, "response");
	out_u64(o, "samples", NULL, s->resp_n);
	if (s->resp_n) {
		out_i64(o, "min", ", response min %" PRId64, s->resp_min);
		out_dbl(o, "avg", " avg %.1f", s->resp_sum / (double)s->resp_n);
		out_i64(o, "max", " max %" PRId64 " ns", s->resp_max);
	}
	out_obj_end(o);
	out_text(o, "\n");
	out_obj_end(o);
}

/* Reflector: each emitter run it served, as the table held them. */
void sessions_print(struct out *o, const struct sessions_snap *ss)
{
	out_text(o, "\nsessions (%zu now, %" PRIu64 " evicted idle):\n", ss->n, ss->evicted);
	out_u64(o, "sessions_evicted", NULL, ss->evicted);
	out_arr(o, "sessions");
	for (size_t i = 0; i < ss->n; i++)
		print_session(o, &ss->v[i]);
	out_arr_end(o);
}
