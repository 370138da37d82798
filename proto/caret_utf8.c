/* SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>

#include "proto/caret_utf8.h"

/* Length of the valid sequence at p (at most n bytes), 0 if invalid. */
static size_t seq_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	uint32_t cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t caret_utf8_scrub(char *s, size_t n, bool controls)
{
	unsigned char *p = (unsigned char *)s;
	size_t fixed = 0;
	for (size_t i = 0; i < n;) {
		size_t len = seq_len(p + i, n - i);
		if (len == 0 || (controls && len == 1 && (p[i] < 0x20 || p[i] == 0x7f))) {
			p[i++] = '?';
			fixed++;
			continue;
		}
		i += len;
	}
	return fixed;
}
