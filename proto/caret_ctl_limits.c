/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/caret_ctl_limits.h"
#include "util/caret_err.h"

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

uint64_t caret_ctl_subbuf_size_min(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 && (uint64_t)p > CARET_CTL_SUBBUF_SIZE_MIN ? (uint64_t)p
								: CARET_CTL_SUBBUF_SIZE_MIN;
}

int caret_ctl_check_lttng_session_name(const char *name, char *why, size_t len)
{
	if (!name || !*name)
		return caret_errf(why, len, -EINVAL, "must not be empty");
	size_t n = strnlen(name, CARET_CTL_SESSION_NAME_MAX + 1);
	if (n > CARET_CTL_SESSION_NAME_MAX)
		return caret_errf(why, len, -ERANGE, "must be 1 to %d bytes long",
			   CARET_CTL_SESSION_NAME_MAX);
	/* The name becomes a directory under the trace path. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return caret_errf(why, len, -EINVAL, "must not be \".\" or \"..\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '/' || c < 0x20 || c == 0x7f)
			return caret_errf(why, len, -EINVAL,
				   "must not contain '/' or control characters");
	}
	return 0;
}

int caret_ctl_check_session_name(const char *name, char *why, size_t len)
{
	/* `-s --immediate` would name a session after an option. */
	if (name && name[0] == '-')
		return caret_errf(why, len, -EINVAL, "must not start with '-'");
	return caret_ctl_check_lttng_session_name(name, why, len);
}

const char *caret_ctl_rule_frequency(void)
{
	static char s[64];
	snprintf(s, sizeof(s), "must be an integer from %d to %d", CARET_CTL_FREQUENCY_MIN,
		 CARET_CTL_FREQUENCY_MAX);
	return s;
}

int caret_ctl_check_frequency(uint64_t v, char *why, size_t len)
{
	if (v < CARET_CTL_FREQUENCY_MIN || v > CARET_CTL_FREQUENCY_MAX)
		return caret_errf(why, len, -ERANGE, "%s", caret_ctl_rule_frequency());
	return 0;
}

/* 4096 -> "4K", 2^30 -> "1G": the spelling the options accept. */
static const char *human(char *b, size_t len, uint64_t v)
{
	static const char unit[] = "KMG";
	int u = -1;
	while (u < 2 && v >= 1024 && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(b, len, "%llu", (unsigned long long)v);
	else
		snprintf(b, len, "%llu%c", (unsigned long long)v, unit[u]);
	return b;
}

const char *caret_ctl_rule_subbuf_size(void)
{
	static char s[96];
	uint64_t min = caret_ctl_subbuf_size_min();
	char lo[24], hi[24];
	snprintf(s, sizeof(s), "must be a power of two from %s to %s (K/M/G suffixes allowed)",
		 human(lo, sizeof(lo), min), human(hi, sizeof(hi), CARET_CTL_SUBBUF_SIZE_MAX));
	return s;
}

int caret_ctl_check_subbuf_size(uint64_t v, char *why, size_t len)
{
	if (!pow2(v))
		return caret_errf(why, len, -EINVAL, "%s", caret_ctl_rule_subbuf_size());
	if (v < caret_ctl_subbuf_size_min() || v > CARET_CTL_SUBBUF_SIZE_MAX)
		return caret_errf(why, len, -ERANGE, "%s", caret_ctl_rule_subbuf_size());
	return 0;
}

const char *caret_ctl_rule_subbuf_count(void)
{
	static char s[64];
	snprintf(s, sizeof(s), "must be a power of two from %u to %u",
		 CARET_CTL_SUBBUF_COUNT_MIN, CARET_CTL_SUBBUF_COUNT_MAX);
	return s;
}

int caret_ctl_check_subbuf_count(uint64_t v, char *why, size_t len)
{
	if (!pow2(v))
		return caret_errf(why, len, -EINVAL, "%s", caret_ctl_rule_subbuf_count());
	if (v < CARET_CTL_SUBBUF_COUNT_MIN || v > CARET_CTL_SUBBUF_COUNT_MAX)
		return caret_errf(why, len, -ERANGE, "%s", caret_ctl_rule_subbuf_count());
	return 0;
}

const char *caret_ctl_rule_timeout(void)
{
	static char s[64];
	snprintf(s, sizeof(s), "must be more than 0 and at most %lld seconds",
		 (long long)(CARET_CTL_TIMEOUT_MAX_MS / 1000));
	return s;
}

int caret_ctl_check_timeout_ms(int64_t ms, char *why, size_t len)
{
	if (ms < 1 || ms > CARET_CTL_TIMEOUT_MAX_MS)
		return caret_errf(why, len, -ERANGE, "%s", caret_ctl_rule_timeout());
	return 0;
}
