/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

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

int cli_parse_seconds(const char *s, int64_t *ms)
{
	/* strtod would also take blanks, signs, hex, "inf" and "nan". */
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p);)
			p++;
	if (p == s || *p || (p == s + 1 && *s == '.'))
		return -EINVAL;
	double v = strtod(s, NULL) * 1000.0;
	if (!(v >= 0.5) || v > 2147483647.0)
		return -ERANGE;
	*ms = (int64_t)(v + 0.5);
	return 0;
}
