/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Why babeltrace2 could not index a stream file, from the ctf plugin's
 * log (issue 33 C3): a packet whose header claims more bytes than the file
 * has left is a stream file cut short, said with its numbers as `check`
 * says a truncated metadata file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The decimal after key= in line (before eol), or -1. */
static long long field(const char *line, const char *eol, const char *key)
{
	const char *k = strstr(line, key);
	if (!k || (eol && k > eol))
		return -1;
	char *end;
	long long v = strtoll(k + strlen(key), &end, 10);
	return end == k + strlen(key) || v < 0 ? -1 : v;
}

void check_bt_stream_reason(const char *log, char *err, size_t errlen)
{
	static const char tag[] = "Invalid packet size reported in file:";
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *t = strstr(l, tag);
		const char *eol = strchr(l, '\n');
		if (!t || (eol && t > eol))
			continue;
		long long off = field(t, eol, "packet-offset="),
			  size = field(t, eol, "packet-size-bytes="),
			  fsize = field(t, eol, "file-size=");
		if (off < 0 || size < 0 || fsize < off)
			return;
		size_t n = strlen(err);
		snprintf(err + n, errlen > n ? errlen - n : 0,
			 "; truncated: the packet at byte %lld holds %lld bytes but the file "
			 "ends %lld bytes into it", off, size, fsize - off);
		return;
	}
}
