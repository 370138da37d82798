/* SPDX-License-Identifier: Apache-2.0 */
/* CARET's filter patterns compiled and searched with PCRE2, every search
 * bounded: see caret_regex.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/regex/caret_regex.h"
#include "util/regex/caret_regex_dialect.h"

/* PCRE2's match() calls per start position: a second guard, the steps
 * below are the bound (PCRE2 resets this count at each start position, so
 * alone it lets a search cost it times the name's length). */
#define MATCH_LIMIT 100000u
/* Nested backtracking frames; the heap limit bounds their memory too. */
#define DEPTH_LIMIT 10000u

struct caret_re {
	pcre2_code *code;
};

/* The options that give PCRE2 ECMAScript's meaning (caret_regex.h). */
#define RE_OPTIONS                                                                                 \
	(PCRE2_DOLLAR_ENDONLY | PCRE2_MATCH_UNSET_BACKREF |                                        \
	 PCRE2_ALT_BSUX | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C |            \
	 PCRE2_AUTO_CALLOUT)

int caret_re_compile(const char *pattern, size_t n, struct caret_re **re, char *why,
		     size_t whylen)
{
	*re = NULL;
	if (n > CARET_RE_PATTERN_MAX) {
		if (why && whylen)
			snprintf(why, whylen, "longer than %d bytes", CARET_RE_PATTERN_MAX);
		return -EINVAL;
	}
	char *p = malloc(CARET_RE_DIALECT_CAP(n));
	struct caret_re *r = calloc(1, sizeof(*r));
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	int ret = -ENOMEM;
	if (!p || !r || !cc)
		goto out;
	size_t plen;
	ret = caret_re_dialect(pattern, n, p, &plen, why, whylen);
	if (ret < 0)
		goto out;
	/* '.' stops at \r as well as \n, as ECMAScript's does */
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
	pcre2_set_parens_nest_limit(cc, 32);
	int ec;
	PCRE2_SIZE eo;
	r->code = pcre2_compile((PCRE2_SPTR)p, plen, RE_OPTIONS, &ec, &eo, cc);
	if (!r->code) {
		if (ec == PCRE2_ERROR_NOMEMORY) {
			ret = -ENOMEM;
			goto out;
		}
		/* the offset is in the pattern PCRE2 was given, which differs
		 * from the user's only where caret_regex_dialect.c rewrote */
		if (why && whylen) {
			PCRE2_UCHAR m[160];
			pcre2_get_error_message(ec, m, sizeof(m));
			snprintf(why, whylen, "%s at offset %zu", (char *)m,
				 (size_t)(eo < n ? eo : n));
		}
		ret = -EINVAL;
		goto out;
	}
	size_t size = 0;
	pcre2_pattern_info(r->code, PCRE2_INFO_SIZE, &size);
	if (size > CARET_RE_CODE_MAX) {
		/* each traced process would hold it */
		if (why && whylen)
			snprintf(why, whylen, "compiles to %zu bytes, more than %u (the whole "
				 "pattern, from offset 0)", size, CARET_RE_CODE_MAX);
		ret = -EINVAL;
		goto out;
	}
	*re = r;
	r = NULL;
	ret = 0;
out:
	caret_re_free(r);
	pcre2_compile_context_free(cc);
	free(p);
	return ret;
}

void caret_re_free(struct caret_re *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}

struct budget {
	unsigned long steps;
};

/* Called by PCRE2 before each item of the pattern (PCRE2_AUTO_CALLOUT), at
 * every start position: the one count that spans a whole search. */
static int step(pcre2_callout_block *b, void *data)
{
	(void)b;
	struct budget *s = data;
	return ++s->steps > CARET_RE_STEPS ? PCRE2_ERROR_MATCHLIMIT : 0;
}

int caret_re_search(const struct caret_re *re, const char *name, size_t n,
		    unsigned long *steps)
{
	struct budget s = { steps ? *steps : 0 };
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int ret = -ENOMEM;
	if (!mc || !md)
		goto out;
	pcre2_set_match_limit(mc, MATCH_LIMIT);
	pcre2_set_depth_limit(mc, DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, CARET_RE_HEAP_KIB);
	pcre2_set_callout(mc, step, &s);
	int rc = pcre2_match(re->code, (PCRE2_SPTR)name, n, 0, 0, md, mc);
	if (rc >= 0)
		ret = 1;
	else if (rc == PCRE2_ERROR_NOMATCH)
		ret = 0;
	else if (rc == PCRE2_ERROR_NOMEMORY)
		ret = -ENOMEM;
	else
		ret = -E2BIG; /* a limit: match, depth, heap or our steps */
out:
	/* the match data and its frames go: a pattern holds only its code */
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	if (steps)
		*steps = s.steps;
	return ret;
}
