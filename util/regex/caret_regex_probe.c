/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A list's patterns tried before caretd accepts them (H5 of the
 * hostile-input issue): a member's list is matched in every traced
 * process on the host, other users' among them. Each agent bounds each
 * search (caret_regex.h); this refuses, at `record` time, a pattern that
 * reaches that bound on names made to be costly for it, so that what
 * agents see has been shown to stay below it on such names.
 *
 * The names: CARET_RE_PROBE_NAME bytes, a long run of one character x
 * from the pattern, one character y that breaks the run, then every
 * character of the pattern (so that PCRE2's "required character" checks
 * pass and the search really runs). Backtracking blows up on runs that a
 * pattern's repetitions can split in many ways and that fail late; x and
 * y range over the pattern's own characters and a few of the classes'.
 * A heuristic: the agents' bound holds whatever a name is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/regex/caret_regex.h"

#define RUN_CHARS 12
#define TAIL_MAX 48

struct probe {
	char run[RUN_CHARS + 1]; /* candidates for x and y */
	char tail[TAIL_MAX + 1];
	unsigned long spent;
};

static void add(char *s, size_t cap, int c)
{
	size_t l = strlen(s);
	if (c && !strchr(s, c) && l + 1 < cap)
		s[l] = (char)c, s[l + 1] = '\0';
}

static void probe_chars(struct probe *pr, const char *p, size_t n)
{
	memset(pr->run, 0, sizeof(pr->run));
	memset(pr->tail, 0, sizeof(pr->tail));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		add(pr->tail, sizeof(pr->tail), c);
		if (c >= 0x20 && c < 0x7f && !strchr("\\()[]{}*+?|^$", c))
			add(pr->run, sizeof(pr->run), c);
	}
	/* \w \d \s . and [^...] match these where no literal says more */
	for (const char *d = "a0_/ -"; *d; d++)
		add(pr->run, sizeof(pr->run), *d);
}

/* 0, -E2BIG (a limit: why says so) or -ENOMEM. */
static int try_name(struct probe *pr, const struct caret_re *re, int x, int y, char *why,
		    size_t whylen)
{
	char name[CARET_RE_PROBE_NAME];
	size_t tl = strlen(pr->tail), run = sizeof(name) - tl - (y ? 1 : 0);
	memset(name, x, run);
	if (y)
		name[run] = (char)y;
	memcpy(name + sizeof(name) - tl, pr->tail, tl);
	unsigned long steps = 0;
	int r = caret_re_search(re, name, sizeof(name), &steps);
	pr->spent += steps;
	if (r == -E2BIG && why && whylen)
		snprintf(why, whylen,
			 "too costly: on a %d-byte name of '%c'%s%s it exceeds the agents' "
			 "limit (%lu steps, %u KiB per name; a literal or ^ before the "
			 "repetition helps)",
			 CARET_RE_PROBE_NAME, x, y ? " then " : "", y ? (char[]){ (char)y, 0 } : "",
			 CARET_RE_STEPS, CARET_RE_HEAP_KIB);
	return r < 0 ? r : 0;
}

static int over_budget(const struct probe *pr, char *why, size_t whylen)
{
	if (pr->spent <= CARET_RE_PROBE_STEPS)
		return 0;
	if (why && whylen)
		snprintf(why, whylen,
			 "too costly: the list's patterns need more than %lu matching steps on "
			 "the probe names together",
			 CARET_RE_PROBE_STEPS);
	return -E2BIG;
}

static int probe(struct probe *pr, const char *p, size_t n, const struct caret_re *re,
		 char *why, size_t whylen)
{
	probe_chars(pr, p, n);
	for (const char *x = pr->run; *x; x++) {
		int r = try_name(pr, re, *x, 0, why, whylen);
		if (r == 0)
			r = over_budget(pr, why, whylen);
		for (const char *y = pr->run; r == 0 && *y; y++)
			if (*y != *x && (r = try_name(pr, re, *x, *y, why, whylen)) == 0)
				r = over_budget(pr, why, whylen);
		if (r < 0)
			return r;
	}
	return 0;
}

int caret_re_check_list(const char *list, char *why, size_t whylen)
{
	if (!list || !*list)
		return 0;
	struct probe pr = { .spent = 0 };
	const char *p = list;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!(len == 1 && *p == '*')) {
			char w[300] = "";
			struct caret_re *re;
			int r = caret_re_compile(p, len, &re, w, sizeof(w));
			if (r == 0) {
				r = probe(&pr, p, len, re, w, sizeof(w));
				caret_re_free(re);
			}
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				if (why && whylen)
					snprintf(why, whylen, "regular expression \"%.*s\": %s",
						 (int)(len > 100 ? 100 : len), p, w);
				return -EINVAL;
			}
		}
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}
