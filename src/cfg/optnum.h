/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Numbers on the command line (opts.c reads every option's through
 * these): an integer written in digits only, or a decimal number of
 * units (1.5, 200us, 10m) turned into int64 ns without floating point, each in a
 * range. A rejection names what is wrong in one line: "out of range.
 * Must be in the range LO to HI" for any number outside it (-1, 1e308
 * too), "not a number", or a form rant does not take (1e3, +5).
 */
#ifndef RANT_OPTNUM_H
#define RANT_OPTNUM_H

#include <stddef.h>
#include <stdint.h>

/* An integer in [lo, hi] into *out: 0, or -1 with the line in msg. */
int optnum_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *msg,
	       size_t len);
/* A duration: a decimal number of units, unit_ns ns each or the unit its
 * suffix names (ns, us, ms, s, m, h: 200us, 10m), in [lo_ns, hi_ns] ns
 * into *out: 0, or -1 with the line in msg (finer than a ns is refused;
 * the range is said in unit_ns). */
int optnum_ns(const char *s, int64_t unit_ns, int64_t lo_ns, int64_t hi_ns, int64_t *out,
	      char *msg, size_t len);
/* ns as a decimal number of units, without trailing zeros: "0.001". */
void optnum_units(char *buf, size_t len, int64_t ns, int64_t unit_ns);

#endif
