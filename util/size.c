/* SPDX-License-Identifier: Apache-2.0 */
/* Byte sizes given by users (environment, command lines), one parser for
 * the agent, caretd and caretctl. */
#include <errno.h>

#include "util/caret_util.h"

int caret_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	unsigned shift = 0;
	switch (*s) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (shift && s[1])
		return -EINVAL;
	/* Checked before shifting: an overflowing shift would wrap into range. */
	if (v == 0 || v > (max >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}
