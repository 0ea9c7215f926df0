// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

#define HUGE_PAGE (2UL << 20)

static size_t mem_len(size_t len, bool huge)
{
	size_t page = huge ? HUGE_PAGE : 4096;

	return (len + page - 1) & ~(page - 1);
}

void *mem_alloc(size_t len, bool huge)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p;

	if (len == 0)
		len = 1;
	if (huge)
		flags |= MAP_HUGETLB;
	p = mmap(NULL, mem_len(len, huge), PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Touch every page now: no page fault inside the packet loop. */
	memset(p, 0, len);
	return p;
}

void mem_free(void *p, size_t len, bool huge)
{
	if (p)
		munmap(p, mem_len(len ? len : 1, huge));
}
