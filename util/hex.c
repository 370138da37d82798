/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "util/caret_util.h"

void caret_hex(char *out, const char *s)
{
	static const char d[] = "0123456789abcdef";
	for (; *s; s++) {
		*out++ = d[(unsigned char)*s >> 4];
		*out++ = d[(unsigned char)*s & 15];
	}
	*out = '\0';
}

int caret_unhex(const char *h, char *out, size_t cap)
{
	size_t n = strlen(h);
	if (n == 0 || n % 2 || n / 2 >= cap)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = h[i + k];
			int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
			if (x < 0)
				return -EINVAL;
			v = v * 16 + x;
		}
		if (v == 0)
			return -EINVAL;
		out[i / 2] = (char)v;
	}
	out[n / 2] = '\0';
	return 0;
}
