/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/log/spsc.h: the record ring between the loop and the log's writer:
 * capacity, full, wrap-around, order, and a producer and a consumer
 * thread at once (every record arrives once, in order, or was refused).
 */
#include <pthread.h>
#include <stdlib.h>

#include "record.h"
#include "spsc.h"
#include "tap.h"

static struct txrec rec_of(uint64_t seq)
{
	struct txrec r;

	txrec_clear(&r);
	r.seq = seq;
	r.t1_sw = (int64_t)seq * 3;
	return r;
}

static void test_capacity(void)
{
	is_u64(spsc_capacity(1), 1, "capacity of 1: 1");
	is_u64(spsc_capacity(1000), 1024, "1000 rounds up to 1024");
	is_u64(spsc_capacity(1024), 1024, "a power of two stays");
	is_u64(spsc_capacity(1025), 2048, "1025 rounds up to 2048");
}

/* Fill, refuse, take some, wrap around several times: order kept. */
static void test_single_thread(void)
{
	struct txrec slot[8];
	struct spsc q;
	uint64_t first, next = 1, pushed = 0;
	bool order = true, full_refused = true;
	size_t n;

	spsc_init(&q, slot, 8);
	n = spsc_ready(&q, &first);
	is_u64(n, 0, "empty ring: nothing ready");
	for (uint64_t s = 1; s <= 8; s++) {
		struct txrec r = rec_of(s);

		ok(spsc_push(&q, &r), "push %llu of 8", (unsigned long long)s);
	}
	{
		struct txrec r = rec_of(9);

		ok(!spsc_push(&q, &r), "full: push refused");
	}
	n = spsc_ready(&q, &first);
	is_u64(n, 8, "8 ready");
	is_u64(spsc_at(&q, first)->seq, 1, "the oldest first");
	spsc_release(&q, 3);
	n = spsc_ready(&q, &first);
	is_u64(n, 5, "5 ready after 3 released");
	is_u64(spsc_at(&q, first)->seq, 4, "the oldest is 4");
	pushed = 8;
	next = 4;
	/* Wrap many times: push 3, take 2, and so on, checking each. */
	for (int round = 0; round < 100; round++) {
		for (int i = 0; i < 3; i++) {
			struct txrec r = rec_of(pushed + 1);

			if (spsc_push(&q, &r))
				pushed++;
			else if (pushed - next + 1 < 8)
				full_refused = false;	/* refused with room */
		}
		n = spsc_ready(&q, &first);
		for (size_t i = 0; i < n && i < 2; i++)
			if (spsc_at(&q, first + i)->seq != next++ ||
			    spsc_at(&q, first + i)->t1_sw != (int64_t)(next - 1) * 3)
				order = false;
		spsc_release(&q, n < 2 ? n : 2);
	}
	ok(order, "wrapped 100 rounds: records come out whole, in order");
	ok(full_refused, "a push is refused only when 8 are held");
	n = spsc_ready(&q, &first);
	is_u64(n, pushed - next + 1, "what is ready is what was pushed and not taken");
}

struct stress {
	struct spsc q;
	uint64_t total;		/* records the producer tries */
	uint64_t refused;
	uint64_t got, bad;
};

static void *producer(void *arg)
{
	struct stress *st = arg;

	for (uint64_t s = 1; s <= st->total; s++) {
		struct txrec r = rec_of(s);

		if (!spsc_push(&st->q, &r))
			st->refused++;
	}
	return NULL;
}

/*
 * Two threads at once: every record the producer's push accepted comes
 * out once, whole, with seqs rising; accepted + refused == tried.
 */
static void test_threads(void)
{
	static struct txrec slot[1024];
	struct stress st = { .total = 2000000 };
	uint64_t prev = 0, first;
	pthread_t tid;
	bool done = false;

	spsc_init(&st.q, slot, 1024);
	pthread_create(&tid, NULL, producer, &st);
	while (!done) {
		size_t n;

		/* The producer is done when it stops; drain once more after. */
		done = pthread_tryjoin_np(tid, NULL) == 0;
		n = spsc_ready(&st.q, &first);
		for (size_t i = 0; i < n; i++) {
			const struct txrec *r = spsc_at(&st.q, first + i);

			if (r->seq <= prev || r->t1_sw != (int64_t)r->seq * 3)
				st.bad++;
			prev = r->seq;
		}
		st.got += n;
		spsc_release(&st.q, n);
		if (done && spsc_ready(&st.q, &first))
			done = false;	/* pushed before it ended */
	}
	is_u64(st.bad, 0, "every record whole and in order across threads");
	is_u64(st.got + st.refused, st.total,
	       "taken %llu + refused %llu == pushed",
	       (unsigned long long)st.got, (unsigned long long)st.refused);
	ok(st.got > 0, "the consumer took records");
}

int main(void)
{
	test_capacity();
	test_single_thread();
	test_threads();
	return done_testing();
}
