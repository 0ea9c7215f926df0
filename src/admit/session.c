// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reflector's session table (see session.h). A linear table: it holds
 * tens of sessions, and the last one used is checked first, so a single
 * emitter costs one comparison per ping; a newcomer costs a pass to count
 * its address's sessions and find a victim.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mem.h"
#include "session.h"

/* --key: an evicted session's id and the highest seq it was answered */
struct gone {
	uint32_t id;
	uint64_t top;
};

enum turned { T_REFUSED, T_EVICTED, T_REPLAYED };

struct sessions {
	struct session *tab;	/* max entries, used ones first in start order */
	size_t max, used;
	size_t last;		/* index of the last session looked up */
	bool huge;
	size_t per_addr;	/* sessions one address may hold, 0: any */
	int64_t window_ns;	/* --key: T1_SW window; 0: no --key */
	struct gone *gone;	/* --key: max evicted sessions, a ring */
	size_t gone_next;
	uint64_t started, evicted, refused, replayed;
	uint64_t layout;	/* odd while the loop moves or starts sessions
				 * (sessions_snapshot_live) */
	struct session_sender senders[SESSION_SENDERS_MAX];
	size_t nsenders;
	uint64_t senders_more;
	/* the notice line: where, when last, the counts it gave */
	FILE *notices;
	int64_t notice_ns;
	bool noticed;
	uint64_t said_refused, said_evicted, said_replayed;
	struct sockaddr_storage last_addr;	/* the last turned away */
	enum turned last_turned;
};

struct sessions *sessions_create(size_t max, bool hugepages)
{
	struct sessions *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tab = mem_alloc(max * sizeof(*t->tab), hugepages);
	t->gone = calloc(max, sizeof(*t->gone));
	if (!t->tab || !t->gone) {
		if (t->tab)
			mem_free(t->tab, max * sizeof(*t->tab), hugepages);
		free(t->gone);
		free(t);
		errno = ENOMEM;
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
	free(t->gone);
	free(t);
}

void sessions_guard(struct sessions *t, size_t per_addr, int64_t key_window_ns,
		    FILE *notices)
{
	t->per_addr = per_addr;
	t->window_ns = key_window_ns;
	t->notices = notices;
}

bool session_same_host(const struct sockaddr_storage *s, const struct sockaddr *a)
{
	if (s->ss_family != a->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)s)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)a)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)s)->sin6_addr,
			       &((const struct sockaddr_in6 *)a)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

/* The port of a, network order (0 for another family). */
static in_port_t port_of(const void *a)
{
	const struct sockaddr *sa = a;

	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)a)->sin6_port;
	return 0;
}

/* Same sender: host and port. */
static bool same_addr(const struct session *s, const struct sockaddr *a)
{
	return session_same_host(&s->addr, a) && port_of(&s->addr) == port_of(a);
}

static void copy_addr(struct sockaddr_storage *to, const struct sockaddr *a, socklen_t len)
{
	memset(to, 0, sizeof(*to));
	memcpy(to, a, len < sizeof(*to) ? len : sizeof(*to));
}

/* Count a turned-away sender by its address, and note it for the line. */
static void sender_note(struct sessions *t, const struct sockaddr *a, socklen_t len,
			enum turned k)
{
	struct session_sender *x = NULL;

	for (size_t i = 0; i < t->nsenders && !x; i++)
		if (session_same_host(&t->senders[i].addr, a))
			x = &t->senders[i];
	if (!x && t->nsenders < SESSION_SENDERS_MAX) {
		x = &t->senders[t->nsenders++];
		copy_addr(&x->addr, a, len);
		if (a->sa_family == AF_INET)
			((struct sockaddr_in *)&x->addr)->sin_port = 0;
		else if (a->sa_family == AF_INET6)
			((struct sockaddr_in6 *)&x->addr)->sin6_port = 0;
	} else if (!x) {
		t->senders_more++;
	}
	if (x) {
		x->refused += k == T_REFUSED;
		x->evicted += k == T_EVICTED;
		x->replayed += k == T_REPLAYED;
	}
	copy_addr(&t->last_addr, a, len);
	t->last_turned = k;
}

/* Pings of s in its current and previous SESSION_USE_NS, seen at now_ns. */
static uint32_t use_of(const struct session *s, int64_t now_ns)
{
	int64_t k = (now_ns - s->use_start_ns) / SESSION_USE_NS;

	return k <= 0 ? s->use_now + s->use_prev : k == 1 ? s->use_now : 0;
}

static void use_add(struct session *s, int64_t now_ns)
{
	int64_t k = now_ns - s->use_start_ns < SESSION_USE_NS ? 0 :
		(now_ns - s->use_start_ns) / SESSION_USE_NS;	/* once a second */

	if (k > 0) {
		s->use_prev = k == 1 ? s->use_now : 0;
		s->use_now = 0;
		s->use_start_ns += k * SESSION_USE_NS;
	}
	s->use_now++;
}

/* Idle SESSION_IDLE_NS, or closed: no ping will come. */
static bool is_idle(const struct session *s, int64_t now_ns)
{
	return s->closed || now_ns - s->last_ns >= SESSION_IDLE_NS;
}

/* Whether a is a better victim than b (session_use_worse()). */
static bool worse(const struct session *a, const struct session *b, int64_t now_ns)
{
	struct session_use ua = { is_idle(a, now_ns), use_of(a, now_ns), a->last_ns };
	struct session_use ub = { is_idle(b, now_ns), use_of(b, now_ns), b->last_ns };

	return session_use_worse(&ua, &ub);
}

/* Free slot i for a newcomer (start order kept: the gap closes, the last
 * slot is reused); the slot. */
static struct session *evict(struct sessions *t, size_t i)
{
	struct session *s = &t->tab[i];

	if (t->window_ns) {
		t->gone[t->gone_next] = (struct gone){ .id = s->id, .top = s->replay.top };
		t->gone_next = (t->gone_next + 1) % t->max;
	}
	sender_note(t, (const struct sockaddr *)&s->addr, s->addr_len, T_EVICTED);
	memmove(s, s + 1, (t->used - i - 1) * sizeof(*s));
	t->evicted++;
	return &t->tab[t->used - 1];
}

/*
 * The slot for a new session from a: over its address's share, the
 * address's own session idle SESSION_IDLE_NS, else none (refused); a
 * free one; else the worst victim of the table.
 */
static struct session *slot_for_new(struct sessions *t, const struct sockaddr *a,
				    int64_t now_ns)
{
	size_t n = 0, own = 0, victim = 0;

	for (size_t i = 0; i < t->used; i++) {
		if (session_same_host(&t->tab[i].addr, a) &&
		    (!n++ || worse(&t->tab[i], &t->tab[own], now_ns)))
			own = i;
		if (worse(&t->tab[i], &t->tab[victim], now_ns))
			victim = i;
	}
	if (t->per_addr && n >= t->per_addr)
		return is_idle(&t->tab[own], now_ns) ? evict(t, own) : NULL;
	if (t->used < t->max)
		return &t->tab[t->used++];
	return evict(t, victim);
}

/* Whether slot i is p's session: the same id, and the same sender or,
 * under --key (the id is authenticated), *elsewhere. */
static bool is_of(const struct sessions *t, size_t i, const struct session_ping *p,
		  bool *elsewhere)
{
	const struct session *s = &t->tab[i];

	if (s->id != p->id)
		return false;
	*elsewhere = !same_addr(s, p->addr);
	return !*elsewhere || t->window_ns;
}

/* The index of p's session (the last one used first: one emitter, one
 * comparison), or -1. */
static ssize_t find(const struct sessions *t, const struct session_ping *p, bool *elsewhere)
{
	*elsewhere = false;
	if (t->last < t->used && is_of(t, t->last, p, elsewhere))
		return (ssize_t)t->last;
	for (size_t i = 0; i < t->used; i++)
		if (i != t->last && is_of(t, i, p, elsewhere))
			return (ssize_t)i;
	return -1;
}

/* --key: whether seq of id was answered before its session was evicted. */
static bool gone_seen(const struct sessions *t, uint32_t id, uint64_t seq)
{
	for (size_t i = 0; i < t->max; i++)
		if (t->gone[i].top && t->gone[i].id == id && seq <= t->gone[i].top)
			return true;
	return false;
}

/* The line on what was turned away, at most one a SESSION_NOTICE_NS. */
static void notice(struct sessions *t, int64_t now_ns)
{
	static const char *const why[] = {
		[T_REFUSED] = "refused: its address holds --max-sessions-per-address live sessions",
		[T_EVICTED] = "evicted: the table was full (--max-sessions), it was the idlest or least used",
		[T_REPLAYED] = "a replay: T1_SW outside --key-window of this clock, or a seq its session (from any port) was answered",
	};
	char addr[INET6_ADDRSTRLEN + 16];

	if (!t->notices || (t->noticed && now_ns - t->notice_ns < SESSION_NOTICE_NS))
		return;
	session_sockaddr_str(&t->last_addr, true, addr, sizeof(addr));
	fprintf(t->notices, "rant: sessions%s: %" PRIu64 " refused, %" PRIu64 " evicted, %" PRIu64
		" pings replayed; the last, %s, %s\n", t->noticed ? " since the last line" : "",
		t->refused - t->said_refused, t->evicted - t->said_evicted,
		t->replayed - t->said_replayed, addr, why[t->last_turned]);
	fflush(t->notices);
	t->noticed = true;
	t->notice_ns = now_ns;
	t->said_refused = t->refused;
	t->said_evicted = t->evicted;
	t->said_replayed = t->replayed;
}

/* Turned away: counted, noted, NULL. */
static struct session *turn_away(struct sessions *t, const struct session_ping *p,
				 enum session_verdict why, int64_t now_ns, enum session_verdict *v)
{
	*v = why;
	if (why == SESSION_REFUSED)
		t->refused++;
	else
		t->replayed++;
	sender_note(t, p->addr, p->addr_len, why == SESSION_REFUSED ? T_REFUSED : T_REPLAYED);
	notice(t, now_ns);
	return NULL;
}

/* Around a change of which session is in which slot (a seqlock's
 * writer: a reader that saw the count odd or changed tries again). */
static void layout_begin(struct sessions *t)
{
	__atomic_store_n(&t->layout, t->layout + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void layout_end(struct sessions *t)
{
	__atomic_store_n(&t->layout, t->layout + 1, __ATOMIC_RELEASE);
}

/* A new session for p in slot s. */
static struct session *start(struct sessions *t, struct session *s,
			     const struct session_ping *p, int64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	copy_addr(&s->addr, p->addr, p->addr_len);
	s->addr_len = p->addr_len;
	s->id = p->id;
	s->first_ns = s->use_start_ns = now_ns;
	t->last = (size_t)(s - t->tab);
	s->ordinal = ++t->started;
	return s;
}

struct session *sessions_admit(struct sessions *t, const struct session_ping *p,
			       int64_t now_ns, int64_t real_ns, enum session_verdict *v)
{
	uint64_t evicted = t->evicted;
	struct session *s;
	bool elsewhere;
	ssize_t i;

	if (t->window_ns && !auth_fresh(p->t1_sw, real_ns, t->window_ns))
		return turn_away(t, p, SESSION_REPLAYED, now_ns, v);
	i = find(t, p, &elsewhere);
	if (i >= 0) {
		s = &t->tab[i];
		/* --key, its id from another sender: a replay, unless its seq is
		 * above all answered (the emitter's port changed: a TCP
		 * reconnection, a NAT): then the session moves there */
		if (elsewhere && p->seq <= s->replay.top)
			return turn_away(t, p, SESSION_REPLAYED, now_ns, v);
		if (elsewhere) {
			layout_begin(t);
			copy_addr(&s->addr, p->addr, p->addr_len);
			s->addr_len = p->addr_len;
			layout_end(t);
		}
		if (t->window_ns && !auth_replay_check(&s->replay, p->seq))
			return turn_away(t, p, SESSION_REPLAYED, now_ns, v);
		*v = SESSION_FOUND;
		t->last = (size_t)i;
	} else {
		if (t->window_ns && (!p->seq || gone_seen(t, p->id, p->seq)))
			return turn_away(t, p, SESSION_REPLAYED, now_ns, v);
		layout_begin(t);
		s = slot_for_new(t, p->addr, now_ns);
		if (s)
			s = start(t, s, p, now_ns);
		layout_end(t);
		if (!s)
			return turn_away(t, p, SESSION_REFUSED, now_ns, v);
		if (t->window_ns)
			auth_replay_check(&s->replay, p->seq);
		*v = SESSION_NEW;
		if (t->evicted != evicted)
			notice(t, now_ns);
	}
	s->last_ns = now_ns;
	s->closed = false;	/* a later connection from the same port */
	use_add(s, now_ns);
	return s;
}

void sessions_closed(struct sessions *t, const struct sockaddr *addr)
{
	for (size_t i = 0; i < t->used; i++)
		if (same_addr(&t->tab[i], addr))
			t->tab[i].closed = true;
}

struct session *sessions_get(struct sessions *t, const struct sockaddr *addr,
			     socklen_t addr_len, uint32_t id, int64_t now_ns,
			     bool *fresh)
{
	struct session_ping p = { .addr = addr, .addr_len = addr_len, .id = id };
	enum session_verdict v;
	struct session *s = sessions_admit(t, &p, now_ns, 0, &v);

	*fresh = v == SESSION_NEW;
	return s;
}

struct session *sessions_by_ordinal(struct sessions *t, uint64_t ordinal)
{
	for (size_t i = 0; i < t->used; i++)
		if (t->tab[i].ordinal == ordinal)
			return &t->tab[i];
	return NULL;
}

void session_fu_put(struct session *s, const struct session_fu *fu)
{
	if (s->fu_n == SESSION_FU) {
		s->fu_head++;
		s->fu_n--;
		s->fu_dropped++;
	}
	s->fu[(s->fu_head + s->fu_n++) % SESSION_FU] = *fu;
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

uint64_t sessions_replayed(const struct sessions *t)
{
	return t->replayed;
}

size_t sessions_senders(const struct sessions *t)
{
	return t->nsenders;
}

const struct session_sender *sessions_sender_at(const struct sessions *t, size_t i)
{
	return i < t->nsenders ? &t->senders[i] : NULL;
}

uint64_t sessions_senders_more(const struct sessions *t)
{
	return t->senders_more;
}

void session_sockaddr_str(const struct sockaddr_storage *a, bool port, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (a->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, h, sizeof(h));
	} else if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)a;

		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], h, sizeof(h));
		else
			inet_ntop(AF_INET6, &in6->sin6_addr, h, sizeof(h));
	}
	if (port)
		snprintf(buf, len, "%s port %u", h, (unsigned int)ntohs(port_of(a)));
	else
		snprintf(buf, len, "%s", h);
}

void session_addr_str(const struct session *s, char *buf, size_t len)
{
	session_sockaddr_str(&s->addr, true, buf, len);
}

int sessions_snapshot(const struct sessions *t, struct sessions_snap *ss)
{
	size_t n = sessions_count(t);

	size_t ns = sessions_senders(t);

	*ss = (struct sessions_snap){ .evicted = sessions_evicted(t),
				      .refused = sessions_refused(t),
				      .replayed = sessions_replayed(t),
				      .senders_more = sessions_senders_more(t) };
	if (ns) {
		ss->senders = malloc(ns * sizeof(*ss->senders));
		if (!ss->senders)
			return -ENOMEM;
		for (size_t i = 0; i < ns; i++)
			ss->senders[i] = *sessions_sender_at(t, i);
		ss->nsenders = ns;
	}
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

#define LIVE_TRIES 1000	/* the loop's layout changes are a memmove long */

int sessions_snapshot_live(const struct sessions *t, struct sessions_snap *ss)
{
	*ss = (struct sessions_snap){ 0 };
	ss->v = malloc(t->max * sizeof(*ss->v));
	if (!ss->v)
		return -ENOMEM;
	for (int i = 0; i < LIVE_TRIES; i++) {
		uint64_t before = __atomic_load_n(&t->layout, __ATOMIC_ACQUIRE);
		size_t n = __atomic_load_n(&t->used, __ATOMIC_RELAXED);

		if (before & 1)
			continue;
		n = n < t->max ? n : t->max;
		memcpy(ss->v, t->tab, n * sizeof(*ss->v));
		/* the counters whole, whatever memcpy did */
		for (size_t k = 0; k < n; k++) {
			ss->v[k].received = __atomic_load_n(&t->tab[k].received, __ATOMIC_RELAXED);
			ss->v[k].sent = __atomic_load_n(&t->tab[k].sent, __ATOMIC_RELAXED);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&t->layout, __ATOMIC_RELAXED) != before)
			continue;
		ss->n = n;
		ss->evicted = __atomic_load_n(&t->evicted, __ATOMIC_RELAXED);
		ss->refused = __atomic_load_n(&t->refused, __ATOMIC_RELAXED);
		ss->replayed = __atomic_load_n(&t->replayed, __ATOMIC_RELAXED);
		return 0;
	}
	sessions_snap_free(ss);
	return -EAGAIN;
}

void sessions_snap_free(struct sessions_snap *ss)
{
	free(ss->v);
	ss->v = NULL;
	ss->n = 0;
	free(ss->senders);
	ss->senders = NULL;
	ss->nsenders = 0;
}

/* The DSCPs its pings came with (more than one: a path re-marks, or the
 * sender changed it), the last one's. */
static void print_dscp(struct out *o, const struct session *s)
{
	bool first = true;

	out_arr(o, "dscp");
	for (int d = 0; d < 64; d++) {
		if (!(s->dscp_seen & (1ULL << d)))
			continue;
		out_u64(o, NULL, first ? ", dscp %" PRIu64 : ",%" PRIu64, (uint64_t)d);
		first = false;
	}
	out_arr_end(o);
	if (s->dscp_seen)
		out_u64(o, "dscp_last", s->dscp_seen & (s->dscp_seen - 1) ? " (last %" PRIu64 ")" :
			NULL, s->dscp_last);
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
	out_u64(o, "rate_limited", s->rate_limited ? ", above --max-rate %" PRIu64 : NULL,
		s->rate_limited);
	out_u64(o, "missing_tx_ts", NULL, s->missing_tx_ts);
	out_u64(o, "missing_rx_ts", NULL, s->missing_rx_ts);
	print_dscp(o, s);
	out_obj(o, "response");
	out_u64(o, "samples", NULL, s->resp_n);
	if (s->resp_n) {
		out_us(o, "min", ", response min %.3f", s->resp_min);
		out_us_dbl(o, "avg", " avg %.3f", s->resp_sum / (double)s->resp_n);
		out_us(o, "max", " max %.3f us", s->resp_max);
	}
	out_obj_end(o);
	out_text(o, "\n");
	out_obj_end(o);
}

/* Reflector: the addresses refused, evicted or replaying, one line. */
static void print_turned_away(struct out *o, const struct sessions_snap *ss)
{
	char addr[INET6_ADDRSTRLEN + 16];

	out_arr(o, "sessions_turned_away");
	if (ss->nsenders)
		out_text(o, "  turned away:");
	for (size_t i = 0; i < ss->nsenders; i++) {
		const struct session_sender *x = &ss->senders[i];

		session_sockaddr_str(&x->addr, false, addr, sizeof(addr));
		out_obj(o, NULL);
		out_text(o, "%s", i ? "; " : " ");
		out_str(o, "address", "%s", addr);
		out_u64(o, "refused", x->refused ? " refused %" PRIu64 : NULL, x->refused);
		out_u64(o, "evicted", x->evicted ? " evicted %" PRIu64 : NULL, x->evicted);
		out_u64(o, "replayed", x->replayed ? " replayed %" PRIu64 : NULL, x->replayed);
		out_obj_end(o);
	}
	out_arr_end(o);
	if (ss->nsenders)
		out_text(o, ss->senders_more ? "; and %" PRIu64 " more\n" : "\n", ss->senders_more);
}

/* Reflector: each emitter run it served, as the table held them. */
void sessions_print(struct out *o, const struct sessions_snap *ss)
{
	out_text(o, "\nsessions (%zu now, %" PRIu64 " evicted, %" PRIu64 " refused, %" PRIu64
		 " replayed):\n", ss->n, ss->evicted, ss->refused, ss->replayed);
	out_u64(o, "sessions_evicted", NULL, ss->evicted);
	out_u64(o, "sessions_refused", NULL, ss->refused);
	out_u64(o, "sessions_replayed", NULL, ss->replayed);
	out_u64(o, "sessions_turned_away_more", NULL, ss->senders_more);
	print_turned_away(o, ss);
	out_arr(o, "sessions");
	for (size_t i = 0; i < ss->n; i++)
		print_session(o, &ss->v[i]);
	out_arr_end(o);
}
