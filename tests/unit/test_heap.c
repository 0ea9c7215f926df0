/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/base/heap.h: the binary heap over the caller's array. Against
 * plain arrays, over random pushes, pops and changes in place: the top
 * always the least, every parent before its children, every place told
 * (moved) right; large elements moved whole; the N largest of a stream
 * kept, as watchagg.c keeps the worst flows.
 */
#include <stdint.h>
#include <stdlib.h>

#include "heap.h"
#include "tap.h"

#define CAP 300

struct ent {
	int64_t key;
	uint32_t id;
};

static bool ent_before(const void *a, const void *b)
{
	return ((const struct ent *)a)->key < ((const struct ent *)b)->key;
}

static void ent_moved(void *ctx, const void *e, size_t i)
{
	((size_t *)ctx)[((const struct ent *)e)->id] = i;
}

static const struct heap_ops ent_ops = {
	.size = sizeof(struct ent), .before = ent_before, .moved = ent_moved,
};
static const struct heap_ops plain_ops = { .size = sizeof(struct ent), .before = ent_before };

/* Every parent before none of its children; every place right. */
static int broken(const struct ent *v, size_t n, const size_t *pos)
{
	int bad = 0;

	for (size_t i = 1; i < n; i++)
		bad += v[i].key < v[(i - 1) / 2].key;
	for (size_t i = 0; i < n; i++)
		bad += pos[v[i].id] != i;
	return bad;
}

static void test_random(void)
{
	static struct ent v[CAP];
	static size_t pos[CAP];
	static bool in[CAP];
	static int64_t key[CAP];
	size_t n = 0;
	int bad = 0, pops = 0;

	srand(5);
	for (int step = 0; step < 100000; step++) {
		uint32_t id = (uint32_t)rand() % CAP;
		int what = rand() % 3;

		if (what == 0 && n) {		/* the top out: the last in its place */
			size_t i;
			int64_t least = INT64_MAX;

			for (i = 0; i < CAP; i++)
				if (in[i] && key[i] < least)
					least = key[i];
			bad += v[0].key != least || key[v[0].id] != least;
			in[v[0].id] = false;
			n--;
			if (n)
				heap_down(v, n, 0, &v[n], &ent_ops, pos);
			pops++;
		} else if (!in[id]) {		/* in at the end */
			key[id] = rand() % 500;
			in[id] = true;
			heap_up(v, n++, &(struct ent){ .key = key[id], .id = id }, &ent_ops, pos);
		} else {			/* its key changed in place */
			struct ent e = { .key = rand() % 500, .id = id };

			key[id] = e.key;
			heap_down(v, n, heap_up(v, pos[id], &e, &ent_ops, pos), &e, &ent_ops, pos);
		}
		bad += broken(v, n, pos);
	}
	is_int(bad, 0, "100000 steps (%d pops): the top the least, the order and places kept",
	       pops);
}

/* 200 bytes a element. */
struct big {
	uint32_t key;
	uint8_t fill[196];	/* the key's low byte throughout */
};

static bool big_before(const void *a, const void *b)
{
	return ((const struct big *)a)->key < ((const struct big *)b)->key;
}

static const struct heap_ops big_ops = { .size = sizeof(struct big), .before = big_before };

static void test_big(void)
{
	static struct big v[64];
	uint32_t last = 0;
	int bad = 0;
	size_t n = 0;

	srand(9);
	for (; n < 64; n++) {
		struct big e = { .key = (uint32_t)rand() % 100000 };

		memset(e.fill, (int)(e.key & 0xff), sizeof(e.fill));
		heap_up(v, n, &e, &big_ops, NULL);
	}
	while (n) {
		for (size_t i = 0; i < sizeof(v[0].fill); i++)
			bad += v[0].fill[i] != (uint8_t)v[0].key;
		bad += v[0].key < last;
		last = v[0].key;
		if (--n)
			heap_down(v, n, 0, &v[n], &big_ops, NULL);
	}
	is_int(bad, 0, "elements of 200 bytes: moved whole, popped in order");
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The 16 largest of a stream: the least kept at the top, a larger value
 * takes its place. */
static void test_keep_largest(void)
{
	static int64_t all[5000];
	struct ent v[16];
	int64_t kept[16];
	size_t n = 0;
	int bad = 0;

	srand(3);
	for (size_t i = 0; i < 5000; i++) {
		struct ent e = { .key = rand() % 100000, .id = (uint32_t)i };

		all[i] = e.key;
		if (n < 16)
			heap_up(v, n++, &e, &plain_ops, NULL);
		else if (e.key > v[0].key)
			heap_down(v, n, 0, &e, &plain_ops, NULL);
	}
	qsort(all, 5000, sizeof(all[0]), cmp_desc);
	for (size_t i = 0; i < 16; i++)
		kept[i] = v[i].key;
	qsort(kept, 16, sizeof(kept[0]), cmp_desc);
	for (size_t i = 0; i < 16; i++)
		bad += kept[i] != all[i];
	is_int(bad, 0, "the 16 largest of 5000 kept");
}

int main(void)
{
	test_random();
	test_big();
	test_keep_largest();
	return done_testing();
}
