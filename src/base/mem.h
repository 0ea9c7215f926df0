/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory for the run's records and histograms: mapped, touched and so
 * resident before the first packet (mlockall keeps it there). With huge,
 * every allocation is mapped from the hugepage pool (2 MiB pages, sizes
 * rounded up); an empty pool fails with ENOMEM rather than falling back.
 */
#ifndef RANT_MEM_H
#define RANT_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* Zeroed, touched memory; NULL with errno set on failure. */
void *mem_alloc(size_t len, bool huge);
/* Free what mem_alloc(len, huge) returned, with the same len and huge. */
void mem_free(void *p, size_t len, bool huge);

#endif
