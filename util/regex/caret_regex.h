/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CARET's filter dialect, matched with PCRE2. caret_trace reads
 * CARET_SELECT_NODES and the other lists as ':'-separated regular
 * expressions, each compiled as std::regex(item) (ECMAScript grammar,
 * case-sensitive) and searched with std::regex_search (anywhere in the
 * name, no implicit anchors). caretd's processes compile each item with
 * PCRE2 in the options that give ECMAScript's meaning; this module is the
 * one place that does so, used by the agent (the environment's and a
 * Start's lists), caretd (a request's lists) and caretctl (its options),
 * so the three never disagree on a pattern.
 *
 * ECMAScript over PCRE2 (caret_regex_dialect.c holds the details):
 *   - $ matches only at the end (PCRE2_DOLLAR_ENDONLY, not before a final
 *     newline); '.' matches anything but \n and \r (PCRE2_NEWLINE_ANYCRLF);
 *   - [] never matches, [^] matches any byte;
 *   - a backreference to a group that has not matched matches the empty
 *     string (PCRE2_MATCH_UNSET_BACKREF); \uHHHH and \xHH as ECMAScript
 *     (PCRE2_ALT_BSUX); \d \w \s and \b are ASCII (no UTF, no UCP);
 *   - where libstdc++ (what CARET runs) reads text otherwise than
 *     ECMAScript, it is followed: an escaped letter without a meaning is
 *     that letter (\e \Q \k ... reach PCRE2 without their backslash),
 *     \cX is X, and a quantifier after a quantifier repeats the
 *     repetition ("a**" reaches PCRE2 as (?:a*)*); \v is VT (PCRE2's is
 *     any vertical space); [] and [^] are spelt so PCRE2 quantifies them;
 *   - refused, as std::regex refuses them: (? other than (?: (?= (?!,
 *     a quantifier with nothing to repeat or after an assertion, a '{'
 *     that is not a repetition, \c at the end, \x without two hex
 *     digits, \u without four, a backreference to a group not closed
 *     before it, \1..\9 and \B inside brackets;
 *   - refused although libstdc++ accepts them (documented in
 *     caret-agent(7)): [[.x.]] and [[=x=]], \u above 00ff, groups nested
 *     deeper than 32;
 *   - \0 is NUL even before a digit, as in libstdc++ (PCRE2 would read
 *     \01 as octal: it gets \x00).
 *
 * Cost: every search is bounded (H5 of the hostile-input issue). A search
 * of one name runs at most CARET_RE_STEPS of PCRE2's matching steps (its
 * auto-callouts, counted across every start position, each at most one
 * pass over the name; a budget the searches of one name against one list
 * share) and at most CARET_RE_HEAP_KIB of match memory; one that would
 * need more stops with -E2BIG, which callers read as "no match". A compiled pattern holds at most CARET_RE_CODE_MAX bytes. No
 * JIT: it would map executable memory in every traced process and
 * ignores the heap and depth limits, and each name is matched once.
 */
#ifndef CARET_REGEX_H
#define CARET_REGEX_H

#include <stddef.h>

/* One item of a list, in bytes. */
#define CARET_RE_PATTERN_MAX 511
/* Matching steps per name (PCRE2 auto-callouts across start positions). */
#define CARET_RE_STEPS 100000ul
/* Match memory (PCRE2's backtracking frames) per search. */
#define CARET_RE_HEAP_KIB 1024u
/* Compiled size of one pattern (PCRE2 with 2-byte links stops at 64 KiB;
 * "(ab){255}" takes 7.6 KiB, "/talker\d" 212 bytes): what a member's
 * recording can make each traced process hold, 128 patterns at most. */
#define CARET_RE_CODE_MAX (16u * 1024u)
/* The length of the names a pattern is tried against before caretd
 * accepts it (caret_re_check_list). */
#define CARET_RE_PROBE_NAME 512
/* Steps caret_re_check_list may spend on one list's probes (caretd runs
 * them on its loop: about 50 ms at most). */
#define CARET_RE_PROBE_STEPS 1000000ul

struct caret_re;

/* pattern: n bytes, ECMAScript. 0 with *re set, -EINVAL (why says what
 * and where), -ENOMEM. */
int caret_re_compile(const char *pattern, size_t n, struct caret_re **re, char *why,
		     size_t whylen);
void caret_re_free(struct caret_re *re);

/* Whether `re` is found anywhere in name[0..n) (std::regex_search):
 * 1 found, 0 not, -E2BIG a limit was reached (steps or match memory),
 * -ENOMEM. steps (NULL: a budget of its own) is a budget shared by
 * several searches of one name: it holds the steps already spent, the
 * search stops when the total exceeds CARET_RE_STEPS, and it gets the new
 * total. Thread-safe. */
int caret_re_search(const struct caret_re *re, const char *name, size_t n,
		    unsigned long *steps);

/* One of CARET's lists ("a:/b\d:*"): every item ("*" alone matches
 * everything, as in caret_trace) compiles, and none reaches a limit on
 * names made to be costly for it (up to CARET_RE_PROBE_NAME bytes, the
 * list's probes within CARET_RE_PROBE_STEPS). 0 or -EINVAL with why
 * naming the item and the reason; -ENOMEM. */
int caret_re_check_list(const char *list, char *why, size_t whylen);

#endif
