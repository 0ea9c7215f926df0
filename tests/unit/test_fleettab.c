/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/run/fleettab.h: a fleet's table. Targets are found by the address
 * their pongs come from (IPv4 as it is and IPv4-mapped, IPv6), only while
 * active; thousands of random activations and retirements keep the index
 * exact (a reference set agrees at every step); a retired slot is filled
 * again only after its grace; a fill zeroes the counts; the bytes per
 * target are what the docs say.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "fleettab.h"
#include "tap.h"

#define CAP 1500

static struct target_spec spec4(uint32_t host, uint16_t port)
{
	struct target_spec t = { .port = port, .dscp = -1 };
	struct sockaddr_in *in = (struct sockaddr_in *)&t.addr;

	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(0x0a000000u | host);
	in->sin_port = htons(port);
	t.addr_len = sizeof(*in);
	targets_name(&t.addr, t.name, sizeof(t.name));
	snprintf(t.label, sizeof(t.label), "%s", t.name);
	return t;
}

static struct sockaddr_storage mapped(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)a;
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *m = (struct sockaddr_in6 *)&ss;

	m->sin6_family = AF_INET6;
	m->sin6_addr.s6_addr[10] = m->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&m->sin6_addr.s6_addr[12], &in->sin_addr, 4);
	m->sin6_port = in->sin_port;
	return ss;
}

/* Random activations and retirements against a reference. */
static int churn(struct fleet *f)
{
	static bool on[CAP];
	int bad = 0;

	srand(3);
	for (int step = 0; step < 20000; step++) {
		size_t i = (size_t)rand() % CAP;
		struct target_spec t = spec4((uint32_t)i, 7);

		if (!on[i]) {
			fleettab_fill(f, i, &t, (uint32_t)i, 0);
			fleettab_activate(f, i, 1);
		} else {
			fleettab_retire(f, i, 1);
		}
		on[i] = !on[i];
		if (step % 97)
			continue;
		for (size_t j = 0; j < CAP; j++) {
			struct target_spec q = spec4((uint32_t)j, 7);

			if (fleettab_find(f, &q.addr, TARGET_RANT) != (on[j] ? (long)j : -1))
				bad++;
		}
	}
	return bad;
}

/* A table filled once, some retired, then reloads: every slot handed out
 * once until it is retired again; a target added back takes its own. */
static void take_reclaim_take(void)
{
	struct target_spec t[12];
	struct fleet *f;
	size_t got[4], i;

	if (!ok(fleettab_create(&f, 4, 1, AF_INET, false) == 0, "create 4 slots"))
		return;
	for (i = 0; i < 12; i++)
		t[i] = spec4((uint32_t)(100 + i), 7);
	for (i = 0; i < 4; i++) {
		got[i] = fleettab_take(f, &t[i].addr, TARGET_RANT, 0);
		fleettab_fill(f, got[i], &t[i], (uint32_t)i, 0);
		fleettab_activate(f, got[i], 1);
	}
	ok(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3, "set-up: slots 0 to 3");
	is_int(fleettab_take(f, &t[4].addr, TARGET_RANT, 0), 4, "full: no slot");
	for (i = 0; i < 3; i++)
		fleettab_retire(f, i, 10);
	for (i = 0; i < 3; i++)
		got[i] = fleettab_take(f, &t[4 + i].addr, TARGET_RANT, 10 + FLEETTAB_GRACE_NS);
	ok(got[0] < 3 && got[1] < 3 && got[2] < 3 && got[0] != got[1] && got[1] != got[2] &&
	   got[0] != got[2], "three reclaimed slots taken once each: %zu %zu %zu", got[0], got[1],
	   got[2]);
	is_int(fleettab_take(f, &t[7].addr, TARGET_RANT, 10 + FLEETTAB_GRACE_NS), 4,
	       "a fourth take: none left, none taken twice");
	for (i = 0; i < 3; i++) {
		fleettab_fill(f, got[i], &t[4 + i], (uint32_t)(4 + i), 0);
		fleettab_activate(f, got[i], 2);
	}
	fleettab_retire(f, 3, 20);
	is_int(fleettab_take(f, &t[8].addr, TARGET_RANT, 21), 4, "another address: the grace holds");
	is_int(fleettab_take(f, &t[3].addr, TARGET_RANT, 21), 3, "the target removed and added back: its slot");
	is_int(fleettab_take(f, &t[3].addr, TARGET_RANT, 21), 4, "and only once");
	fleettab_destroy(f);
}

int main(void)
{
	struct target_spec a = spec4(2, 12345), b = spec4(2, 12346), t;
	struct sockaddr_storage m;
	struct fleet *f;
	unsigned int gen;
	size_t i;

	is_int(fleettab_cap(1000), 1250, "1000 targets: 1250 slots");
	is_int(fleettab_cap(10), 74, "10 targets: 64 more");
	diag("bytes a target: %zu (1 path), %zu (16 paths)", fleettab_target_bytes(1),
	     fleettab_target_bytes(16));
	ok(fleettab_target_bytes(1) < 18 * 1024, "one path: under 18 KiB a target");
	ok(fleettab_target_bytes(16) < 96 * 1024, "16 paths: under 96 KiB a target");
	if (!ok(fleettab_create(&f, CAP, 4, AF_INET6, false) == 0, "create"))
		return done_testing();
	fleettab_fill(f, 0, &a, 11, 46 << 2);
	is_int(fleettab_find(f, &a.addr, TARGET_RANT), -1, "filled, not active: not found");
	fleettab_activate(f, 0, 5);
	is_int(fleettab_find(f, &a.addr, TARGET_RANT), 0, "active: found");
	m = mapped(&a.addr);
	is_int(fleettab_find(f, &m, TARGET_RANT), 0, "found by its IPv4-mapped address too");
	is_int(fleettab_find(f, &b.addr, TARGET_RANT), -1, "another port: not found");
	is_int(fleettab_find(f, &a.addr, TARGET_SYN), -1, "another protocol: not found");
	is_int(fleettab_find(f, &a.addr, TARGET_STAMP), 0, "stamp's, carried as rant's: found");
	is_int(f->t[0].to.ss_family, AF_INET6, "pings go to the IPv4-mapped address (IPv6 sockets)");
	is_str(fleettab_name(f, 0), "10.0.0.2:12345", "its name");
	f->t[0].cnt.sent = 9;
	latstat_add(&f->t[0].rtt, 1000, 1);
	latstat_add(&f->t[0].path[3].rtt, 1000, 1);
	gen = fleettab_read_begin(f, 0);
	ok(fleettab_read_end(f, 0, gen), "a read without a change holds");
	fleettab_retire(f, 0, 100);
	ok(!fleettab_read_end(f, 0, gen), "a read across a retirement does not");
	is_int(fleettab_find(f, &a.addr, TARGET_RANT), -1, "retired: not found");
	f->used = CAP;
	for (i = 0; i < CAP; i++)
		f->t[i].state = i ? FLEET_ACTIVE : FLEET_RETIRED;
	t = spec4(9, 1);
	is_int(fleettab_take(f, &t.addr, TARGET_RANT, 100 + FLEETTAB_GRACE_NS - 1), CAP,
	       "no slot within the grace");
	is_int(fleettab_take(f, &t.addr, TARGET_RANT, 100 + FLEETTAB_GRACE_NS), 0, "the retired slot after it");
	t = spec4(9, 1);
	fleettab_fill(f, 0, &t, 12, 0);
	ok(f->t[0].cnt.sent == 0 && f->t[0].rtt.m.n == 0 && f->t[0].path[3].rtt.m.n == 0,
	   "a fill zeroes the counts, the target's and its paths'");
	fleettab_destroy(f);
	take_reclaim_take();
	fleettab_create(&f, CAP, 1, AF_INET, false);
	is_int(churn(f), 0, "20000 activations and retirements: the index exact");
	fleettab_destroy(f);
	return done_testing();
}
