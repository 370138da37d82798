/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CARET's filter dialect. caret_trace reads CARET_SELECT_NODES and the
 * other lists as ':'-separated ECMAScript regular expressions (std::regex
 * with its default grammar, searched with std::regex_search); caretd's
 * processes match with POSIX extended regexes (regcomp/regexec, which also
 * search). This is the one translation between the two, used by the agent
 * (the environment's and a Start's lists), caretd (a request's lists) and
 * caretctl (its options), so the three never disagree on a pattern.
 *
 * Accepted, with std::regex's meaning: literals; . ^ $ | ( ) (?: ); the
 * quantifiers * + ? {n} {n,} {n,m} (n, m at most CARET_RE_DUP_MAX), also
 * in their non-greedy form (*? +? ?? {..}?), which is translated to the
 * greedy one: a filter only asks whether a match exists anywhere, and
 * greediness never changes that; \d \D \w \W \s \S (ASCII, as std::regex
 * in the C locale) outside brackets and \d \w \s inside; \b \B; \t \n \v
 * \f \r; \xHH (01 to 7f); an escaped non-alphanumeric character (\. \/
 * \\ ...); bracket expressions of ASCII characters, ranges and the escapes
 * above, negated or not.
 *
 * Refused with a reason (-EINVAL), where std::regex would throw: syntax
 * errors (unmatched ( ) [, a quantifier with nothing to repeat or after
 * another, a '{' that is not a repetition, ranges out of order, a trailing
 * backslash, unknown escapes). Refused although std::regex accepts them
 * (outside the subset, named in the reason): backreferences \1..\9,
 * lookaheads (?= (?!, \0 \c \u, \D \W \S inside brackets, empty [] and
 * [^], non-ASCII bytes inside brackets or before a quantifier (std::regex
 * works on bytes, regexec on characters), counts above CARET_RE_DUP_MAX,
 * and patterns whose repetitions expand beyond CARET_RE_COST_MAX (each
 * costs the matcher memory in every process).
 */
#ifndef CARET_REGEX_H
#define CARET_REGEX_H

#include <stddef.h>

#define CARET_RE_DUP_MAX 255
#define CARET_RE_COST_MAX 4096
/* Room for the ERE of an n-byte ECMAScript pattern (the worst case, \W,
 * grows 70-fold). */
#define CARET_RE_ERE_CAP(n) ((n) * 72 + 1)

/* pattern: n bytes, ECMAScript. ere: cap bytes, NUL-terminated on
 * success. 0, -EINVAL (why says what and where) or -ENOSPC. */
int caret_re_translate(const char *pattern, size_t n, char *ere, size_t cap, char *why,
		       size_t whylen);

/* One of CARET's lists ("a:/b\d:*"): every item ("*" alone matches
 * everything, as in caret_trace) translates and compiles. 0 or -EINVAL
 * with why naming the item and the reason; -ENOMEM. */
int caret_re_check_list(const char *list, char *why, size_t whylen);

#endif
