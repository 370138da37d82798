/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util/caret_util.h"

/* Reads the digits at *s, leaving *s after them. */
static int digits(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return 0;
}

int cli_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int r = digits(&s, &v);
	if (r < 0)
		return r;
	if (*s)
		return -EINVAL;
	if (v == 0 || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	return caret_parse_size(s, CLI_JSON_INT_MAX, out);
}

/* Milliseconds per unit of a duration's suffix; 0: not a unit. */
static double unit_ms(const char *u)
{
	static const struct {
		const char *name;
		double ms;
	} units[] = {
		{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 },
		{ "min", 60000 }, { "h", 3600000 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].ms;
	return 0;
}

int cli_parse_duration(const char *s, uint64_t max_ms, uint64_t *ms)
{
	/* strtod would also take blanks, signs, hex, exponents, "inf" and
	 * "nan": the number is scanned here, strtod only converts it. */
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p);)
			p++;
	if (p == s || (p == s + 1 && *s == '.'))
		return -EINVAL;
	double unit = unit_ms(p);
	if (unit == 0)
		return -EINVAL;
	double v = strtod(s, NULL) * unit;
	if (!(v >= 0.5) || v > (double)max_ms + 0.5)
		return -ERANGE;
	*ms = (uint64_t)(v + 0.5);
	return 0;
}

int cli_parse_timeout(const char *s, int64_t *ms)
{
	uint64_t v;
	int r = cli_parse_duration(s, INT32_MAX, &v);
	if (r == 0)
		*ms = (int64_t)v;
	return r;
}
