// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fleet's table of targets (see fleettab.h). The address index is
 * open addressing with linear probing over at least twice the slots,
 * deletion by shifting the run back (no tombstones: a long run of
 * reloads never slows a look-up).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fleettab.h"
#include "mem.h"

size_t fleettab_target_bytes(unsigned int npaths)
{
	size_t b = sizeof(struct fleet_target) + TARGET_LABEL_LEN +
		   latstat_bytes(FLEET_TARGET_BITS) + 2 * 2 * sizeof(uint32_t);

	if (npaths > 1)
		b += npaths * (sizeof(struct fleet_path) + latstat_bytes(FLEET_PATH_BITS));
	return b;
}

size_t fleettab_cap(size_t n)
{
	size_t room = n / 4 > 64 ? n / 4 : 64;

	return n + room > TARGETS_MAX ? TARGETS_MAX : n + room;
}

/* Each slot's counters: the target's, then its paths'. */
static size_t slot_counters(unsigned int npaths)
{
	return latstat_bytes(FLEET_TARGET_BITS) +
	       (npaths > 1 ? npaths * latstat_bytes(FLEET_PATH_BITS) : 0);
}

static uint32_t *slot_mem(const struct fleet *f, size_t i)
{
	return (uint32_t *)((char *)f->mem + i * slot_counters(f->npaths));
}

int fleettab_create(struct fleet **out, size_t cap, unsigned int npaths, int family, bool huge)
{
	struct fleet *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->cap = cap;
	f->npaths = npaths;
	f->family = family;
	f->huge = huge;
	for (f->nhash = 64; f->nhash < 2 * cap; f->nhash *= 2)
		;
	f->t = calloc(cap, sizeof(*f->t));
	f->names = calloc(cap, TARGET_LABEL_LEN);
	f->hash = calloc(f->nhash, sizeof(*f->hash));
	f->mem_len = cap * slot_counters(npaths);
	f->mem = mem_alloc(f->mem_len, huge);
	for (size_t i = 0; f->t && npaths > 1 && i < cap; i++)
		if (!(f->t[i].path = calloc(npaths, sizeof(struct fleet_path))))
			break;
	if (!f->t || !f->names || !f->hash || !f->mem ||
	    (npaths > 1 && !f->t[cap - 1].path)) {
		fleettab_destroy(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void fleettab_destroy(struct fleet *f)
{
	if (!f)
		return;
	for (size_t i = 0; f->t && i < f->cap; i++)
		free(f->t[i].path);
	free(f->t);
	free(f->names);
	free(f->hash);
	if (f->mem)
		mem_free(f->mem, f->mem_len, f->huge);
	free(f);
}

/* The index key of an address: 16 octets (IPv4 mapped), the port and
 * what carries the probes (target_proto_of). */
static void key_of(const struct sockaddr_storage *a, int kind, uint8_t *k)
{
	k[18] = (uint8_t)target_proto_of(kind);
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)a;

		memset(k, 0, 10);
		k[10] = k[11] = 0xff;
		memcpy(k + 12, &in->sin_addr, 4);
		memcpy(k + 16, &in->sin_port, 2);
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)a;

		memcpy(k, &in6->sin6_addr, 16);
		memcpy(k + 16, &in6->sin6_port, 2);
	}
}

static size_t key_hash(const uint8_t *k, size_t mask)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (int i = 0; i < FLEETTAB_KEY_LEN; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 32)) & mask;
}

static void gen_bump(struct fleet_target *t)
{
	atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
}

/* Slot t's state s, the count of those RETIRED kept. */
static void set_state(struct fleet *f, struct fleet_target *t, enum fleet_state s)
{
	f->retired -= t->state == FLEET_RETIRED;
	f->retired += s == FLEET_RETIRED;
	t->state = s;
}

void fleettab_fill(struct fleet *f, size_t i, const struct target_spec *spec, uint32_t session,
		   int tos)
{
	struct fleet_target *t = &f->t[i];
	uint32_t *mem = slot_mem(f, i);
	struct fleet_path *path = t->path;

	gen_bump(t);
	atomic_thread_fence(memory_order_release);
	set_state(f, t, FLEET_TAKEN);
	t->spec = *spec;
	key_of(&spec->addr, spec->kind, t->key);
	t->to = spec->addr;
	t->to_len = spec->addr_len;
	if (f->family == AF_INET6 && spec->addr.ss_family == AF_INET) {
		struct sockaddr_in6 *m = (struct sockaddr_in6 *)&t->to;

		memset(m, 0, sizeof(*m));
		m->sin6_family = AF_INET6;
		memcpy(&m->sin6_addr, t->key, 16);
		memcpy(&m->sin6_port, t->key + 16, 2);
		t->to_len = sizeof(*m);
	}
	t->session = session;
	t->tos = tos;
	t->added_ns = 0;
	t->retired_mono = 0;
	memset(&t->cnt, 0, sizeof(t->cnt));
	latstat_init(&t->rtt, mem, FLEET_TARGET_BITS);
	mem = (uint32_t *)((char *)mem + latstat_bytes(FLEET_TARGET_BITS));
	for (unsigned int p = 0; path && p < f->npaths; p++) {
		memset(&path[p].cnt, 0, sizeof(path[p].cnt));
		latstat_init(&path[p].rtt, mem, FLEET_PATH_BITS);
		mem = (uint32_t *)((char *)mem + latstat_bytes(FLEET_PATH_BITS));
	}
	snprintf(f->names + i * TARGET_LABEL_LEN, TARGET_LABEL_LEN, "%s", spec->label);
	if (i >= f->used)
		f->used = i + 1;
	gen_bump(t);
}

void fleettab_activate(struct fleet *f, size_t i, int64_t now_real)
{
	struct fleet_target *t = &f->t[i];
	size_t mask = f->nhash - 1, h = key_hash(t->key, mask);

	while (f->hash[h])
		h = (h + 1) & mask;
	f->hash[h] = (uint32_t)i + 1;
	gen_bump(t);
	t->added_ns = now_real;
	set_state(f, t, FLEET_ACTIVE);
	gen_bump(t);
}

/* Take slot i's entry out of the index, the run behind it shifted back. */
static void unhash(struct fleet *f, size_t i)
{
	size_t mask = f->nhash - 1, h = key_hash(f->t[i].key, mask), j;

	while (f->hash[h] != i + 1) {
		if (!f->hash[h])
			return;
		h = (h + 1) & mask;
	}
	f->hash[h] = 0;
	for (j = (h + 1) & mask; f->hash[j]; j = (j + 1) & mask) {
		size_t home = key_hash(f->t[f->hash[j] - 1].key, mask);

		/* j's entry may fill the hole at h unless its home lies
		 * (cyclically) in (h, j] */
		if (((j - home) & mask) >= ((j - h) & mask)) {
			f->hash[h] = f->hash[j];
			f->hash[j] = 0;
			h = j;
		}
	}
}

void fleettab_retire(struct fleet *f, size_t i, int64_t now_mono)
{
	struct fleet_target *t = &f->t[i];

	unhash(f, i);
	gen_bump(t);
	set_state(f, t, FLEET_RETIRED);
	t->retired_mono = now_mono;
	gen_bump(t);
}

/* The slot a reload may fill for address k: one whose target had it,
 * retired (its pongs and stamps in flight are told apart by its session
 * id and send keys, its log rows by its name, all its own); or cap. */
static size_t retired_with(const struct fleet *f, const uint8_t *k)
{
	for (size_t i = 0; f->retired && i < f->used; i++)
		if (f->t[i].state == FLEET_RETIRED && !memcmp(f->t[i].key, k, FLEETTAB_KEY_LEN))
			return i;
	return f->cap;
}

size_t fleettab_take(struct fleet *f, const struct sockaddr_storage *a, int kind,
		     int64_t now_mono)
{
	uint8_t k[FLEETTAB_KEY_LEN];
	size_t best;

	key_of(a, kind, k);
	best = retired_with(f, k);
	if (best == f->cap && f->used < f->cap)
		best = f->used++;
	for (size_t i = 0; best == f->cap && i < f->cap; i++) {
		const struct fleet_target *t = &f->t[i];

		if (t->state == FLEET_FREE) {
			best = i;
			break;
		}
		if (t->state == FLEET_RETIRED && now_mono - t->retired_mono >= FLEETTAB_GRACE_NS &&
		    (best == f->cap || t->retired_mono < f->t[best].retired_mono))
			best = i;
	}
	if (best < f->cap)
		set_state(f, &f->t[best], FLEET_TAKEN);
	return best;
}

long fleettab_find(const struct fleet *f, const struct sockaddr_storage *a, int kind)
{
	uint8_t k[FLEETTAB_KEY_LEN];
	size_t mask = f->nhash - 1, h;

	key_of(a, kind, k);
	for (h = key_hash(k, mask); f->hash[h]; h = (h + 1) & mask) {
		size_t i = f->hash[h] - 1;

		if (!memcmp(f->t[i].key, k, FLEETTAB_KEY_LEN))
			return (long)i;
	}
	return -1;
}

unsigned int fleettab_read_begin(const struct fleet *f, size_t i)
{
	return atomic_load_explicit(&f->t[i].gen, memory_order_acquire);
}

bool fleettab_read_end(const struct fleet *f, size_t i, unsigned int gen)
{
	atomic_thread_fence(memory_order_acquire);
	return !(gen & 1) &&
	       atomic_load_explicit(&f->t[i].gen, memory_order_relaxed) == gen;
}
