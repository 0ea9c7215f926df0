// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A session's recent sequence numbers (see seqrep.h): a ring of
 * SEQREP_N, the oldest number's entry taken by a new one.
 */
#include "seqrep.h"

/* The entry of seq, or -1. */
static int find(const struct seqrep *q, uint64_t seq)
{
	for (int i = 0; i < SEQREP_N; i++)
		if (q->n[i] && q->seq[i] == seq)
			return i;
	return -1;
}

bool seqrep_ok(const struct seqrep *q, uint64_t seq)
{
	int i = find(q, seq);

	return i < 0 || (!q->own[i] && q->n[i] < SEQREP_MAX);
}

void seqrep_note(struct seqrep *q, uint64_t req_seq, uint64_t reply_seq)
{
	int i = find(q, reply_seq);

	if (i < 0) {
		i = q->next;
		q->next = (uint8_t)((q->next + 1) % SEQREP_N);
		q->seq[i] = reply_seq;
		q->n[i] = 0;
		q->own[i] = false;
	}
	if (q->n[i] < UINT8_MAX)
		q->n[i]++;
	q->own[i] |= reply_seq != req_seq;
}
