// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Numbers on the command line (see optnum.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optnum.h"

static int bad(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ns as a decimal number of units, without trailing zeros: "0.001". */
void optnum_units(char *buf, size_t len, int64_t ns, int64_t unit_ns)
{
	int64_t frac = ns % unit_ns;
	char digits[20] = "";
	int width = 0;

	for (int64_t u = unit_ns; u > 1 && width < 18; u /= 10)
		width++;
	for (int i = width - 1; i >= 0; i--, frac /= 10)
		digits[i] = (char)('0' + frac % 10);
	while (width > 0 && digits[width - 1] == '0')
		digits[--width] = '\0';
	snprintf(buf, len, "%" PRId64 "%s%s", ns / unit_ns, width ? "." : "", digits);
}

/*
 * s is a number as people write one ([+-]digits[.digits][e[+-]digits]),
 * though not in the digits-only form rant takes: its value in *v, so the
 * error can say "out of range" for -1 or 1e308 rather than "not a number".
 */
static bool written_number(const char *s, double *v)
{
	const char *p = s;
	char *end;
	bool digits = false;

	p += (*p == '+' || *p == '-');
	for (; *p >= '0' && *p <= '9'; p++)
		digits = true;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = true;
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		p += (*p == '+' || *p == '-');
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return false;
	*v = strtod(s, &end);
	return *end == '\0';
}

/*
 * s is not in rant's form: out of range if it is a number outside
 * [lo, hi] (in the option's units), else the form is what is wrong.
 */
static int bad_form(char *msg, size_t len, const char *s, double lo, double hi,
		    const char *range, bool integer)
{
	double v;

	if (!written_number(s, &v))
		return bad(msg, len, integer ? "'%s' is not a number: give an integer from %s" :
			   "'%s' is not a number: give a value from %s", s, range);
	if (v < lo || v > hi)
		return bad(msg, len, "%s is out of range. Must be in the range %s", s, range);
	return bad(msg, len, integer ? "'%s' is not written in digits only: give an integer from %s" :
		   "'%s' is not written in digits and a point only: give a value from %s",
		   s, range);
}

/* Integer in [lo, hi]: digits only (no sign, space or exponent). */
int optnum_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *msg,
	       size_t len)
{
	char range[64], *end;
	unsigned long long v;

	snprintf(range, sizeof(range), "%" PRIu64 " to %" PRIu64, lo, hi);
	if (*s < '0' || *s > '9')
		return bad_form(msg, len, s, (double)lo, (double)hi, range, true);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return bad_form(msg, len, s, (double)lo, (double)hi, range, true);
	if (errno == ERANGE || v < lo || v > hi)
		return bad(msg, len, "%s is out of range. Must be in the range %s", s, range);
	*out = v;
	return 0;
}

/*
 * Decimal number of units (unit_ns per unit, e.g. 1000 for US, or the
 * unit its suffix names: 200us, 1.5ms) to ns, without floating point:
 * "1.5" US is 1500 ns. Range in ns; a value too
 * large for int64 ns is out of range, never wrapped.
 */
/*
 * The unit a duration's suffix names (ns, us, ms, s, m, h) in ns, with
 * *end at the suffix; bare_ns when the number has none (or one rant does
 * not know, left for the caller to refuse).
 */
static int64_t suffix_unit(const char *s, int64_t bare_ns, const char **end)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "m", 60 * 1000000000LL }, { "h", 3600 * 1000000000LL },
	};
	const char *p = s;

	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	*end = NULL;
	if (p == s || !*p)
		return bare_ns;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].name)) {
			*end = p;
			return units[i].ns;
		}
	return bare_ns;
}

int optnum_ns(const char *s, int64_t unit_ns, int64_t lo_ns, int64_t hi_ns, int64_t *out,
	      char *msg, size_t len)
{
	char range[64], lo[24], hi[24];
	const char *p = s, *end;
	int64_t unit = suffix_unit(s, unit_ns, &end), ip = 0, frac = 0, scale = unit;
	bool digits = false, big = false;

	optnum_units(lo, sizeof(lo), lo_ns, unit_ns);
	optnum_units(hi, sizeof(hi), hi_ns, unit_ns);
	snprintf(range, sizeof(range), "%s to %s", lo, hi);
	for (; *p >= '0' && *p <= '9' && p != end; p++, digits = true) {
		if (ip > (INT64_MAX - 9) / 10)
			big = true;
		else
			ip = ip * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9' && p != end; p++, digits = true) {
			if (scale >= 10) {
				scale /= 10;
				frac += (*p - '0') * scale;
			} else if (*p != '0') {
				return bad(msg, len, "%s is finer than a nanosecond. Must be in the range %s, to 1 ns",
					   s, range);
			}
		}
	}
	if (!digits || (*p && p != end))
		return bad_form(msg, len, s, (double)lo_ns / (double)unit_ns,
				(double)hi_ns / (double)unit_ns, range, false);
	if (big || ip > (INT64_MAX - frac) / unit ||
	    ip * unit + frac < lo_ns || ip * unit + frac > hi_ns)
		return bad(msg, len, "%s is out of range. Must be in the range %s", s, range);
	*out = ip * unit + frac;
	return 0;
}
