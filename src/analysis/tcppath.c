// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The path's round trip as it was at each moment (tcppath.h): each leg
 * keeps its last TCPANA_PATH_RECENT samples and its least; "at t" is the median and the largest of the samples of the
 * TCPANA_PATH_WINDOW_NS before t. The median says how far the path's
 * RTT grew (a queue); the largest is what an exchange's wait must
 * exceed before any of it is the server's.
 */
#include <stdlib.h>
#include <string.h>

#include "tcppath.h"

void tcpana_path_init(struct tcpana_path *p)
{
	memset(p, 0, sizeof(*p));
	p->leg[0].idle_ns = p->leg[1].idle_ns = -1;
}

void tcpana_path_sample(struct tcpana_path *p, enum tcpseg_dir leg, int64_t t_ns, int64_t rtt_ns)
{
	struct tcpana_path_leg *l = &p->leg[leg & 1];

	if (rtt_ns < 0)
		return;
	if (l->idle_ns < 0 || rtt_ns < l->idle_ns)
		l->idle_ns = rtt_ns;
	l->samples++;
	l->recent[(l->head + l->n) % TCPANA_PATH_RECENT].t_ns = t_ns;
	l->recent[(l->head + l->n) % TCPANA_PATH_RECENT].rtt_ns = rtt_ns;
	if (l->n < TCPANA_PATH_RECENT)
		l->n++;
	else
		l->head = (l->head + 1) % TCPANA_PATH_RECENT;
}

/* v[0..n) in order: an insertion sort, for a leg's few samples (at most
 * TCPANA_PATH_RECENT): called at every exchange's end, it is --read's
 * hot path, where qsort()'s calls through a pointer cost a tenth of the
 * run. */
static void sort_few(int64_t *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++) {
		int64_t x = v[i];
		unsigned int j = i;

		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

bool tcpana_path_at(const struct tcpana_path *p, enum tcpseg_dir leg, int64_t t_ns,
		    int64_t *median_ns, int64_t *max_ns)
{
	const struct tcpana_path_leg *l = &p->leg[leg & 1];
	int64_t v[TCPANA_PATH_RECENT];
	unsigned int n = 0;

	for (unsigned int i = 0; i < l->n; i++) {
		unsigned int k = (l->head + i) % TCPANA_PATH_RECENT;
		int64_t age = t_ns - l->recent[k].t_ns;

		if (age >= 0 && age <= TCPANA_PATH_WINDOW_NS)
			v[n++] = l->recent[k].rtt_ns;
	}
	if (!n)
		return false;
	sort_few(v, n);
	*median_ns = v[(n - 1) / 2];
	*max_ns = v[n - 1];
	return true;
}
