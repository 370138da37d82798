/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ECMAScript (libstdc++'s std::regex, as caret_trace compiles CARET's
 * lists) handed to PCRE2: what PCRE2's options cannot say (see
 * caret_regex.h). PCRE2 parses the pattern; this pass only walks it to
 * find the places where the two grammars read the same text differently:
 *   - PCRE2 gives meaning to escaped letters that ECMAScript reads as the
 *     letter (\e \Q \k \p \A ...): the backslash is dropped;
 *   - "a**" and "a*+" are (a*)* and (a*)+ in libstdc++, an error and a
 *     possessive quantifier in PCRE2: the first repetition is wrapped in
 *     (?: );
 *   - PCRE2 accepts syntax that std::regex refuses, which CARET skips as
 *     an invalid item: (?<..) (?i) (*VERB) quantified assertions, forward
 *     backreferences, octal escapes, '{' as a literal: refused here, so a
 *     pattern never selects in caretd what it cannot select in CARET;
 *   - a backreference is written \g{N}, which PCRE2 cannot read as octal.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/regex/caret_regex_dialect.h"

#define MAX_NEST 64

enum last { L_NONE, L_ATOM, L_QUANT, L_LAZY, L_ASSERT };
enum group { G_CAP, G_NONCAP, G_LOOK };

struct dia {
	const unsigned char *p;
	size_t n, i;
	char *out;
	size_t len, cap;
	char *why;
	size_t whylen;
	int err;
};

static int fail(struct dia *d, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct dia *d, size_t at, const char *fmt, ...)
{
	if (d->err)
		return d->err;
	d->err = -EINVAL;
	if (d->why && d->whylen) {
		char m[160];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m, sizeof(m), fmt, ap);
		va_end(ap);
		snprintf(d->why, d->whylen, "%s at offset %zu", m, at);
	}
	return d->err;
}

static void put(struct dia *d, const void *s, size_t k)
{
	if (d->err)
		return;
	/* CARET_RE_DIALECT_CAP covers the worst case; a bug, not an input */
	if (d->cap - d->len <= k) {
		fail(d, d->i, "internal: pattern grows beyond its room");
		return;
	}
	memcpy(d->out + d->len, s, k);
	d->len += k;
}

static bool is_hex(int c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static bool hex_run(const struct dia *d, size_t at, size_t k)
{
	if (d->n - at < k)
		return false;
	for (size_t j = 0; j < k; j++)
		if (!is_hex(d->p[at + j]))
			return false;
	return true;
}

static bool is_letter(int c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* \0 \c \x \u and the classes and controls both grammars read alike; at
 * d->i (the letter after the backslash). Returns whether k was one of
 * them (emitted or failed). */
static bool common_escape(struct dia *d, size_t at, int k)
{
	size_t i = d->i;
	switch (k) {
	case '0':
		/* libstdc++ reads "\\01" as NUL then '1'; "\\0" then a digit
		 * would be octal to PCRE2 */
		put(d, "\\x00", 4);
		d->i++;
		return true;
	case 'c': {
		/* libstdc++ (what CARET runs) reads \cX as the character X, not
		 * as a control character: its meaning is kept */
		if (i + 1 >= d->n) {
			fail(d, at, "\\c without a control letter");
			return true;
		}
		unsigned char x = d->p[i + 1];
		if (x < 0x80 && !is_letter(x) && !(x >= '0' && x <= '9'))
			put(d, "\\", 1);
		put(d, &x, 1);
		d->i += 2;
		return true;
	}
	case 'v':
		put(d, "\\x0b", 4); /* VT; PCRE2's \v is any vertical space */
		d->i++;
		return true;
	case 'x':
	case 'u': {
		size_t k2 = k == 'x' ? 2 : 4;
		if (!hex_run(d, i + 1, k2)) {
			fail(d, at, "\\%c without %s hexadecimal digits", k, k == 'x' ? "two" : "four");
			return true;
		}
		put(d, &d->p[i - 1], k2 + 2);
		d->i += 1 + k2;
		return true;
	}
	}
	if (k && strchr("dDwWsStnfr", k)) {
		put(d, &d->p[i - 1], 2);
		d->i++;
		return true;
	}
	return false;
}

/* An escape outside brackets; d->i is at the backslash. */
static enum last escape(struct dia *d, unsigned ncap, const unsigned *open, unsigned nopen)
{
	size_t at = d->i++;
	if (d->i >= d->n) {
		fail(d, at, "trailing backslash");
		return L_NONE;
	}
	int k = d->p[d->i];
	if (k == 'b' || k == 'B') {
		put(d, &d->p[at], 2);
		d->i++;
		return L_ASSERT;
	}
	if (k >= '1' && k <= '9') {
		/* libstdc++ reads every digit and refuses a group not opened
		 * yet; PCRE2 would read \12 as octal with fewer groups */
		unsigned long v = 0;
		while (d->i < d->n && d->p[d->i] >= '0' && d->p[d->i] <= '9') {
			if (v < 100000)
				v = v * 10 + (unsigned long)(d->p[d->i] - '0');
			d->i++;
		}
		if (v > ncap) {
			fail(d, at, "backreference \\%lu to a group not opened before it", v);
			return L_NONE;
		}
		for (unsigned j = 0; j < nopen; j++)
			if (open[j] == v) {
				fail(d, at, "backreference \\%lu inside its own group", v);
				return L_NONE;
			}
		char b[32];
		int w = snprintf(b, sizeof(b), "\\g{%lu}", v);
		put(d, b, (size_t)w);
		return L_ATOM;
	}
	if (common_escape(d, at, k))
		return L_ATOM;
	if (is_letter(k)) {
		put(d, &d->p[d->i], 1); /* an identity escape: the letter */
	} else if (k >= 0x80) {
		put(d, &d->p[d->i], 1); /* a byte, without meaning in either */
	} else {
		put(d, &d->p[at], 2);
	}
	d->i++;
	return L_ATOM;
}

/* A bracket expression; d->i is at '['. ECMAScript ends it at the first
 * unescaped ']' ("[]" is empty, PCRE2_ALLOW_EMPTY_CLASS reads it so);
 * libstdc++ also knows [:class:] inside, as PCRE2 does. */
static void bracket(struct dia *d)
{
	size_t open = d->i++;
	bool neg = d->i < d->n && d->p[d->i] == '^';
	if (d->i + neg < d->n && d->p[d->i + neg] == ']') {
		/* PCRE2's empty class under a quantifier never matches, even
		 * "[]?": spelt as a group that fails, and [^] as every byte */
		if (neg)
			put(d, "[\\x00-\\xff]", 11);
		else
			put(d, "(?:(?!))", 8);
		d->i += 1 + neg;
		return;
	}
	put(d, "[", 1);
	if (neg) {
		put(d, "^", 1);
		d->i++;
	}
	while (!d->err && d->i < d->n) {
		int c = d->p[d->i];
		if (c == ']') {
			put(d, "]", 1);
			d->i++;
			return;
		}
		if (c == '[' && d->i + 1 < d->n && strchr(":.=", d->p[d->i + 1]) && d->p[d->i + 1]) {
			/* [:alpha:] whole (PCRE2 refuses [. .] and [= =] itself) */
			char end[2] = { (char)d->p[d->i + 1], ']' };
			const unsigned char *e = NULL;
			for (size_t j = d->i + 2; j + 1 < d->n && !e; j++)
				if (d->p[j] == (unsigned char)end[0] && d->p[j + 1] == ']')
					e = &d->p[j];
			if (e) {
				size_t k = (size_t)(e - &d->p[d->i]) + 2;
				put(d, &d->p[d->i], k);
				d->i += k;
				continue;
			}
		}
		if (c != '\\') {
			put(d, &d->p[d->i++], 1);
			continue;
		}
		size_t at = d->i++;
		if (d->i >= d->n)
			break;
		int k = d->p[d->i];
		if (k == 'B') {
			fail(d, at, "\\B inside brackets");
		} else if (k >= '1' && k <= '9') {
			fail(d, at, "a backreference inside brackets");
		} else if (k == 'b') {
			put(d, "\\b", 2); /* backspace in both */
			d->i++;
		} else if (!common_escape(d, at, k)) {
			if (is_letter(k) || k >= 0x80)
				put(d, &d->p[d->i], 1);
			else
				put(d, &d->p[at], 2);
			d->i++;
		}
	}
	fail(d, open, "unmatched '['");
}

/* {n} {n,} {n,m} at d->i: its length, 0 if it is not one. */
static size_t repetition(const struct dia *d)
{
	size_t j = d->i + 1, digits = 0;
	while (j < d->n && d->p[j] >= '0' && d->p[j] <= '9')
		j++, digits++;
	if (!digits)
		return 0;
	if (j < d->n && d->p[j] == ',') {
		j++;
		while (j < d->n && d->p[j] >= '0' && d->p[j] <= '9')
			j++;
	}
	if (j >= d->n || d->p[j] != '}')
		return 0;
	return j + 1 - d->i;
}

int caret_re_dialect(const char *pattern, size_t n, char *out, size_t *outlen, char *why,
		     size_t whylen)
{
	struct dia d = { .p = (const unsigned char *)pattern, .n = n, .out = out,
			 .cap = CARET_RE_DIALECT_CAP(n), .why = why, .whylen = whylen };
	enum group kind[MAX_NEST];
	size_t gat[MAX_NEST], open_at[MAX_NEST];
	unsigned depth = 0, ncap = 0;
	/* the capture groups open here (libstdc++ refuses a backreference
	 * to one) */
	unsigned open_cap[MAX_NEST], nopen = 0;
	enum last last = L_NONE;
	size_t atom_at = 0; /* where the last atom starts in out */
	while (!d.err && d.i < d.n) {
		size_t at = d.i, out_at = d.len;
		int c = d.p[d.i];
		size_t qlen = 0;
		switch (c) {
		case '\\':
			last = escape(&d, ncap, open_cap, nopen);
			atom_at = out_at;
			continue;
		case '[':
			bracket(&d);
			last = L_ATOM;
			atom_at = out_at;
			continue;
		case '(': {
			if (depth == MAX_NEST) {
				fail(&d, at, "groups nested deeper than %d", MAX_NEST);
				break;
			}
			enum group g = G_CAP;
			size_t k = 1;
			if (d.i + 1 < d.n && d.p[d.i + 1] == '?') {
				int t = d.i + 2 < d.n ? d.p[d.i + 2] : 0;
				if (t != ':' && t != '=' && t != '!') {
					fail(&d, at, "(? other than (?: (?= (?! (not ECMAScript)");
					break;
				}
				g = t == ':' ? G_NONCAP : G_LOOK;
				k = 3;
			} else {
				open_cap[nopen++] = ++ncap;
			}
			put(&d, &d.p[d.i], k);
			d.i += k;
			kind[depth] = g;
			gat[depth] = out_at;
			open_at[depth++] = at;
			last = L_NONE;
			continue;
		}
		case ')':
			if (!depth) {
				fail(&d, at, "unmatched ')'");
				break;
			}
			depth--;
			if (kind[depth] == G_CAP)
				nopen--;
			put(&d, ")", 1);
			d.i++;
			atom_at = gat[depth];
			last = kind[depth] == G_LOOK ? L_ASSERT : L_ATOM;
			continue;
		case '|':
			put(&d, "|", 1);
			d.i++;
			last = L_NONE;
			continue;
		case '^':
		case '$':
			put(&d, &d.p[d.i++], 1);
			last = L_ASSERT;
			continue;
		case '*':
		case '+':
		case '?':
			qlen = 1;
			break;
		case '{':
			qlen = repetition(&d);
			if (!qlen)
				fail(&d, at, "'{' that is not a repetition {n} {n,} {n,m}");
			break;
		default:
			put(&d, &d.p[d.i++], 1);
			last = L_ATOM;
			atom_at = out_at;
			continue;
		}
		if (d.err)
			break;
		/* a quantifier */
		if (last == L_NONE) {
			fail(&d, at, "nothing to repeat");
			break;
		}
		if (last == L_ASSERT) {
			fail(&d, at, "a quantifier after an assertion (^ $ \\b \\B (?= (?!)");
			break;
		}
		if (last == L_QUANT && c == '?') {
			put(&d, "?", 1); /* non-greedy, the same in both */
			d.i++;
			last = L_LAZY;
			continue;
		}
		if (last == L_QUANT || last == L_LAZY) {
			/* libstdc++ repeats the repetition: (?:a*)+ */
			if (d.cap - d.len <= 4) {
				fail(&d, at, "internal: pattern grows beyond its room");
				break;
			}
			memmove(d.out + atom_at + 3, d.out + atom_at, d.len - atom_at);
			memcpy(d.out + atom_at, "(?:", 3);
			d.len += 3;
			put(&d, ")", 1);
		}
		put(&d, &d.p[d.i], qlen);
		d.i += qlen;
		last = L_QUANT;
	}
	if (!d.err && depth)
		fail(&d, open_at[depth - 1], "unmatched '('");
	if (d.err)
		return d.err;
	out[d.len] = '\0';
	*outlen = d.len;
	return 0;
}
